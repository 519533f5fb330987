"""A sweep against the quick path, on a task of our own the base model fails (own_tasks.py's
task s: SFT prompt/completion "What is 9 - 4?" -> "Result: 5 ✓"): the quick path's run of
QUICK_MINUTES (a time budget, nothing else set), then a sweep of SWEEP_MINUTES (Optuna over
the learning rate and the LoRA rank, each trial its share of the time as its budget, judged
on the eval loss of the rows it holds out); both models answer the task's 20 held-out
questions as the Chat tab asks them. Prints the trials, the planner's estimate of the
sweep against what it took, and the held-out scores.

    .venv/bin/python scripts/sweep_vs_quick.py   # QUICK_MINUTES=5 SWEEP_MINUTES=15
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from own_tasks import held_out, write  # noqa: E402

from sft_ui.runs import RunManager  # noqa: E402
from sft_ui.runs.run_queue import RunQueue  # noqa: E402
from sft_ui.sweeps import Scorer, Sweeps, SweepSpec  # noqa: E402


def main() -> None:
    quick_minutes = float(os.environ.get("QUICK_MINUTES", 5))
    sweep_minutes = float(os.environ.get("SWEEP_MINUTES", 15))
    work = Path(tempfile.mkdtemp(prefix="sweep-vs-quick-"))
    write(work / "tasks", 7)
    data = str(work / "tasks" / "s_train.jsonl")
    manager = RunManager(work / "runs")
    base = {"dataset_name": data, "sample_steps": 0}

    started = time.time()
    quick = manager.start({**base, "time_budget_minutes": quick_minutes})
    while manager.get(quick).state not in ("done", "failed", "stopped"):
        time.sleep(2)
    run = manager.get(quick)
    print(f"Quick path: {run.state} in {time.time() - started:.0f} s, {run.step} steps; "
          f"the budget chose: {'; '.join(run.budget)}", flush=True)
    quick_score = held_out(str(run.dir), "s", work / "tasks", quiet=True)

    sweeps = Sweeps(RunQueue(manager), manager, Scorer())
    spec = SweepSpec(base=base, method="optuna", budget_minutes=sweep_minutes,
                     vary={"learning_rate": {"low": 1e-4, "high": 3e-3, "log": True},
                           "lora_r": [8, 16, 32]})
    started = time.time()
    sweep = sweeps.start(spec)
    sweeps.wait(sweep)
    took = time.time() - started
    found = sweep.snapshot()
    print(f"Sweep: {found['state']}, {len(found['trials'])} trials (planned at the start: "
          f"{found['first_planned']}), estimate {found['estimate_seconds']:.0f} s, took "
          f"{took:.0f} s of {sweep_minutes * 60:.0f}; each trial {found['length']}", flush=True)
    for place, t in enumerate(found["trials"], 1):
        r = manager.get(t["run_id"]) if t["run_id"] else None
        print(f"  {place}. eval loss {t['score']}  {t['params']}  {t['seconds']:.0f} s  "
              f"{r.step if r else '--'} steps  {t['state']}{' pruned' if t['pruned'] else ''}")
    best = manager.get(found["best"]["run_id"])
    best_score = held_out(str(best.dir), "s", work / "tasks", quiet=True)
    base_score = held_out("base", "s", work / "tasks", quiet=True)
    n = base_score["n"]
    for label, s in (("base model", base_score), (f"quick path {quick_minutes:g} min",
                                                 quick_score),
                     (f"best of the {sweep_minutes:g}-min sweep", best_score)):
        print(f"Held out, {label}: in form {s['in_form']}/{n}, right {s['right']}/{n}")
    manager.close()


if __name__ == "__main__":
    main()
