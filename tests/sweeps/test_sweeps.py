"""Sweeps (sft_ui/sweeps/): the settings a sweep varies, read from the page's box and from
YAML; grid, random and Optuna's search; trials that are ordinary runs through the run
queue, judged on held-out data (never the training loss), ranked, the best one's
settings kept; a failed trial that does not stop the sweep; a time budget for the whole
sweep; Optuna's pruner stopping a trial clearly worse than the others; the API and the
command line."""
from __future__ import annotations

import subprocess
import sys
import threading

import pytest
import yaml

from sft_ui.access import Access
from sft_ui.actions import Actions
from sft_ui.config import ConfigError
from sft_ui.runs import RunManager
from sft_ui.runs.run_queue import RunQueue
from sft_ui.sweeps import Scorer, SweepError, Sweeps, SweepSpec, parse_vary, vary_text
from sft_ui.sweeps.search import search_for
from sft_ui.sweeps.space import Range
from tests.conftest import HANG, ROOT, wait_for


class Losses:
    """A trainer whose eval losses follow its learning rate (best at 3e-4), written at
    every step as a real run's are; a learning rate of 0.5 fails. A run for which
    `hold(learning rate, runs before it)` is true stays at its first step until it is
    stopped or `release` is set (pruning and Stop are tried on it)."""

    def __init__(self, steps: int = 4, hold=lambda rate, before: False):
        self.steps, self.order, self.hold = steps, [], hold
        self.release = threading.Event()

    def __call__(self, cfg, run_dir, sink, resume_from=None):
        held = self.hold(cfg.learning_rate, len(self.order))
        self.order.append(cfg.learning_rate)
        if cfg.learning_rate == 0.5:
            raise RuntimeError("this trial diverged")
        worse = abs(cfg.learning_rate - 3e-4) * 1000
        for step in range(1, self.steps + 1):
            sink.progress(step, self.steps)
            sink.add_metrics({"step": step, "loss": 9.0 - step,  # training: alike for all
                              "eval_loss": 2.0 + worse + 1.0 / step})
            if held and step == 1:
                assert wait_for(lambda: self.release.is_set() or sink.stop_requested(),
                                interval=0.05)
            if sink.stop_requested():
                break
        return None


@pytest.fixture
def sweeps(tmp_path):
    made = []

    def make(trainer, scorer=None):
        manager = RunManager(tmp_path / "runs", trainer=trainer)
        queue = RunQueue(manager)
        made.append((Sweeps(queue, manager, scorer or Scorer()), manager, trainer))
        return made[-1]
    yield make
    for found, manager, trainer in made:
        trainer.release.set()
        found.close()
        wait_for(lambda: not manager.busy())
        manager.close()


def test_the_box_reads_lists_and_ranges_and_says_what_is_wrong():
    vary = parse_vary("learning_rate: 1e-4, 3e-4\n# a note\nlora_r: 8 .. 32\n"
                      "warmup_steps: 0, 10  # none, then some")
    assert vary["learning_rate"] == [1e-4, 3e-4] and vary["warmup_steps"] == [0, 10]
    assert vary["lora_r"] == Range(8, 32, False, True)
    assert parse_vary(vary_text(vary)) == vary
    log = parse_vary("learning_rate: 1e-5 .. 1e-3 log")["learning_rate"]
    assert log.log and log.grid() == [1e-5, 4.64e-5, 0.000215, 0.001]
    with pytest.raises(ConfigError) as e:
        parse_vary("learning_rate 1e-4\nseed: 1, 2\nlora_r: eight")
    said = " ".join(e.value.messages)
    assert "Line 1" in said and "cannot vary 'seed'" in said
    with pytest.raises(ConfigError, match="beta does not apply to a sft run"):
        SweepSpec.from_dict({"vary": {"beta": [0.1, 0.2]}})
    with pytest.raises(ConfigError, match="A grpo run has no eval loss"):
        SweepSpec.from_dict({"base": {"stage": "grpo"}, "vary": {"temperature": [0.7, 1]},
                             "score": "eval_loss"})


def test_grid_random_and_optuna_ask_for_the_settings_to_try():
    spec = SweepSpec(vary={"learning_rate": [1e-4, 3e-4], "lora_r": [8, 16, 32]})
    grid = search_for(spec)
    asked = [grid.ask() for _ in range(7)]
    assert grid.size() == 6 and asked[-1] is None
    assert {(a["learning_rate"], a["lora_r"]) for a in asked[:6]} == \
        {(lr, r) for lr in (1e-4, 3e-4) for r in (8, 16, 32)}
    drawn = search_for(SweepSpec(vary=spec.vary, method="random"))
    got = [tuple(drawn.ask().values()) for _ in range(6)]
    assert len(set(got)) == 6 and drawn.ask() is None  # each combination once
    ranged = SweepSpec(vary={"learning_rate": {"low": 1e-5, "high": 1e-3, "log": True}},
                       method="optuna")
    model = search_for(ranged)
    for _ in range(4):
        value = model.ask()["learning_rate"]
        assert 1e-5 <= value <= 1e-3
        model.tell(abs(value - 3e-4))
    assert len(model.study.trials) == 4


def test_a_sweep_ranks_its_trials_by_eval_loss_and_a_failed_one_does_not_stop_it(sweeps):
    found, manager, trainer = sweeps(Losses())
    spec = SweepSpec(vary={"learning_rate": [1e-3, 0.5, 3e-4]}, budget_minutes=30)
    sweep = found.start(spec)
    assert found.wait(sweep, HANG)
    snap = sweep.snapshot()
    assert snap["state"] == "done" and trainer.order == [1e-3, 0.5, 3e-4]
    ranked = [(t["params"]["learning_rate"], t["state"]) for t in snap["trials"]]
    assert ranked == [(3e-4, "done"), (1e-3, "done"), (0.5, "failed")]
    assert "this trial diverged" in snap["trials"][-1]["error"]
    # judged on the held-out loss at the run's end (4 steps), not the training loss
    assert snap["best"]["score"] == pytest.approx(2.0 + 1 / 4)
    best = manager.get(snap["best"]["run_id"])
    assert best.config.learning_rate == 3e-4 and best.config.eval_fraction == 0.1
    # each trial is a run of the queue, with a share of the sweep's time as its budget
    assert all(0 < manager.get(t["run_id"]).config.time_budget_minutes <= 30
               for t in snap["trials"])
    assert [r["run_id"] for r in found.queue.rows()] and snap["planned"] == 3
    # the first trial to end set the length of the rest: scores of runs of one length
    assert snap["length"] == {"train_by": "steps", "max_steps": 4}
    assert manager.get(snap["best"]["run_id"]).config.max_steps == 4
    # each trial's run is named for the sweep and the trial, the best marked
    short = sweep.id.rsplit("-", 1)[-1]
    assert [manager.get(t["run_id"]).name for t in snap["trials"]] == \
        [f"sweep-{short} #3 ★", f"sweep-{short} #1", f"sweep-{short} #2"]
    # kept on disk: another server (a restart) reads the same ranked table
    again = Sweeps(RunQueue(manager, listen=False), manager, Scorer()).get(sweep.id)
    assert [t["run_id"] for t in again.snapshot()["trials"]] == \
        [t["run_id"] for t in snap["trials"]]


def test_the_time_budget_decides_how_many_trials_fit(sweeps, monkeypatch):
    from sft_ui.sweeps import sweep as module
    found, manager, _ = sweeps(Losses())
    planned = {}
    monkeypatch.setattr(module, "estimate", lambda cfg: planned.get("each"))
    ranged = {"learning_rate": {"low": 1e-5, "high": 1e-3, "log": True}}
    planned["each"] = 200.0  # the planner's estimate of one trial: 3 fit in 10 minutes
    ahead = module.Sweep(SweepSpec(vary=ranged, method="random", budget_minutes=10), "", ".")
    assert ahead.plan_trials(None) == 3 and ahead.estimate_seconds == 600
    planned["each"] = None  # no estimate: DEFAULT_TRIAL_SECONDS a trial at first
    ahead = module.Sweep(SweepSpec(vary=ranged, method="random", budget_minutes=10), "", ".")
    assert ahead.plan_trials(None) == 600 // module.DEFAULT_TRIAL_SECONDS
    # then the trials' own times: these take a fraction of a second, so the sweep runs
    # on to its limit of trials (a grid: its size)
    sweep = found.start(SweepSpec(vary={"learning_rate": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2]},
                                  budget_minutes=10))
    assert found.wait(sweep, HANG)
    assert len(sweep.snapshot()["trials"]) == 5 and sweep.snapshot()["planned"] == 5


def test_optuna_prunes_a_trial_clearly_worse_than_the_others(sweeps):
    # a trial of 0.02 after two others: at its first step, far worse than theirs there
    found, manager, trainer = sweeps(Losses(hold=lambda rate, before: rate == 0.02 and
                                            before >= 2))
    spec = SweepSpec(vary={"learning_rate": [3e-4, 5e-4, 4e-4, 6e-4, 2e-4, 0.02]},
                     method="optuna", trials=6, budget_minutes=30, seed=0)
    sweep = found.start(spec)
    assert found.wait(sweep, HANG)  # (a trial held and never pruned would hang here)
    trials = sweep.snapshot()["trials"]
    pruned = [t for t in trials if t["pruned"]]
    assert pruned and all(t["params"]["learning_rate"] == 0.02 for t in pruned)
    assert all(manager.get(t["run_id"]).state == "stopped" for t in pruned)
    assert sweep.snapshot()["best"]["params"]["learning_rate"] == 3e-4
    assert len(trials) == 6 and trials[-1] in pruned  # ranked last
    # a pruned trial has no score beside whole runs' scores: its eval loss apart
    assert all(t["score"] is None and t["pruned_loss"] > 2 for t in pruned)


def test_a_sweep_that_varies_epochs_trains_each_trial_its_epochs(sweeps):
    """Epochs varied reach the trainer (not the default 30 steps), whatever the base says
    of the length; so do steps varied."""
    found, manager, trainer = sweeps(Losses())
    sweep = found.start(SweepSpec(vary={"num_train_epochs": [2, 5]}, budget_minutes=30))
    assert found.wait(sweep, HANG)
    configs = [manager.get(t["run_id"]).config for t in sweep.snapshot()["trials"]]
    assert sorted((c.train_by, c.num_train_epochs) for c in configs) == \
        [("epochs", 2.0), ("epochs", 5.0)]
    assert sweep.snapshot()["length"] is None  # (no length fixed over the varied one)
    sweep = found.start(SweepSpec(base={"train_by": "epochs", "num_train_epochs": 3},
                                  vary={"max_steps": [3, 7]}, budget_minutes=30))
    assert found.wait(sweep, HANG)
    configs = [manager.get(t["run_id"]).config for t in sweep.snapshot()["trials"]]
    assert sorted((c.train_by, c.max_steps) for c in configs) == [("steps", 3), ("steps", 7)]


def test_stop_ends_the_sweep_and_its_running_trial(sweeps):
    found, manager, trainer = sweeps(Losses(hold=lambda rate, before: True))
    sweep = found.start(SweepSpec(vary={"learning_rate": [1e-4, 3e-4]}))
    wait_for(lambda: sweep.trials and sweep.trials[0]["run_id"])
    found.stop(sweep.id)  # (the held trial goes on only when it is stopped)
    assert found.wait(sweep, HANG)
    snap = sweep.snapshot()
    assert snap["state"] == "stopped" and len(snap["trials"]) == 1
    assert manager.get(snap["trials"][0]["run_id"]).state == "stopped"


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


def test_each_person_sees_and_stops_only_their_own_sweeps(sweeps):
    found, manager, trainer = sweeps(Losses())
    sweep = found.start(SweepSpec(vary={"learning_rate": [1e-4]}), owner="ana")
    assert found.wait(sweep, HANG)
    assert found.ids("ana") == [sweep.id] and found.ids("ben") == []
    with pytest.raises(SweepError, match="No sweep"):
        found.get(sweep.id, "ben")
    with pytest.raises(SweepError, match="No sweep"):
        found.stop(sweep.id, "ben")
    assert [r["owner"] for r in found.queue.rows()] == ["ana"]  # its trial is ana's run


def test_a_judged_score_and_a_small_budget_run_the_trials_that_fit(sweeps):
    """The planning case of a sweep judged by an Evaluate score: its first plan reserves
    the score's estimate (60 s) for judging each trial; once trials have been judged, their
    own judging time counts, and no trial is planned that would leave the next one less
    than its least share. Before, 5 were planned here and 1 ran, with the time left."""
    from sft_ui.sweeps import sweep as module
    found, manager, _ = sweeps(Losses(), scorer=lambda spec, run: 0.5)
    spec = SweepSpec(vary={"learning_rate": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2]},
                     budget_minutes=2, score="exact_match")
    sweep = found.start(spec)
    assert found.wait(sweep, HANG)
    snap = sweep.snapshot()
    # these trials take a moment, not their share: the whole grid runs in the 2 minutes
    assert snap["state"] == "done" and len(snap["trials"]) == snap["planned"] == 5
    assert all(t["judge_seconds"] is not None for t in snap["trials"])
    shares = [manager.get(t["run_id"]).config.time_budget_minutes * 60
              for t in snap["trials"][1:]]
    assert all(s >= module.MIN_TRIAL_SECONDS for s in shares)


def test_the_plan_leaves_each_planned_trial_its_least_share(monkeypatch):
    """The issue's figures: a 15-minute sweep whose first trial took 76 s, judged by exact
    match: the plan is the trials that fit at that pace, each share at least the least."""
    from sft_ui.sweeps import sweep as module
    monkeypatch.setattr(module, "estimate", lambda cfg: None)
    ahead = module.Sweep(SweepSpec(vary={"learning_rate": {"low": 1e-4, "high": 3e-3,
                                                           "log": True}},
                                   method="optuna", budget_minutes=15,
                                   score="exact_match"), "", ".")
    ahead.deadline = module.time.time() + 824
    trial = module.new_trial(1, {"learning_rate": 1e-3})
    ahead.trials = [{**trial, "state": "done", "seconds": 76.0, "judge_seconds": 6.0}]
    planned = ahead.plan_trials(None)
    left = planned - 1
    assert left >= 9
    assert 824 / left - ahead.judge_seconds() >= module.MIN_TRIAL_SECONDS


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


def test_a_sweep_judged_by_exact_match_prunes_the_trials_whose_eval_loss_is_worse():
    """The pruner reads eval losses (lower is better) while the study maximizes exact
    match: a trial far worse in eval loss is pruned, one far better is not."""
    spec = SweepSpec(vary={"learning_rate": [1e-4, 2e-4, 3e-4, 4e-4]}, method="optuna",
                     score="exact_match", seed=0)
    search = search_for(spec)
    for number in (1, 2):
        search.ask(number)
        for step in (1, 2, 3):
            search.report(2.0, step, number)
        search.tell(50.0, number=number)
    search.ask(3)
    search.report(9.0, 2, 3)
    assert search.should_prune(3)
    search.ask(4)
    search.report(0.5, 2, 4)
    assert not search.should_prune(4)


def test_optunas_first_trial_is_the_quick_paths_own_choice(sweeps, tmp_path):
    """On a file of facts to recall the quick path chooses rank 32 at 2e-3 (plan/budget.py):
    a model-based sweep over the rate and the rank tries that first, for as long as the
    quick path would train it, so its best is never a model judged worse than the quick
    path's."""
    import json
    data = tmp_path / "facts.jsonl"
    data.write_text("".join(json.dumps({"prompt": f"What is the capital of Zor{i}?",
                                        "completion": f"Vel{i}ka"}) + "\n"
                            for i in range(60)))
    from sft_ui.sweeps.score import score_seconds
    found, manager, trainer = sweeps(Losses(steps=2))
    sweep = found.start(SweepSpec(base={"dataset_name": str(data)}, method="optuna",
                                  trials=4, budget_minutes=12, seed=0,
                                  vary={"learning_rate": {"low": 1e-4, "high": 3e-3,
                                                          "log": True},
                                        "lora_r": [8, 16, 32],
                                        "num_train_epochs": [3, 6, 10]}))
    assert found.wait(sweep, HANG)
    first, *others = sorted(sweep.snapshot()["trials"], key=lambda t: t["number"])
    # its length too is the quick path's (fitted to its budget), not epochs the search drew
    assert first["params"] == {"learning_rate": 2e-3, "lora_r": 32}
    assert trainer.order[0] == 2e-3
    assert all(manager.get(t["run_id"]).config.num_train_epochs ==
               t["params"]["num_train_epochs"] and
               manager.get(t["run_id"]).config.train_by == "epochs" for t in others)
    # it trains as long as the quick path would (5 minutes, its judging after them), where an
    # even share of the 12 minutes would have been 3
    budget = manager.get(first["run_id"]).config.time_budget_minutes
    assert budget == pytest.approx(5 - score_seconds("eval_loss") / 60, abs=0.02)


def test_a_trial_that_fits_its_least_share_is_planned_though_trials_took_longer(monkeypatch):
    """200 s left where trials took 220 s each: a trial's time budget is its share, so one
    more runs (in 200 s); with 40 s left, none."""
    from sft_ui.sweeps import sweep as module
    monkeypatch.setattr(module, "estimate", lambda cfg: None)
    ahead = module.Sweep(SweepSpec(vary={"lora_r": [8, 16, 32]}, method="optuna",
                                   budget_minutes=15), "", ".")
    trial = module.new_trial(1, {"lora_r": 8})
    ahead.trials = [{**trial, "state": "done", "seconds": 220.0}]
    ahead.deadline = module.time.time() + 200
    assert ahead.plan_trials(None) == 2
    ahead.deadline = module.time.time() + 40
    assert ahead.plan_trials(None) == 1


def test_the_quick_paths_trial_is_kept_over_one_better_only_by_the_noise_of_its_score():
    """Judged by exact match on 20 rows, the quick path's own trial at 90% is kept over one
    at 95% (one row: a standard error of 90% on 20 rows is 6.7 points; measured on facts,
    the 95% trial answered 17 of 20 test rows where the quick path's answered 19); one at
    100% is ranked first. The sweep says which it kept and why."""
    from sft_ui.sweeps import sweep as module
    from sft_ui.sweeps.score import kept_quick_said, noise
    assert noise("exact_match", 90.0, 20) == pytest.approx(6.708, abs=1e-3)
    assert noise("rougeL", 90.0, 20) == 0.0 and noise("exact_match", 90.0, None) == 0.0
    sweep = module.Sweep(SweepSpec(vary={"lora_r": [8, 16, 32]}, method="optuna",
                                   budget_minutes=15, score="exact_match"), "", ".")

    def trial(number, score, quick=False):
        return {**module.new_trial(number, {"lora_r": 8 * number}), "state": "done",
                "seconds": 60.0, "score": score, "rows": 20, "quick": quick}
    sweep.trials = [trial(1, 90.0, quick=True), trial(2, 95.0), trial(3, 80.0)]
    assert [t["number"] for t in sweep.ranked()] == [1, 2, 3]
    assert sweep.best()["number"] == 1
    kept = sweep.snapshot()["kept_quick"]
    assert (kept["number"], kept["over"], kept["rows"]) == (1, 2, 20)
    assert str(kept_quick_said(kept)) == ("Kept trial 1, the quick path's own choice (90): "
                                          "trial 2's 95 is within the noise of a score on "
                                          "20 rows (±6.7)")
    sweep.trials[1]["score"] = 100.0  # two rows more: beyond the noise
    assert sweep.best()["number"] == 2 and sweep.snapshot()["kept_quick"] is None
    # a score lower is better (eval loss): no noise known, the best is the lowest
    loss = module.Sweep(SweepSpec(vary={"lora_r": [8, 16]}, budget_minutes=15), "", ".")
    loss.trials = [trial(1, 0.9, quick=True), trial(2, 0.8)]
    assert loss.best()["number"] == 2
