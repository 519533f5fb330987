"""The plan's step count before Start against the steps a time-budgeted run trains.

    .venv/bin/python scripts/plan_vs_run.py DATA_FILE [--minutes 2] [--runs 2]

Each round prints what the plan says for the file and budget, then starts the run as the
app does and prints the steps it trained. The first plan has no speed yet (a fresh cache
of its own, in a temporary folder); each run remembers its speed for the next plan.
Run it on an otherwise idle machine: the steps follow the pace.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="plan-vs-run-"))
    os.environ["SFT_UI_CACHE"] = str(work / "cache")
    (work / "cache").mkdir()
    real = Path.home() / ".cache" / "sft_ui" / "models"  # the prepared default model
    if real.exists():
        (work / "cache" / "models").symlink_to(real)
    from sft_ui.config import RunConfig
    from sft_ui.plan import planner
    from sft_ui.runs import RunManager
    settings = {"dataset_name": str(Path(args.data).resolve()),
                "time_budget_minutes": args.minutes}
    manager = RunManager(work / "runs")
    for round_ in range(1, args.runs + 1):
        plan = planner.plan_with_data(RunConfig.from_dict(settings))
        print(f"round {round_}: the plan says {plan['steps']} steps: "
              f"{plan['budget'][-1] if plan['budget'] else ''}", flush=True)
        run_id = manager.start(settings)
        while manager.get(run_id).state in ("queued", "running"):
            time.sleep(1)
        run = manager.get(run_id)
        print(f"round {round_}: the run {run.state} after {run.step} steps", flush=True)


if __name__ == "__main__":
    main()
