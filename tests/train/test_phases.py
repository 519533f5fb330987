"""Waits that explain themselves: a run says what it does (loading, a round of sample
answers, training, saving: its phase), its ETA counts the sample rounds and the save
still to come, and the plan line under Start shows the run's own time while it trains."""
import io
import time
import uuid
from types import SimpleNamespace

import pytest

from sft_ui import i18n
from sft_ui.config import RunConfig
from sft_ui.runs import Run, RunManager, create_run
from sft_ui.runs import run as run_module
from sft_ui.runs.phases import phase_message
from sft_ui.train.events import EventSink, deliver, read_event
from tests.conftest import wait_for
from tests.i18n.test_i18n import _in_japanese, english_left


class _Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def _clocked(tmp_path, monkeypatch, **config) -> tuple[Run, _Clock]:
    clock = _Clock(1000.0)
    monkeypatch.setattr(run_module, "time", SimpleNamespace(time=clock,
                                                            strftime=time.strftime))
    run = create_run(tmp_path, RunConfig(**config))
    run.set_state("running", "Loading the model and the data...")
    return run, clock


def _finished(manager, run_id):
    snap = manager.get(run_id).snapshot()
    return snap if snap["state"] in ("done", "stopped", "failed") else None


# ---- the ETA: steps, then the sample rounds and the save left ---------------------------
def test_the_eta_counts_the_sample_rounds_and_the_save_left(tmp_path, monkeypatch):
    """30 steps of 2 s, a round of answers every 10 steps (at 10, 20 and the end, 30) and
    5 s to save. Before this the ETA was the steps alone: 0 s while the final answers were
    written and the model saved."""
    run, clock = _clocked(tmp_path, monkeypatch, max_steps=30, sample_steps=10)
    run.phase("loading")
    assert run.message == "Loading the model and the data..."
    run.progress(0, 30)  # on_train_begin
    clock.now += 40  # the answers before training, measured: the first round's time
    run.phase("samples", step=0, round=1, rounds=4)
    assert run.message == "Writing sample answers before training (round 1 of 4)..."
    clock.now += 9
    run.phase("training", sample_steps=10, round_seconds=9.0, save_seconds=5.0, processes=1)
    assert run.message == "Training..."
    for step in range(1, 6):
        clock.now += 2
        run.progress(step, 30)
    # 25 steps of 2 s, three rounds of 9 s to come (10, 20, 30), the save
    assert run.eta_seconds() == pytest.approx(25 * 2 + 3 * 9 + 5)

    for step in range(6, 11):
        clock.now += 2
        run.progress(step, 30)
    assert run.eta_seconds() == pytest.approx(20 * 2 + 3 * 9 + 5)  # the round at 10 too
    run.phase("samples", step=10, round=2, rounds=4)
    assert run.message == "Writing sample answers (round 2 of 4)..."
    clock.now += 4  # 4 s into a round of 9
    assert run.eta_seconds() == pytest.approx(20 * 2 + 5 + 2 * 9 + 5)
    clock.now += 8  # this one takes 12 s
    run.phase("training", sample_steps=10, round_seconds=12.0, save_seconds=5.0, processes=1)
    clock.now += 2
    run.progress(11, 30)
    # A step is still 2 s (the round is not a step's time); the rounds now take 12 s.
    assert run.eta_seconds() == pytest.approx(19 * 2 + 2 * 12 + 5)

    for step in range(12, 31):
        clock.now += 2
        run.progress(step, 30)
        if step == 20:
            run.phase("samples", step=20, round=3, rounds=4)
            clock.now += 12
            run.phase("training", sample_steps=10, round_seconds=12.0, save_seconds=5.0)
    assert run.eta_seconds() == pytest.approx(12 + 5)  # the last step: the final round, the save
    run.phase("samples", step=30, round=4, rounds=4)
    assert run.message == "Writing the final sample answers (round 4 of 4)..."
    clock.now += 10
    assert run.eta_seconds() == pytest.approx(2 + 5)
    clock.now += 70  # a round far slower than the last: still not 0 s
    assert run.eta_seconds() == pytest.approx(5)
    run.phase("saving")
    assert run.message == "Saving the model..."
    clock.now += 3
    assert run.eta_seconds() == pytest.approx(2)
    clock.now += 30
    assert run.eta_seconds() == pytest.approx(1)  # saving: never 0 s
    run.set_state("done", "Finished 30 steps.")
    assert run.eta_seconds() is None


def test_a_round_of_unknown_time_counts_as_a_step_and_stop_keeps_its_message(
        tmp_path, monkeypatch):
    """No round measured or remembered yet (the answers before training were kept from an
    earlier run): each round to come counts a step's time. A run asked to stop keeps
    saying so; a job's run keeps the job's own message."""
    run, clock = _clocked(tmp_path, monkeypatch, max_steps=8, sample_steps=4)
    run.progress(0, 8)
    run.phase("training", sample_steps=4, round_seconds=None, save_seconds=5.0, processes=2)
    assert run.message == "Training on 2 processes..."
    for step in range(1, 4):
        clock.now += 3
        run.progress(step, 8)
    assert run.eta_seconds() == pytest.approx(5 * 3 + 2 * 3 + 5)  # rounds at 4 and 8
    run.request_stop()
    run.phase("saving")
    assert run.message == "Stopping after the current step..."
    job = create_run(tmp_path, RunConfig(run_on="hf_jobs"))
    job.set_state("running", "Training on Hugging Face Jobs (cpu-basic), job 123...")
    job.phase("samples", step=0, round=1, rounds=3)
    assert job.message.startswith("Training on Hugging Face Jobs")


def test_the_phases_travel_as_events_and_read_in_japanese(tmp_path, monkeypatch):
    """A run trained in another process (the warm worker, a job): its phases arrive as
    events, as its steps do."""
    run, clock = _clocked(tmp_path, monkeypatch, max_steps=4, sample_steps=2)
    out = io.StringIO()
    sink = EventSink(tmp_path, out)
    sink.phase("loading")
    sink.progress(0, 4)
    sink.phase("samples", step=0, round=1, rounds=3)
    sink.phase("training", sample_steps=2, round_seconds=6.0, save_seconds=5.0, processes=1)
    seen = []
    for line in out.getvalue().splitlines():
        deliver(read_event(line), run)
        seen.append(run.message)
    assert seen == ["Loading the model and the data...", "Loading the model and the data...",
                    "Writing sample answers before training (round 1 of 3)...", "Training..."]
    clock.now += 1
    run.progress(1, 4)
    clock.now += 2
    run.progress(2, 4)
    assert run.eta_seconds() == pytest.approx(2 * 2 + 2 * 6 + 5)  # rounds at 2 and 4
    for message in seen + [phase_message("samples", {"step": 2, "round": 2, "rounds": 3}),
                           phase_message("samples", {"step": 4, "round": 3, "rounds": 3}),
                           phase_message("saving", {})]:
        japanese = i18n.translate(message, "ja")
        assert japanese != message and not english_left(japanese), japanese


# ---- a real run says what it does ------------------------------------------------------
def test_a_real_run_says_what_it_does(tmp_path, tiny_cfg, monkeypatch):
    """The tiny model, 4 steps, answers every 2 (before training, at 2, at the end): each
    phase is the run's status message in turn, and from the last step on the ETA counts
    the final answers and the save instead of 0 s."""
    said, etas = [], {}
    phase, progress = Run.phase, Run.progress

    def record_phase(self, name, **info):
        phase(self, name, **info)
        if not said or said[-1] != self.message:  # (the engine says "saving" after the
            said.append(self.message)             # final round said it)
        etas[name, info.get("step")] = self.eta_seconds()

    def record_progress(self, step, max_steps):
        progress(self, step, max_steps)
        etas["step", step] = self.eta_seconds()
    monkeypatch.setattr(Run, "phase", record_phase)
    monkeypatch.setattr(Run, "progress", record_progress)
    manager = RunManager(tmp_path)
    # Prompts of its own: the answers before training are written, not kept from a run.
    prompts = [f"Say hello to {uuid.uuid4().hex[:6]}."]
    run_id = manager.start({**tiny_cfg, "max_steps": 4, "sample_steps": 2,
                            "sample_prompts": prompts})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    assert said == ["Loading the model and the data...",
                    "Writing sample answers before training (round 1 of 3)...",
                    "Training...",
                    "Writing sample answers (round 2 of 3)...",
                    "Training...",
                    "Writing the final sample answers (round 3 of 3)...",
                    "Saving the model..."], said
    assert sorted({s["step"] for s in snap["samples"]}) == [0, 2, 4]
    # At the last step the final round and the save are still to come (it said 0 s).
    assert etas["step", 4] is not None and etas["step", 4] > 0, etas
    for key in (("samples", 4), ("saving", None)):
        assert etas[key] is not None and etas[key] >= 1, (key, etas)
    assert snap["message"].startswith("Finished 4 steps")


# ---- the plan line while a run trains --------------------------------------------------
PLAN = {"budget_minutes": 0, "for_target": False, "budget_needs_speed": False,
        "budget_fits_in_run": False, "steps": 30, "effective_batch": 8,
        "memory": {"total": 3 << 30}, "available_bytes": 20 << 30, "fit": "fits",
        "seconds_total": 180.0}


def test_the_plan_line_shows_the_runs_own_time_while_it_trains(tmp_path, monkeypatch):
    """The plan said about 3 min; the run, 2 min in, has 8 min left at its pace: the plan
    line under Start says both while the run trains (it kept "about 3 min" beside a live
    11 minutes), and the plan's alone again once the run ended. Through the page's own
    tick, as the browser calls it."""
    from sft_ui.ui import build_app
    from sft_ui.ui.plan_text import plan_line
    manager = RunManager(tmp_path / "runs")
    app = build_app(manager)
    tick = next(f for f in app.fns.values() if f.api_name == "ui_tick")
    plain = plan_line(PLAN)
    assert plain.endswith("**fits** · about 3 min"), plain

    run, clock = _clocked(tmp_path / "runs", monkeypatch, max_steps=30, sample_steps=0)
    run.created = clock.now
    manager._runs[run.id], manager._active = run, run
    line = tick.fn(run.id, None, None, PLAN)[-1]
    assert line.endswith("the plan said about 3 min; the run's own estimate comes after its "
                         "first steps"), line
    run.progress(0, 30)
    run.phase("training", sample_steps=0, round_seconds=None, save_seconds=0.0)
    clock.now += 96
    run.progress(1, 30)
    for step in range(2, 7):
        clock.now += 16
        run.progress(step, 30)
    seen = (None, None, None, line)
    outputs = tick.fn(run.id, seen, None, PLAN)
    line = outputs[-1]
    assert line.endswith("the plan said about 3 min; at the run's pace about 9 min in all, "
                         "about 6 min left"), line
    assert line.startswith(plain[:-len(" · about 3 min")])  # the rest of the plan as it was
    # The same line again: not sent again (the tick sends only what changed).
    assert not isinstance(tick.fn(run.id, outputs[2], None, PLAN)[-1], str)
    # In Japanese, both figures read as Japanese.
    japanese = _in_japanese(lambda: tick.fn(run.id, None, None, PLAN)[-1])
    assert japanese.endswith("プランでは約 3 分、実行のペースでは全体で約 9 分（残り約 6 分）"), \
        japanese
    run.set_state("done", "Finished 30 steps.")
    assert tick.fn(run.id, outputs[2], None, PLAN)[-1] == plain
