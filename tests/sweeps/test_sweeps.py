"""Sweeps through the run queue (sft_ui/sweeps/), on a stand-in trainer whose eval losses
follow its learning rate: trials ranked by held-out loss, a failed trial that does not stop
the sweep, a time budget for the whole sweep, Optuna's pruner, Stop, and each person's own
sweeps."""
from __future__ import annotations

import threading

import pytest

from sft_ui.runs import RunManager
from sft_ui.runs.run_queue import RunQueue
from sft_ui.sweeps import Scorer, SweepError, Sweeps, SweepSpec
from tests.conftest import HANG, wait_for


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
