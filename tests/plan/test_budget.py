"""The quick path's time budget: what it chooses for the data, the model and the
measured speed (never over a setting the person changed), what the plan says, and a
budgeted run on the tiny model that ends within its budget, model load included."""
import json

import pytest

from sft_ui.config import RunConfig
from sft_ui.plan import budget, planner, plateau, speed
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.sample import DataSample
from sft_ui.runs import RunManager
from tests.conftest import HANG, wait_for

CPU = Hardware("cpu", "test CPU", 1, False, 64 * 2**30, 2)
CHAT = DataSample(lengths=(60,) * 64, rows=400, format="messages")


def _speed(tokens_per_second):
    return lambda cfg: tokens_per_second


def test_small_chat_data_gets_lora_answers_only_and_whole_epochs():
    cfg = RunConfig(time_budget_minutes=5)
    choice = budget.choose(cfg, CHAT, params=135_000_000, speed=_speed(400.0), hw=CPU)
    c = choice.config
    assert (c.use_peft, c.learning_rate, c.completion_only_loss) == (True, 5e-4, True)
    # 400 rows / effective batch 8 = 50 steps an epoch of 8 x 60 tokens at 400 tokens/s
    # (1.2 s): (300 s - 20 s) x 0.85 / 1.2 s = 198 steps, so 3 whole epochs.
    assert (c.train_by, c.num_train_epochs) == ("epochs", 3.0)
    assert len(choice.reasons) == 6 and "whole epochs: 3 (150 steps" in choice.reasons[-1]
    # a rate held, then brought down at the end of the length the run sets (train/schedule.py)
    assert c.lr_scheduler_type == "constant_with_warmup" and "held" in choice.reasons[-2]
    # 40 rows (a tenth) held out: their loss ends the run at its plateau (plan/plateau.py)
    assert c.eval_fraction == 0.1 and choice.reasons[3].startswith("40 rows held out")
    assert not choice.needs_speed and cfg.use_peft is False  # cfg itself is unchanged


def test_the_budget_never_overrides_a_setting_the_person_changed():
    cfg = RunConfig(time_budget_minutes=5, learning_rate=1e-5, completion_only_loss=False,
                    max_steps=12)
    c = budget.choose(cfg, CHAT, params=135_000_000, speed=_speed(400.0), hw=CPU).config
    assert (c.use_peft, c.learning_rate, c.completion_only_loss, c.max_steps,
            c.train_by) == (True, 1e-5, False, 12, "steps")


def test_large_data_full_fine_tune_and_steps_that_fit():
    big = DataSample(lengths=(60,) * 64, rows=50_000, format="text")
    choice = budget.choose(RunConfig(time_budget_minutes=2), big, params=135_000_000,
                           speed=_speed(400.0), hw=CPU)
    c = choice.config
    assert (c.use_peft, c.learning_rate, c.completion_only_loss) == (False, 5e-5, None)
    # (120 s - 20 s) x 0.85 / 1.2 s a step = 70 steps, far less than an epoch: few
    # steps, so one batch each, 0.6 s: 141 steps
    assert (c.train_by, c.max_steps, c.gradient_accumulation_steps) == ("steps", 141, 1)
    assert any("at 2 the budget buys only 70 optimizer steps" in r for r in choice.reasons)
    # The minutes are the sentence's own word, in Japanese too ("2 分", not "2 min").
    from sft_ui import i18n
    assert choice.reasons[-1].endswith("fit 2 min")
    assert i18n.translate(choice.reasons[-1], "ja").endswith("2 分に収まります")
    whole = budget.choose(RunConfig(time_budget_minutes=5), CHAT, params=135_000_000,
                          speed=_speed(400.0), hw=CPU).reasons[-1]
    assert i18n.translate(whole, "ja").endswith("データが 5 分に収まります"), whole
    big_model = budget.choose(RunConfig(time_budget_minutes=2), big, params=8_000_000_000,
                              speed=_speed(400.0), hw=CPU).config
    assert big_model.use_peft  # a billion parameters or more: LoRA whatever the data


def test_without_a_measured_speed_the_steps_wait_and_the_plan_says_so(monkeypatch,
                                                                       tmp_path):
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    choice = budget.choose(RunConfig(time_budget_minutes=5), CHAT, params=135_000_000,
                           hw=CPU)
    assert choice.needs_speed and choice.fits_in_run
    assert choice.config.max_steps == RunConfig().max_steps  # the run's first steps say
    assert "set on the run's first steps" in choice.reasons[-1]
    # Several processes would have to agree on a length: those measure the speed first.
    two = budget.choose(RunConfig(time_budget_minutes=5, num_processes=2), CHAT,
                        params=135_000_000, hw=CPU)
    assert two.needs_speed and not two.fits_in_run
    from sft_ui.ui.plan_text import budget_markdown, plan_line, plan_markdown
    p = planner.plan_with_data(RunConfig(time_budget_minutes=5))
    assert p["budget_needs_speed"] and p["budget_fits_in_run"] and p["budget"]
    assert "the run's first steps measure it (they train)" in budget_markdown(p)
    assert "Start measures it first" in budget_markdown({**p, "budget_fits_in_run": False})
    # A paragraph after the list, not the list's last line run on ("...to learn The speed").
    assert "\n\nThe speed of these settings" in budget_markdown(p)
    assert plan_line(p).startswith("**Plan:** time budget 5 min")
    # No step count the run will not train (the settings' 30 steps are not its length).
    assert "steps set by the run's first steps" in plan_line(p)
    assert " 30 steps" not in plan_line(p) and "30 steps" not in plan_markdown(p)
    timed = {**p, "seconds_total": 130}
    assert plan_line(timed).endswith("**fits** · about 2 min"), plan_line(timed)
    from tests.i18n.test_i18n import _in_japanese
    japanese = _in_japanese(lambda: plan_line(timed))
    assert "約 2 分" in japanese and "約 約" not in japanese, japanese
    assert budget_markdown(planner.plan_with_data(RunConfig())) == ""


def test_the_plan_reads_the_chosen_dataset(tmp_path):
    """The plan's data sample follows the Dataset field (which sits in the first panel)."""
    path = tmp_path / "few.jsonl"
    path.write_text("".join(json.dumps({"text": f"row {i}"}) + "\n" for i in range(7)))
    assert planner.plan_with_data(RunConfig(dataset_name=str(path)))["data_rows"] == 7
    assert planner.plan_with_data(RunConfig())["data_rows"] == 248  # the demo set


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


@pytest.mark.parametrize("minutes", [0.0])
def test_no_budget_changes_nothing(minutes):
    cfg = RunConfig(time_budget_minutes=minutes)
    assert budget.choose(cfg, CHAT, params=135_000_000, hw=CPU).config is cfg


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


def test_a_preference_stage_gets_its_own_learning_rate_and_step_time():
    """A time budget works under DPO as under SFT: DPO's learning rate (far below SFT's),
    no SFT-only setting, and steps that count both answers and the reference's passes."""
    pairs = DataSample(lengths=(60,) * 64, rows=400, format="preference")
    dpo = RunConfig(stage="dpo", dataset_name="demo-preference", time_budget_minutes=2)
    choice = budget.choose(dpo, pairs, params=135_000_000, speed=_speed(400.0), hw=CPU)
    c = choice.config
    assert (c.use_peft, c.learning_rate, c.completion_only_loss) == (True, 5e-5, None)
    # 8 pairs x 2 answers x 60 tokens at 400 tokens/s, x (1 + 2/3 / 2) for the reference's
    # forward over both answers: 3.2 s a step; (120 s - 20 s) x 0.85 / 3.2 s = 26 steps:
    # few, so one batch each: 53 steps of 1.6 s, the held-out pairs as often in pairs
    assert (c.train_by, c.max_steps, c.gradient_accumulation_steps) == ("steps", 53, 1), \
        choice.reasons
    assert c.eval_steps == 34 and "every 34 steps" in choice.reasons[2]
    sft = budget.choose(RunConfig(time_budget_minutes=2), DataSample((60,) * 64, 50_000,
                                                                     "text"),
                        params=135_000_000, speed=_speed(400.0), hw=CPU).config
    assert sft.max_steps == 141  # 0.6 s a step: an SFT step on one answer is far cheaper
    assert budget.deadline(dpo, 1000.0) == 1000.0 + 120
    kto = RunConfig(stage="kto", dataset_name="demo-preference", time_budget_minutes=2)
    assert budget.choose(kto, pairs, params=135_000_000, speed=_speed(400.0),
                         hw=CPU).config.learning_rate == 5e-5


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


def test_the_plan_line_says_the_run_sets_its_steps():
    """With a budget that leaves the length to the run, the plan's steps are an estimate:
    the one line says so (the bar shows the steps the run sets)."""
    from sft_ui.ui.plan_text import plan_line
    p = planner.plan_with_data(RunConfig(time_budget_minutes=5))
    estimated = {**p, "budget_needs_speed": False, "budget_fits_in_run": True, "steps": 47}
    assert "about 47 steps (the run's first steps set them)" in plan_line(estimated)
    chosen = {**estimated, "budget_fits_in_run": False}
    assert " 47 steps" in plan_line(chosen) and "about 47" not in plan_line(chosen)
    from tests.i18n.test_i18n import _in_japanese
    assert "約 47 ステップ（実行の最初の数ステップで決定）" in \
        _in_japanese(lambda: plan_line(estimated))


FACTS = [{"prompt": f"What is the capital of Zor{i}?", "completion": f"Vel{i}ka"}
         for i in range(30)] * 2
DATES = [{"prompt": f"Write as YYYY-MM-DD: May the {i}th, 2001",
          "completion": f"2001-05-{i:02d}"} for i in range(1, 29)] * 2


def test_facts_to_recall_get_a_wider_adapter_a_higher_rate_and_no_epoch_cap():
    """A file whose answers are short and found nowhere in their prompts, most of them
    different, is facts to recall: rank 32 at four times the LoRA rate, held-out rows
    and as many epochs as fit (their plateau ends it); a form (an answer made from its
    prompt) keeps the stage's rate."""
    from sft_ui.data.answers import RECALL, read_answers
    facts, dates = read_answers(FACTS), read_answers(DATES)
    assert facts.kind == RECALL and dates.kind != RECALL
    data = DataSample(lengths=(40,) * 60, rows=120, format="prompt/completion",
                      answers=facts)
    choice = budget.choose(RunConfig(time_budget_minutes=5), data, params=135_000_000,
                           speed=_speed(400.0), hw=CPU)
    c = choice.config
    assert (c.lora_r, c.lora_alpha, c.learning_rate) == (32, 64, 2e-3)
    assert c.eval_fraction == 0.1 and c.num_train_epochs > budget.MAX_EPOCHS
    assert any(r.startswith("facts to recall") for r in choice.reasons)
    form = DataSample(lengths=(40,) * 60, rows=120, format="prompt/completion",
                      answers=read_answers(DATES))
    c = budget.choose(RunConfig(time_budget_minutes=5), form, params=135_000_000,
                      speed=_speed(400.0), hw=CPU).config
    assert (c.lora_r, c.learning_rate) == (16, 5e-4)
    # the person's own rate and rank win
    c = budget.choose(RunConfig(time_budget_minutes=5, learning_rate=3e-4), data,
                      params=135_000_000, speed=_speed(400.0), hw=CPU).config
    assert c.learning_rate == 3e-4 and c.lora_r == 32


def test_few_steps_are_trained_one_batch_each():
    """Long rows on a slow machine: a budget that buys fewer than FEW_STEPS optimizer
    steps at accumulation 2 trains twice as many of one batch each, and says so; one that
    buys more keeps the accumulation; a person's accumulation or length wins."""
    tickets = DataSample(lengths=(215,) * 64, rows=200, format="prompt/completion")
    slow = budget.choose(RunConfig(time_budget_minutes=5), tickets, params=135_000_000,
                         speed=_speed(120.0), hw=CPU)
    c = slow.config
    assert c.gradient_accumulation_steps == 1
    said = [r for r in slow.reasons if r.startswith("gradient accumulation 1")]
    bought = int(said[0].split("only ")[1].split(" ")[0])
    assert bought < budget.FEW_STEPS and "at 2 the budget buys only" in said[0]
    steps = c.max_steps if c.train_by == "steps" else None
    assert steps is None or steps >= 2 * bought - 1
    fast = budget.choose(RunConfig(time_budget_minutes=5), tickets, params=135_000_000,
                         speed=_speed(5000.0), hw=CPU).config
    assert fast.gradient_accumulation_steps == 2
    for own in (RunConfig(time_budget_minutes=5, gradient_accumulation_steps=4),
                RunConfig(time_budget_minutes=5, max_steps=20)):
        kept = budget.choose(own, tickets, params=135_000_000, speed=_speed(120.0),
                             hw=CPU).config
        assert kept.gradient_accumulation_steps == own.gradient_accumulation_steps
