"""A run's time left after a resume counts only the steps since the restart; Stop asked
while a step is sampled, logged, accumulated or from another thread ends at that step."""
import threading
import time
from types import SimpleNamespace

import pytest

from sft_ui.config import RunConfig
from sft_ui.runs import Run, RunManager, create_run
from sft_ui.runs import run as run_module
from tests.conftest import wait_for


def _finished(manager, run_id):
    snap = manager.get(run_id).snapshot()
    return snap if snap["state"] in ("done", "stopped", "failed") else None


def _stop_from_another_thread(run: Run) -> None:
    """Request a stop as the page does, from a thread of its own, and wait until it is in."""
    asker = threading.Thread(target=run.request_stop)
    asker.start()
    asker.join()


# ---- the ETA counts only the steps of this (re)start --------------------------------
class _Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_eta_counts_only_steps_since_the_restart_and_not_the_time_before_them(
        tmp_path, monkeypatch):
    clock = _Clock(1000.0)
    monkeypatch.setattr(run_module, "time", SimpleNamespace(time=clock,
                                                            strftime=time.strftime))
    run = create_run(tmp_path, RunConfig(max_steps=30))
    run.set_state("running")
    # A fresh run: 30 s of loading and answers before training, then 2 s a step.
    run.progress(0, 30)  # on_train_begin
    assert run.eta_seconds() is None
    clock.now += 30 + 2
    run.progress(1, 30)
    assert run.eta_seconds() is None  # one step end: no pace yet
    for step in range(2, 6):
        clock.now += 2
        run.progress(step, 30)
    assert run.eta_seconds() == pytest.approx(25 * 2)
    clock.now += 1  # half-way through step 6
    assert run.eta_seconds() == pytest.approx(25 * 2 - 1)

    # Stopped at 15, resumed: the step starts at the checkpoint's, the clock anew.
    run.prepare_resume(15)
    run.set_state("running")
    clock.now += 600
    run.progress(15, 30)  # on_train_begin after the resume
    clock.now += 12  # the first step after a resume: RNG, data skipping, warm-up
    run.progress(16, 30)
    for step in range(17, 21):
        clock.now += 3
        run.progress(step, 30)
    # 3 s a step, 10 steps left; the old formula said (12 + 12) / 20 * 10 = 12 s.
    assert run.eta_seconds() == pytest.approx(10 * 3)
    run.set_state("stopped")
    assert run.eta_seconds() is None


def test_eta_after_a_real_resume_is_near_the_time_left(tmp_path, tiny_cfg, monkeypatch):
    cfg = {**tiny_cfg, "max_steps": 30, "sample_steps": 0}
    manager = RunManager(tmp_path)
    monkeypatch.setattr(Run, "stop_requested", lambda self: self.step >= 15)
    run_id = manager.start(cfg)
    stopped = wait_for(lambda: _finished(manager, run_id))
    assert stopped["state"] == "stopped" and stopped["step"] == 15, stopped["error"]
    monkeypatch.undo()

    # Steps of at least 0.2 s after the resume: the tiny model's own step time, on a
    # shared machine, varies more than an ETA can foresee.
    seen = {}
    progress = Run.progress

    def record(self, step, max_steps):
        if step > 15:
            time.sleep(0.2)
        progress(self, step, max_steps)
        seen[step] = (time.time(), self.eta_seconds())
    monkeypatch.setattr(Run, "progress", record)
    manager.resume(run_id)
    resumed = wait_for(lambda: _finished(manager, run_id))
    assert resumed["state"] == "done" and resumed["step"] == 30, resumed["error"]
    at, eta = seen[20]
    left = seen[30][0] - at
    assert eta is not None and abs(eta - left) <= 0.5 * left, (eta, left)


# ---- Stop ends the run within one optimizer step ------------------------------------
def test_stop_asked_while_a_step_is_sampled_ends_at_that_step(tmp_path, tiny_cfg,
                                                                monkeypatch):
    """The answers of step 4 are generated after the step's stop check: a stop asked
    then must not train step 5."""
    add_samples = Run.add_samples

    def ask_at_step_4(self, rows):
        add_samples(self, rows)
        if rows and rows[0]["step"] == 4:
            _stop_from_another_thread(self)
    monkeypatch.setattr(Run, "add_samples", ask_at_step_4)
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "max_steps": 50, "sample_steps": 1})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "stopped" and snap["step"] == 4, (snap["step"], snap["error"])
    assert (tmp_path / run_id / "checkpoints" / "checkpoint-4" / "optimizer.pt").exists()


def test_stop_asked_while_a_step_is_logged_ends_at_that_step(tmp_path, tiny_cfg,
                                                               monkeypatch):
    add_metrics = Run.add_metrics

    def ask_at_step_3(self, record):
        add_metrics(self, record)
        if record.get("step") == 3 and "loss" in record:
            _stop_from_another_thread(self)
    monkeypatch.setattr(Run, "add_metrics", ask_at_step_3)
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "max_steps": 50, "sample_steps": 0})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "stopped" and snap["step"] == 3, (snap["step"], snap["error"])
    saved = [d.name for d in (tmp_path / run_id / "checkpoints").glob("checkpoint-*")]
    assert saved == ["checkpoint-3"]


def test_stop_asked_from_another_thread_ends_within_one_step(tmp_path, tiny_cfg,
                                                             monkeypatch):
    """Asked when step 5 is reported (not waited for): the run ends at 5 or 6."""
    progress = Run.progress

    def ask_at_step_5(self, step, max_steps):
        progress(self, step, max_steps)
        if step == 5:
            threading.Thread(target=self.request_stop).start()
    monkeypatch.setattr(Run, "progress", ask_at_step_5)
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "max_steps": 50, "sample_steps": 2})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "stopped" and 5 <= snap["step"] <= 6, snap
    assert f"Stopped at step {snap['step']}" in snap["message"]


def test_stop_asked_during_an_accumulated_step_ends_at_its_end(tmp_path, tiny_cfg,
                                                               monkeypatch):
    """With gradient accumulation the stop asked after the first micro-batch of step 3
    ends the run when step 3's optimizer step is done: not half-way, not a step later."""
    from sft_ui.train.callbacks import StudioCallback

    def ask_in_step_3(self, args, state, control, **kwargs):
        if state.global_step == 2:  # step 3 is under way
            _stop_from_another_thread(self.sink)
    monkeypatch.setattr(StudioCallback, "on_substep_end", ask_in_step_3, raising=False)
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "max_steps": 50, "sample_steps": 0,
                            "gradient_accumulation_steps": 2})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "stopped" and snap["step"] == 3, (snap["step"], snap["error"])
    assert (tmp_path / run_id / "checkpoints" / "checkpoint-3").is_dir()
