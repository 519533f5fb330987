"""How long a run trains (sft_ui/config/length.py): one rule through RunConfig, a YAML
file, the API's settings and the time budget; the trainer's own arguments say it; a
length given and left unused is said before Start."""
from __future__ import annotations

import pytest

from sft_ui.config import RunConfig
from sft_ui.config import length as rule
from sft_ui.config.trl import translate
from sft_ui.plan import budget
from sft_ui.plan.hardware import detect
from sft_ui.plan.sample import DataSample
from tests.conftest import wait_for

# (settings given, train_by, the trainer's max_steps, its epochs, a note said)
CASES = [
    ({}, "steps", 30, 1.0, False),
    ({"num_train_epochs": 3}, "epochs", -1, 3.0, False),
    ({"max_steps": 50}, "steps", 50, 1.0, False),
    ({"max_steps": 50, "num_train_epochs": 3}, "steps", 50, 3.0, True),  # TRL: steps win
    ({"train_by": "steps", "num_train_epochs": 3}, "steps", 30, 3.0, True),
    ({"train_by": "epochs", "max_steps": 50}, "epochs", -1, 1.0, True),
    ({"train_by": "epochs", "num_train_epochs": 2.5}, "epochs", -1, 2.5, False),
]


@pytest.mark.parametrize("given, train_by, steps, epochs, noted", CASES)
def test_the_length_given_is_the_length_that_trains(tmp_path, given, train_by, steps,
                                                    epochs, noted):
    made = [RunConfig(**given), RunConfig.from_dict(given)]  # Python, the API's dict
    path = tmp_path / "run.yaml"
    path.write_text("".join(f"{k}: {v}\n" for k, v in given.items()) or "{}\n")
    made.append(RunConfig.from_yaml(path))  # a settings file
    for cfg in made:
        assert cfg.train_by == train_by, (given, cfg.train_by)
        trained = translate(cfg)["train"]  # the SFTConfig's own arguments
        assert (trained["max_steps"], trained["num_train_epochs"]) == (steps, epochs)
        assert bool(rule.said(cfg)) == noted
        # saved and read back, it trains the same
        again = tmp_path / "again.yaml"
        again.write_text(cfg.to_yaml())
        assert RunConfig.from_yaml(again).train_by == train_by


def test_a_trl_file_trains_by_epochs_where_max_steps_is_minus_one(tmp_path):
    path = tmp_path / "trl.yaml"
    path.write_text("max_steps: -1\nnum_train_epochs: 2\n")
    assert RunConfig.from_yaml(path).train_by == "epochs"


def test_the_note_says_which_length_wins():
    said = rule.said(RunConfig(train_by="steps", num_train_epochs=3))
    assert "30 steps" in said and "3 epochs" in said and "not used" in said
    assert rule.said(RunConfig(num_train_epochs=3)) is None


def _data(rows=120):
    return DataSample(lengths=(40,) * rows, rows=rows, format="prompt/completion")


def test_a_budget_keeps_a_length_given_and_fits_one_left_out():
    hw = detect()
    # epochs given with a budget: the epochs train, the budget only stops them
    choice = budget.choose(RunConfig(num_train_epochs=3, time_budget_minutes=5), _data(),
                           135_000_000, speed=lambda c: 300.0, hw=hw)
    assert (choice.config.train_by, choice.config.num_train_epochs) == ("epochs", 3.0)
    assert any("3 epochs" in r and "stops it" in r for r in choice.reasons)
    choice = budget.choose(RunConfig(max_steps=12, time_budget_minutes=5), _data(),
                           135_000_000, speed=lambda c: 300.0, hw=hw)
    assert (choice.config.train_by, choice.config.max_steps) == ("steps", 12)
    # no length given: the budget fits it
    choice = budget.choose(RunConfig(time_budget_minutes=5), _data(), 135_000_000,
                           speed=lambda c: 300.0, hw=hw)
    assert choice.config.train_by == "epochs" or choice.config.max_steps != 30


def test_epochs_given_to_the_api_reach_the_trainer(tmp_path, tiny_cfg, monkeypatch):
    """Through Start as the API calls it, settings without train_by: the trainer's own
    arguments train by epochs."""
    from sft_ui.access import Access
    from sft_ui.actions import Actions
    from sft_ui.runs import RunManager
    from sft_ui.train import callbacks
    seen = {}
    original = callbacks.StudioCallback.on_train_begin

    def spy(self, args, state, control, **kwargs):
        seen.update(max_steps=args.max_steps, epochs=args.num_train_epochs,
                    steps=state.max_steps)
        return original(self, args, state, control, **kwargs)
    monkeypatch.setattr(callbacks.StudioCallback, "on_train_begin", spy)
    manager = RunManager(tmp_path)
    try:
        values = {k: v for k, v in tiny_cfg.items() if k != "max_steps"}
        run_id = Actions(manager, Access()).start(
            None, {**values, "num_train_epochs": 0.02, "sample_steps": 0})
        wait_for(lambda: manager.get(run_id).state in ("done", "failed"))
        assert manager.get(run_id).state == "done", manager.get(run_id).error
        assert (seen["max_steps"], seen["epochs"]) == (-1, 0.02)
        assert seen["steps"] != 30 and manager.get(run_id).config.train_by == "epochs"
    finally:
        manager.close()
