"""A budgeted run: its first steps set the steps that fit (and its learning rate schedule
follows that length), it ends within its budget with its model (model load included, under
SFT and DPO, and from the command line), and its time left never passes the deadline."""
import json

import pytest

from sft_ui.config import RunConfig
from sft_ui.plan import budget, plateau, speed
from sft_ui.runs import RunManager
from tests.conftest import HANG, wait_for


def test_a_budgeted_run_sets_its_length_on_its_first_steps(tmp_path, tiny_cfg, monkeypatch):
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    manager = RunManager(tmp_path / "runs")
    # The length left to the budget, no speed known: the run's first steps set it.
    run_id = manager.start({**tiny_cfg, "max_steps": 30, "time_budget_minutes": 0.4,
                            "sample_steps": 0})
    run = wait_for(lambda: manager.get(run_id) if manager.get(run_id).state
                   in ("done", "failed") else None, timeout=HANG)
    assert run.state == "done", run.error
    took = run.finished - run.created
    print(f"\nbudget 24 s: the run took {took:.1f} s, {run.step} steps; chose {run.budget}")
    # Bounded by steps, not seconds: the run trained at most the steps its pace fits in
    # the budget (at most JUDGED_EPOCHS epochs of about 112 steps here: it holds rows out),
    # and held the deadline the app gave it; its settings, the page's sentence and its
    # log say so.
    fits = [r for r in run.budget if r.endswith("at the run's pace")]
    assert len(fits) == 1, run.budget
    chosen = run.config.max_steps
    assert run.config.train_by == "steps" and 1 <= chosen <= budget.JUDGED_EPOCHS * 112
    assert fits[0].startswith(f"{chosen} steps fit 0.4 min") and 1 <= run.step <= chosen
    # (or, after its held-out rows' plateau, the steps its rate came down over: fewer)
    assert run.max_steps == chosen or (plateau.plateau_step(run.metrics) and
                                       run.max_steps < chosen), (run.max_steps, run.budget)
    assert f"Time budget: {chosen} steps fit, at " in (run.dir / "train.log").read_text()
    assert run.deadline is not None and run.deadline <= run.created + 24 + 5
    assert run.budget and run.config.use_peft and run.config.completion_only_loss
    saved = RunConfig.from_yaml(run.dir / "config.yaml")
    assert saved.use_peft and saved.time_budget_minutes == 0.4  # the run folder says so
    assert saved.max_steps == chosen  # (a resume trains to the same step)
    assert speed.measured_speed(run.config) is not None  # measured for the plan too
    entry = json.loads((tmp_path / "speed.json").read_text())
    assert [e.get("from") for e in entry.values()] == ["run"]  # the run's own speed, after


def test_a_length_set_to_the_longest_is_said_as_set(tmp_path):
    """The first steps found the whole of the longest length fits (3 epochs of 124 steps,
    the steps the bar already counted): the run's settings still say the steps it set, as
    an event from the training process tells the app."""
    from sft_ui.runs.run import Run
    from sft_ui.train.events import deliver
    cfg = RunConfig(time_budget_minutes=1, train_by="epochs", num_train_epochs=3.0)
    run = Run("r", tmp_path, cfg)
    run.fit_steps, run.budget = True, ["the steps that fit 1 min, set on the run's first steps"]
    for event in ({"progress": [0, 372]}, {"progress": [2, 372]}, {"fitted": 372},
                  {"progress": [2, 372]}):
        deliver(event, run)
    saved = RunConfig.from_yaml(tmp_path / "config.yaml")
    assert (saved.train_by, saved.max_steps) == ("steps", 372)
    assert run.budget == ["372 steps fit 1 min at the run's pace"]
    assert not run.fit_steps and run.max_steps == 372


@pytest.mark.parametrize("stage", [{}, {"stage": "dpo", "dataset_name": "demo-preference"}],
                         ids=["sft", "dpo"])
def test_a_run_that_would_outlast_its_budget_is_stopped_in_time(tmp_path, tiny_cfg,
                                                               monkeypatch, stage):
    """The person set the length (many steps): the budget cannot shorten it beforehand,
    so the run ends when one more step would not end in time, and keeps its model; under
    a preference stage as under SFT."""
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "max_steps": 100_000, "time_budget_minutes": 0.25,
                            "sample_steps": 0, "use_peft": True, "learning_rate": 1e-4,
                            "eval_strategy": "no", **stage})  # (no held-out plateau)
    run = wait_for(lambda: manager.get(run_id) if manager.get(run_id).state
                   in ("done", "failed") else None, timeout=HANG)
    assert run.state == "done", run.error
    took = run.finished - run.created
    print(f"\nbudget 15 s: the run took {took:.1f} s and ended at step {run.step}")
    assert 1 <= run.step < 100_000  # the deadline ended it, not the length
    assert (run.dir / "model").is_dir()
    assert "Time budget: step" in (run.dir / "train.log").read_text()
    # The run says the budget cut it, with the steps it trained of those it had.
    assert run.message.startswith(f"Stopped at the time budget after {run.step} of "
                                  "100000 steps; the model is saved"), run.message


def test_a_budgeted_preference_run_chooses_its_steps_and_rate(tmp_path, tiny_cfg,
                                                             monkeypatch):
    """DPO with a time budget and nothing else: the run's first DPO steps (with their
    reference passes) set the steps that fit, nothing is measured before it; the learning
    rate is DPO's."""
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "stage": "dpo", "dataset_name": "demo-preference",
                            "max_steps": 30, "time_budget_minutes": 0.4, "sample_steps": 0,
                            "learning_rate": RunConfig().learning_rate})
    run = wait_for(lambda: manager.get(run_id) if manager.get(run_id).state
                   in ("done", "failed") else None, timeout=HANG)
    assert run.state == "done", run.error
    # its length set on its pace; its held-out rows then said how it ended and what it kept
    assert run.budget[-2] == f"{run.config.max_steps} steps fit 0.4 min at the run's pace", \
        run.budget
    assert run.budget[-1].endswith(f"of {run.step}, best on the held-out rows, is kept"), \
        run.budget
    assert run.config.use_peft and run.config.learning_rate == 5e-5, run.budget
    assert run.deadline is not None and run.deadline <= run.created + 24 + 5
    assert not (tmp_path / "speed.json").exists()  # no steps spent measuring beforehand


def test_the_eta_never_passes_the_deadline(tmp_path, monkeypatch):
    """Steps of 10 s with 100 left would take 1000 s; the budget ends the run in 30 s."""
    from types import SimpleNamespace

    from sft_ui.runs import run as run_module
    run = run_module.create_run(tmp_path, RunConfig(max_steps=102))
    run.set_state("running", "Training...")
    clock = SimpleNamespace(time=lambda: 1000.0)
    monkeypatch.setattr(run_module, "time", clock)
    for step, at in ((0, 975.0), (1, 980.0), (2, 990.0)):
        clock.time = lambda at=at: at
        run.progress(step, 102)
    clock.time = lambda: 1000.0
    assert run.eta_seconds() > 900
    run.deadline = 1030.0
    assert run.eta_seconds() == 30.0


def test_the_command_line_resolves_the_budget_as_the_app_does(tmp_path, tiny_cfg, monkeypatch,
                                                             capsys):
    """`python -m sft_ui train --config` (and so a Hugging Face Job, which runs it with
    --events) chooses the budget's settings, writes them into the run folder and keeps the
    deadline: a run whose person set many steps ends in time with its model."""
    from sft_ui.cli import train_from_file
    from sft_ui.train.events import read_event
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    path = tmp_path / "sft.yaml"
    path.write_text(RunConfig.from_dict({**tiny_cfg, "max_steps": 100_000, "sample_steps": 0,
                                         "time_budget_minutes": 0.25,
                                         "eval_strategy": "no"}).to_yaml())
    assert train_from_file(path, tmp_path / "runs", events=True) == 0
    (folder,) = list((tmp_path / "runs").iterdir())
    state = json.loads((folder / "state.json").read_text())
    saved = RunConfig.from_yaml(folder / "config.yaml")
    assert state["state"] == "done" and 1 <= state["step"] < 100_000
    assert state["budget"] and saved.use_peft and saved.completion_only_loss  # chosen
    assert "Time budget: step" in (folder / "train.log").read_text()  # the deadline held
    out = capsys.readouterr().out
    assert "time budget: LoRA" in out and "training ends by" in out
    events = [read_event(line) for line in out.splitlines() if read_event(line)]
    assert any("metrics" in e for e in events)  # what a job's follower reads


def test_the_steps_that_fit_on_the_first_steps_pace():
    from sft_ui.train.schedule import steps_that_fit
    # 100 s left at 2 s a step: 47 more steps (95%), past step 2; capped at the longest.
    assert steps_that_fit(2, 2.0, 100.0, 1000, None, 0.0, 0) == 49
    assert steps_that_fit(2, 2.0, 100.0, 30, None, 0.0, 0) == 30
    # Whole epochs (of 16 steps) where one or more fit and they keep most of the steps
    # (48 of 49); else the steps that fit (1 epoch of 30 would leave 19 unused).
    assert steps_that_fit(2, 2.0, 100.0, 1000, 16, 0.0, 0) == 48
    assert steps_that_fit(2, 2.0, 100.0, 1000, 30, 0.0, 0) == 49
    assert steps_that_fit(2, 2.0, 100.0, 1000, 60, 0.0, 0) == 49
    # A round of answers every 5 steps at 5 s: a step costs 3 s, so 31 more.
    assert steps_that_fit(2, 2.0, 100.0, 1000, None, 5.0, 5) == 33
    # No time left: the run ends where it is.
    assert steps_that_fit(2, 2.0, -5.0, 1000, None, 0.0, 0) == 2


@pytest.mark.parametrize("kind", ["linear", "cosine", "constant_with_warmup", "constant"])
def test_the_learning_rate_schedule_follows_the_length_the_run_set(kind):
    """The schedule made for the longest run (300 steps) ends where the run's first steps
    put its end (20): the warmup is 10% of 20 steps, the rate reaches 0 at step 20 (linear),
    and the next step's rate is already the new schedule's."""
    import torch
    from transformers import TrainingArguments, get_scheduler

    from sft_ui.train.schedule import fit_schedule
    args = TrainingArguments(output_dir="unused", warmup_steps=0.1, report_to=[])
    weight = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scheduler = get_scheduler(kind, optimizer, num_warmup_steps=args.get_warmup_steps(300),
                              num_training_steps=300)
    for _ in range(2):
        optimizer.step()
        scheduler.step()
    assert fit_schedule(scheduler, args, 20) == (kind != "constant")
    expected = get_scheduler(kind, torch.optim.SGD([weight], lr=1.0),
                             num_warmup_steps=args.get_warmup_steps(20),
                             num_training_steps=20)
    rates = []
    for step in range(2, 21):
        expected_rate = expected.lr_lambdas[0](step)
        assert optimizer.param_groups[0]["lr"] == pytest.approx(expected_rate), step
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    if kind == "linear":  # (step 19 of 20, then 20: the rate reaches 0 at the end)
        assert rates[-2:] == [pytest.approx(1 / 18), pytest.approx(0.0)]
    if kind == "constant_with_warmup":  # warmed up by step 2 (10% of 20), not step 30
        assert rates[0] == pytest.approx(1.0)


def test_a_held_rate_comes_down_over_the_last_fifth_of_the_length_the_run_sets():
    """The budget's schedule (constant after warmup) holds the rate whatever the run's
    length; from decay_start it comes down to 0 at the length's end, and a length set again
    while it comes down moves that end (the rate goes on falling, never back up)."""
    import torch
    from transformers import TrainingArguments, get_scheduler

    from sft_ui.train.schedule import decay, decay_start, fit_schedule, holds_rate
    args = TrainingArguments(output_dir="unused", warmup_steps=0.1, report_to=[])
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    scheduler = get_scheduler(budget.HELD_RATE, optimizer,
                              num_warmup_steps=args.get_warmup_steps(300),
                              num_training_steps=300)
    assert decay_start(100) == 80 and decay_start(3) == 2
    assert not holds_rate(scheduler)  # (in its warmup: the rate still climbs)
    for step in range(1, 81):
        optimizer.step()
        scheduler.step()
        assert decay(scheduler, step, 100) == (step == 80)  # (once, from step 80)
    assert not holds_rate(scheduler) and optimizer.param_groups[0]["lr"] == 1.0
    assert not decay(scheduler, 81, 100)
    rates = []
    for _ in range(10):  # steps 80..89: from 1.0 down by 1/20 a step
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert rates[0] == 1.0 and rates[-1] == pytest.approx(0.55)
    assert fit_schedule(scheduler, args, 120)  # set again, longer: 0.5 over 30 steps
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.5)
    for _ in range(30):
        optimizer.step()
        scheduler.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.0)
