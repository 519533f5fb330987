"""The quick path's time budget: what it chooses for the data, the model and the
measured speed (never over a setting the person changed), and what the plan says."""
import json

import pytest

from sft_ui.config import RunConfig
from sft_ui.plan import budget, planner
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.sample import DataSample

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


@pytest.mark.parametrize("minutes", [0.0])
def test_no_budget_changes_nothing(minutes):
    cfg = RunConfig(time_budget_minutes=minutes)
    assert budget.choose(cfg, CHAT, params=135_000_000, hw=CPU).config is cfg


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
