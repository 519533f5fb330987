"""Where a time budget goes on the default path: the served app (`python -m sft_ui serve`,
a fresh process with a fresh cache, as a newcomer's first run: no speed measured, no base
answers kept), the default model and data, a time budget and nothing else set, started
through the API after the page would have been read (`--read` seconds). Prints, per run,
the seconds from Start to the first step, in optimizer steps, in sample rounds (each
round's seconds), after the last step, and the share of the budget spent in steps.

    .venv/bin/python scripts/bench_budget.py [--minutes 3] [--runs 1] [--read 20]

Time in steps is the training time of the logged steps (the tokens each step trained
over its tokens/s, which leaves out sampling and evaluation), the first step counted at
the second's pace. Run it on an otherwise quiet machine: it measures the machine's CPU.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_run(work: Path, minutes: float, read: float) -> dict:
    """The figures of one budgeted run in a fresh app with a fresh cache."""
    from scripts.served import serve
    from sft_ui.models import cache_dir
    cache = work / f"cache-{time.time_ns()}"
    cache.mkdir()
    (cache / "models").symlink_to(cache_dir() / "models")  # the default model, prepared
    runs = work / f"runs-{time.time_ns()}"
    os.environ["SFT_UI_CACHE"] = str(cache)
    with serve(runs, work / "app.log") as (_, client):
        time.sleep(read)  # a person reads the page; the warm worker gets ready meanwhile
        start = time.time()
        run_id = client.predict({"time_budget_minutes": minutes}, api_name="/start_run")["run_id"]
        while client.predict(run_id, api_name="/run_status")["state"] in (
                "queued", "running", "stopping"):
            time.sleep(2)
        ended = time.time()
    folder = runs / run_id
    state = json.loads((folder / "state.json").read_text())
    metrics = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    log = (folder / "train.log").read_text()
    return {"state": state, "wall": ended - start, "log": log,
            "steps_seconds": _steps_seconds(metrics),
            "rounds": [float(s) for s in re.findall(r"Sample answers at step \d+ in ([\d.]+) s",
                                                    log)],
            "first_step": _at(log, "Started at step") - state["created"],
            "after_steps": state["finished"] - _at(log, r"step \d+: loss", last=True)}


def _steps_seconds(metrics: list[dict]) -> float:
    """Training time of the logged steps: each record's new tokens over its tokens/s."""
    rows = [m for m in metrics if "num_tokens" in m and "loss" in m]
    times = [(b["num_tokens"] - a["num_tokens"]) / b["tokens_per_second"]
             for a, b in zip(rows, rows[1:]) if b.get("tokens_per_second")]
    return sum(times) + (times[0] if times else 0.0)  # the first step at the second's pace


def _at(log: str, pattern: str, last: bool = False) -> float:
    """The clock time (today) of the log's first (or last) line matching `pattern`."""
    found = re.findall(r"^(\d\d):(\d\d):(\d\d) INFO " + pattern, log, re.M)
    h, m, s = (int(x) for x in found[-1 if last else 0])
    now = time.localtime()
    return time.mktime((now.tm_year, now.tm_mon, now.tm_mday, h, m, s, 0, 0, -1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--read", type=float, default=20.0,
                        help="seconds between the page opening and Start")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-budget-"))
    budget = args.minutes * 60
    print(f"Default model and data, time budget {args.minutes:g} min, Start {args.read:g} s "
          f"after the app serves; {os.cpu_count()} CPUs; app log in {work / 'app.log'}")
    for n in range(1, args.runs + 1):
        r = one_run(work, args.minutes, args.read)
        s = r["state"]
        rounds = r["rounds"]
        fit = re.search(r"Time budget: (\d+) steps fit, at ([\d.]+) s a step", r["log"])
        print(f"run {n}: {s['state']}, {s['step']}/{s['max_steps']} steps"
              + (f" (set on its first steps: {fit[1]} at {fit[2]} s)" if fit else "")
              + f"; Start to end {r['wall']:.0f} s of {budget:.0f} s", flush=True)
        print(f"  Start to the first step {r['first_step']:.0f} s; in steps "
              f"{r['steps_seconds']:.0f} s ({r['steps_seconds'] / budget:.0%} of the budget); "
              f"{len(rounds)} sample rounds {sum(rounds):.0f} s "
              f"({', '.join(f'{x:.1f}' for x in rounds)} s each); after the last step "
              f"{r['after_steps']:.0f} s", flush=True)
        print(f"  message: {s['message']}", flush=True)


if __name__ == "__main__":
    main()
