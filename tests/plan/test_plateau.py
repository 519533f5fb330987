"""A time budget spent on what the held-out rows measure (plan/plateau.py,
train/held_out.py): the plateau of their loss ends a run, the best model they saw is the
one saved, and the run says why it ended and which model it kept."""

import pytest
import torch

from sft_ui.plan import plateau
from sft_ui.runs import RunManager
from sft_ui.train.held_out import HeldOut
from tests.conftest import HANG, wait_for


def test_the_plateau_is_patience_evaluations_without_a_gain_and_the_best_is_put_back():
    model = torch.nn.Linear(2, 2)
    judge = HeldOut(patience=3)
    weights = {}
    for step, loss in [(10, 3.0), (20, 2.0), (30, 2.5), (40, 1.995), (50, 2.2)]:
        with torch.no_grad():
            model.weight.fill_(step)
        weights[step] = model.weight.detach().clone()
        plateaued = judge.heard(loss, step, model)
        assert plateaued == (step == 50)  # 30, 40 (a gain under 1%) and 50: no gain
    # the best loss is kept (step 40's 1.995), though it was no gain worth going on for
    assert judge.best == (1.995, 40)
    assert judge.restore(model, 50) and torch.equal(model.weight, weights[40])
    assert not judge.restore(model, 40)  # the run ended on its best: nothing to put back
    record = judge.ending(50, out_of_time=False)
    assert record == {"step": 50, "kept_step": 40, "ended_by": 1, "eval_loss": 1.995}
    assert plateau.ended_by([record]) == ("plateau", 40)
    said = plateau.ending_said(record)
    assert said == ("held-out rows stopped improving: the model of step 40 of 50, best on "
                    "the held-out rows, is kept")


def test_each_stage_is_judged_by_its_own_measure():
    """GRPO's held-out judge reads the rewards (more is better), not its loss, which sits
    near 0 by construction; DPO's and KTO's the held-out margin of chosen over rejected
    (their loss mixes in an SFT term, a KL estimate); SFT's and ORPO's the eval loss."""
    from sft_ui.stages import get
    assert get("grpo").judged_by == ("eval_reward", True)
    assert get("dpo").judged_by == get("kto").judged_by == ("eval_rewards/margins", True)
    assert all(get(name).judged_by == ("eval_loss", False) for name in ("sft", "orpo"))
    margin = HeldOut(patience=2, measure=get("dpo").judged_by)
    assert margin.read({"eval_rewards/margins": 0.8, "eval_loss": 0.4}) == -0.8
    assert margin.shown(-0.8) == "rewards/margins 0.8"
    model = torch.nn.Linear(2, 2)
    judge = HeldOut(patience=2, measure=get("grpo").judged_by)
    # (the loss falls all along: a loss judge would keep step 40's model)
    evaluations = [(10, 0.2, 0.03), (20, 1.4, 0.02), (30, 1.1, 0.01), (40, 0.9, 0.001)]
    ended = [step for step, reward, loss in evaluations
             if judge.heard(judge.read({"eval_reward": reward, "eval_loss": loss}), step,
                            model)]
    assert ended == [40] and judge.best[1] == 20
    assert judge.shown(judge.best[0]) == "reward 1.4"
    record = judge.ending(40, out_of_time=False)
    assert record["kept_step"] == 20 and record["eval_reward"] == 1.4
    assert "eval_loss" not in record
    assert judge.read({"eval_loss": 0.5}) is None  # (an evaluation without rewards)


def test_after_a_plateau_the_rate_comes_down_to_zero_where_the_length_allows():
    """A quarter of the steps so far (10 at least), unless the run's length ends sooner;
    the schedule goes from the rate it had, whatever its rule, to 0 at the new end."""
    from sft_ui.train.schedule import cool_schedule
    assert plateau.cool_steps(200, 1000) == 50 and plateau.cool_steps(8, 1000) == 10
    assert plateau.cool_steps(200, 240) is None  # (its own schedule ends within them)
    weight = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5)  # constant
    for _ in range(4):
        optimizer.step()
        scheduler.step()
    cool_schedule(scheduler, 8)
    rates = []
    for _ in range(4):
        optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr()[0])
    assert rates == pytest.approx([0.0375, 0.025, 0.0125, 0.0])


def test_a_loss_near_zero_has_no_gain_left():
    assert plateau.is_gain(0.5, 0.6) and not plateau.is_gain(0.0009, 0.0015)


def test_a_budgeted_run_stops_at_its_plateau_and_saves_the_best_model(tmp_path, tiny_cfg,
                                                                       monkeypatch):
    """A real run with a time budget: its held-out rows (chosen by the budget) are
    evaluated every 2 steps; no evaluation after the first is better here, so the third
    after it is the plateau (step 8 of many): the learning rate comes down to 0 over the
    next 10 steps (plan/plateau.py's least), the run ends at step 18, and its saved
    adapter is the one of step 2 (the checkpoint written there), not step 18's."""
    from safetensors.torch import load_file
    monkeypatch.setattr("sft_ui.plan.speed.speed_file", lambda: tmp_path / "speed.json")
    monkeypatch.setattr(plateau, "is_gain", lambda loss, best: False)
    monkeypatch.setattr(plateau, "is_better", lambda loss, best: False)
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "max_steps": 100_000, "time_budget_minutes": 2,
                            "sample_steps": 0, "use_peft": True, "learning_rate": 5e-3,
                            "eval_steps": 2, "save_strategy": "steps", "save_steps": 2})
    run = wait_for(lambda: manager.get(run_id) if manager.get(run_id).state
                   in ("done", "failed") else None, timeout=HANG)
    assert run.state == "done", run.error
    assert run.config.eval_fraction > 0  # the budget held rows out
    assert run.step == 18 and run.max_steps == 18, (run.step, run.max_steps)
    ending = [m for m in run.metrics if "ended_by" in m]
    assert ending and plateau.ended_by(run.metrics) == ("plateau", 2)
    assert plateau.plateau_step(run.metrics) == 8
    assert run.budget[-1] == "held-out rows stopped improving at step 8, and the learning " \
        "rate came down to 0 over the 10 steps after it: the model of step 2 of 18, best on " \
        "the held-out rows, is kept"
    assert run.message.startswith("Stopped 10 steps after the held-out rows stopped improving "
                                  "(step 8), the learning rate brought down to 0 over them; "
                                  "the model of step 2, the best on the held-out rows, is "
                                  "saved in "), run.message
    rates = {m["step"]: m["learning_rate"] for m in run.metrics if "learning_rate" in m}
    # from step 8's rate down to 0 at step 18, linearly (a record's rate: its step's)
    assert [rates[s] / rates[9] for s in (10, 14, 18)] == pytest.approx([0.9, 0.5, 0.1],
                                                                        rel=0.01)
    log = (run.dir / "train.log").read_text()
    assert "Held-out rows show no more gain" in log and "comes down to 0 over 10 steps" in log
    assert "Kept the model of step 2" in log
    saved = load_file(run.dir / "model" / "adapter_model.safetensors")
    at_2 = load_file(run.dir / "checkpoints" / "checkpoint-2" / "adapter_model.safetensors")
    at_18 = load_file(run.dir / "checkpoints" / "checkpoint-18" / "adapter_model.safetensors")
    assert saved.keys() == at_2.keys()
    assert all(torch.equal(saved[k], at_2[k]) for k in saved)
    assert any(not torch.equal(saved[k], at_18[k]) for k in saved)  # (it learnt after step 2)
    # the saved model's held-out loss is the one its records end with
    last = [m["eval_loss"] for m in run.metrics if "eval_loss" in m][-1]
    first = next(m["eval_loss"] for m in run.metrics if "eval_loss" in m)
    assert last == pytest.approx(first)
    manager.close()


def test_exact_matches_count_before_the_loss_where_answers_are_short(monkeypatch):
    """Facts learnt by heart: the held-out loss may rise while more answers come out
    right; the model kept is the one with the most right, and only a step with no more
    right and no lower loss counts towards the plateau."""
    model = torch.nn.Linear(2, 2)
    judge = HeldOut(patience=2, answers=[([1], "x", 2)], tokenizer=object())
    matches = iter([0.2, 0.5, 0.5, 0.5, 0.4])
    monkeypatch.setattr(judge, "matches", lambda m: next(matches))
    assert not judge.heard(2.0, 10, model)
    assert not judge.heard(2.5, 20, model) and judge.best == (2.5, 20)  # more right
    assert not judge.heard(2.4, 30, model) and judge.best == (2.4, 30)  # as many, lower
    assert not judge.heard(2.45, 40, model) and judge.since == 1
    assert judge.heard(1.0, 50, model) and judge.best == (2.4, 30)  # lower loss, fewer right


def test_a_cooled_model_as_right_as_the_best_is_kept_over_it(monkeypatch):
    """After the plateau the rate comes down; the cooled model that answers as many held-out
    rows right is kept though its loss is higher (facts asked in new words), one that
    answers fewer is not; before the plateau a tie goes to the lower loss."""
    model = torch.nn.Linear(2, 2)
    judge = HeldOut(patience=1, answers=[([1], "x", 2)], tokenizer=object())
    matches = iter([0.5, 0.5, 0.5, 0.4])
    monkeypatch.setattr(judge, "matches", lambda m: next(matches))
    assert not judge.heard(2.0, 10, model)
    assert judge.heard(2.2, 20, model) and judge.best == (2.0, 10)  # the plateau
    with torch.no_grad():
        model.weight.fill_(3.0)  # (the cool-down moves the weights)
    assert not judge.heard(2.6, 30, model) and judge.best == (2.6, 30)  # cooled, as right
    assert not judge.heard(2.1, 40, model) and judge.best == (2.6, 30)  # fewer right
    with torch.no_grad():
        model.weight.fill_(0.0)
    assert judge.restore(model, 40) and bool((model.weight == 3.0).all())


def test_short_held_out_answers_are_read_and_matched_on_the_model(tmp_path, tiny_cfg):
    """A prompt/completion file of short answers: its held-out rows' prompts and answers
    are read as the trainer tokenizes them, and the model's greedy answers to them are
    matched (a random tiny model gets none right); a file of long answers has none."""
    import json as _json

    from sft_ui.config import RunConfig
    from sft_ui.data.tokens import load_training_data
    from sft_ui.models import load_model_and_tokenizer
    from sft_ui.train.held_out import short_answers
    data = tmp_path / "facts.jsonl"
    data.write_text("".join(_json.dumps({"prompt": f"Capital of Zor{i}?",
                                         "completion": f"Vel{i}ka"}) + "\n"
                            for i in range(40)))
    cfg = RunConfig.from_dict({**tiny_cfg, "dataset_name": str(data), "eval_fraction": 0.2,
                               "completion_only_loss": True})
    model, tokenizer = load_model_and_tokenizer(tiny_cfg["model_name_or_path"])
    found = short_answers(cfg, tokenizer, load_training_data(cfg, tokenizer).eval)
    assert len(found) == 8 and all(a.startswith("Vel") and a.endswith("ka")
                                   for _, a, _ in found)
    judge = HeldOut(answers=found, tokenizer=tokenizer)
    assert judge.matches(model) == 0.0
    # the model's own greedy answers, one prompt at a time, are matched in the left-padded
    # batch too (prompts of different lengths)
    own = []
    for prompt, _, limit in found[:3] + [(found[0][0][3:], "", 4)]:
        ids = torch.tensor([prompt])
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                             max_new_tokens=limit, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id)
        own.append((prompt, tokenizer.decode(out[0, len(prompt):],
                                             skip_special_tokens=True).strip(), limit))
    judge.answers = own
    assert judge.matches(model) == 1.0
    long = RunConfig.from_dict({**tiny_cfg, "dataset_name": "demo", "eval_fraction": 0.2})
    assert short_answers(long, tokenizer, load_training_data(long, tokenizer).eval) == []


def test_a_length_set_again_longer_goes_on_after_a_slow_first_step(monkeypatch):
    """A stall at step 2 (100 s a step) sets 3 steps; the trainer's own flow then ends the
    run at step 3, but the pace of steps 2 and 3 together sets it again, longer: the run
    goes on (it ended at 3 steps of a 5-minute budget before)."""
    from types import SimpleNamespace

    from sft_ui.train import callbacks
    now = [1000.0]
    monkeypatch.setattr(callbacks.time, "time", lambda: now[0])

    class Sink:
        deadline, fit_steps = 1000.0 + 300, True

        def __getattr__(self, name):
            return lambda *a, **k: False
    cb = callbacks.StudioCallback(Sink(), None, [], 0, 8, deadline=1300.0, fit=True)
    args = SimpleNamespace(max_steps=-1, get_warmup_steps=lambda n: 0, device="cpu")
    state = SimpleNamespace(global_step=0, max_steps=780, num_train_epochs=30,
                            is_world_process_zero=True)
    control = SimpleNamespace(should_training_stop=False, should_evaluate=False,
                              should_save=False)
    cb.on_train_begin(args, state, control)
    for step, seconds in ((1, 2.0), (2, 100.0), (3, 2.0)):
        now[0] += seconds
        state.global_step = step
        control.should_training_stop = step >= state.max_steps  # the trainer's own flow
        cb.on_step_end(args, state, control)
        if step == 2:
            assert state.max_steps == 3
    assert state.max_steps > 3 and not control.should_training_stop
