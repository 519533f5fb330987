"""Sweeps whose trials really train, or whose app is really killed: a sweep on the tiny
model judged on held-out rows, the command line running a sweep file, a GRPO trial judged
by its rewards, and a sweep cut off by kill -9 resumed where it was."""
from __future__ import annotations

import subprocess
import sys

import yaml

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.runs import RunManager
from sft_ui.runs.run_queue import RunQueue
from sft_ui.sweeps import Scorer, Sweeps, SweepSpec
from tests.conftest import HANG, ROOT, wait_for
from tests.sweeps.test_sweeps import Losses


def test_a_real_sweep_trains_and_judges_on_the_held_out_rows(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path / "runs")
    actions = Actions(manager, Access())
    try:
        snap = actions.start_sweep(None, {
            "base": {**tiny_cfg, "max_steps": 4, "sample_steps": 0},
            "vary": {"learning_rate": [1e-4, 1e-2]}, "budget_minutes": 10})
        sweep = actions.sweeps.get(snap["id"])
        assert actions.sweeps.wait(sweep, HANG)
        snap = actions.sweep(None)
        assert snap["state"] == "done" and len(snap["trials"]) == 2
        scores = [t["score"] for t in snap["trials"]]
        assert scores == sorted(scores)  # ranked: lowest eval loss first
        for t in snap["trials"]:
            run = manager.get(t["run_id"])
            evals = [m for m in run.metrics if "eval_loss" in m]
            assert evals[-1]["step"] == 4 and evals[-1]["eval_loss"] == t["score"]
        cfg, run_id = actions.best_of_sweep(None)
        assert run_id == snap["best"]["run_id"] and cfg.learning_rate == \
            snap["best"]["params"]["learning_rate"]
    finally:
        manager.close()


def test_the_command_line_runs_a_sweep_file(tmp_path, tiny_cfg):
    base = {**tiny_cfg, "max_steps": 2, "sample_steps": 0}
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump({
        "base": base, "vary": {"learning_rate": [1e-3, 1e-2]}, "budget_minutes": 5}))
    done = subprocess.run([sys.executable, "-m", "sft_ui", "sweep", "--config",
                           str(tmp_path / "sweep.yaml"), "--runs-dir", str(tmp_path / "runs")],
                          cwd=ROOT, capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "done in" in done.stdout and "  1. " in done.stdout and "  2. " in done.stdout
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"vary": {"seed": [1, 2]}}))
    bad = subprocess.run([sys.executable, "-m", "sft_ui", "sweep", "--config",
                          str(tmp_path / "bad.yaml"), "--runs-dir", str(tmp_path / "runs")],
                         cwd=ROOT, capture_output=True, text=True, timeout=HANG)
    assert bad.returncode == 2 and "cannot vary 'seed'" in bad.stderr


def test_a_grpo_trial_is_judged_by_its_rewards_on_held_out_prompts(tmp_path, tiny_cfg):
    import json
    from types import SimpleNamespace

    from sft_ui.config import RunConfig
    from sft_ui.data.grpo_demo import grpo_demo_rows
    held = tmp_path / "held.jsonl"
    held.write_text("".join(json.dumps(r) + "\n" for r in grpo_demo_rows(seed=3, count=10)))
    spec = SweepSpec(base={"stage": "grpo"}, vary={"temperature": [0.7, 1.0]},
                     score="reward", eval_file=str(held))
    cfg = RunConfig.from_dict({**tiny_cfg, "stage": "grpo", "dataset_name": "demo-grpo",
                               "num_generations": 2, "max_completion_length": 6,
                               "rewards": ["json_answer", "exact_match"]})
    run = SimpleNamespace(model_dir=tiny_cfg["model_name_or_path"], config=cfg)
    score = Scorer()(spec, run)  # 8 held-out prompts, 2 answers each, both rewards summed
    assert score is not None and 0.0 <= score <= 2.0


KILLED_APP = """
import sys, threading, time
from pathlib import Path
sys.path.insert(0, {root!r})
from sft_ui.runs import RunManager
from sft_ui.runs.run_queue import RunQueue
from sft_ui.sweeps import Scorer, Sweeps, SweepSpec
calls = []
def trainer(cfg, run_dir, sink, resume_from=None):
    calls.append(cfg.learning_rate)
    for step in range(1, 4):
        sink.progress(step, 3)
        sink.add_metrics({{"step": step, "loss": 1.0, "eval_loss": 2.0 + cfg.learning_rate}})
        while len(calls) == 2:  # the second trial trains until the app is killed
            time.sleep(0.05)
manager = RunManager(Path({runs!r}), trainer=trainer)
sweeps = Sweeps(RunQueue(manager), manager, Scorer())
sweeps.start(SweepSpec(vary={{"learning_rate": [3e-4, 1e-3, 3e-3, 1e-2]}}, method="optuna",
                       trials=4, budget_minutes=30, seed=1))
print("started", flush=True)
time.sleep(600)
"""


def test_a_sweep_cut_off_by_a_kill_is_resumed_where_it_was(tmp_path):
    """kill -9 of the app mid-sweep (its second trial training), then a new app on the
    same folder: the sweep and its cut-off trial read "interrupted" (not "running"); the
    sweep resumes with the budget left then, its finished trial is not run again, the
    cut-off one is asked again first (Optuna's study read back from its journal), and the
    sweep ends with its planned trials."""
    import json
    import signal
    runs = tmp_path / "runs"
    app = subprocess.Popen([sys.executable, "-c", KILLED_APP.format(root=str(ROOT),
                                                                    runs=str(runs))])
    try:
        def second_running():
            files = list((runs / "sweeps").glob("sweep-*.json"))
            data = json.loads(files[0].read_text()) if files else {"trials": []}
            return len(data["trials"]) == 2 and data["trials"][1]["state"] == "running" \
                and data
        saved = wait_for(second_running, timeout=HANG)
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait()
    first, cut = (t["params"]["learning_rate"] for t in saved["trials"])
    trainer = Losses(steps=3)
    manager = RunManager(runs, trainer=trainer)
    found = Sweeps(RunQueue(manager), manager, Scorer())
    try:
        sweep = found.get(saved["id"])
        snap = sweep.snapshot()
        assert snap["state"] == "interrupted"
        assert [t["state"] for t in snap["trials"]] == ["done", "interrupted"]
        assert manager.get(snap["trials"][1]["run_id"]).state == "failed"  # the queue's word
        sweep = found.resume(saved["id"])
        assert found.wait(sweep, HANG)
        snap = sweep.snapshot()
        assert snap["state"] == "done", snap["error"]
        assert trainer.order[0] == cut and first not in trainer.order  # none run twice
        done = [t for t in snap["trials"] if t["state"] == "done"]
        assert len(done) == 4 and len(snap["trials"]) == 5  # the cut-off row stays, said so
        assert (runs / "sweeps" / f"{saved['id']}.optuna").exists()
        import optuna
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend
        study = optuna.load_study(study_name=saved["id"], storage=JournalStorage(
            JournalFileBackend(str(runs / "sweeps" / f"{saved['id']}.optuna"))))
        tried = {t.params["learning_rate"] for t in study.trials if t.state.name == "COMPLETE"}
        assert len(tried) == 4 and [t.state.name for t in study.trials].count("FAIL") == 1
    finally:
        found.close()
        wait_for(lambda: not manager.busy())
        manager.close()
