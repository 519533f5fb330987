"""DPO where the chosen answers are a form the model does not write yet: the data check
(data/likelihood.py) sees it under the starting model, the preview says so before Start,
and Loss type auto trains with TRL's SFT term on the chosen answers beside DPO's loss;
sigmoid+sft asks for that term by hand."""
import json
import math

import pytest

from sft_ui.config import RunConfig
from sft_ui.config.fields import DEFAULT_MODEL_ID
from sft_ui.data import likelihood
from sft_ui.data.demo import CAPITALS
from sft_ui.data.preference_demo import preference_demo_rows
from sft_ui.models import load_model_and_tokenizer, resolve_model
from sft_ui.train.arguments import to_trl
from sft_ui.train.engine import train
from tests.stages.test_preference_train import Recorder


def json_pairs(swap: bool = False) -> list[dict]:
    """Capitals asked in chat; chosen: a JSON object, rejected: a plain sentence (or the
    other way round)."""
    rows = []
    for country, city in CAPITALS.items():
        form, plain = json.dumps({"answer": city}), f"The capital of {country} is {city}."
        chosen, rejected = (plain, form) if swap else (form, plain)
        rows.append({"prompt": [{"role": "user", "content": f"What is the capital of "
                                                             f"{country}?"}],
                     "chosen": [{"role": "assistant", "content": chosen}],
                     "rejected": [{"role": "assistant", "content": rejected}]})
    return rows


@pytest.fixture(scope="module")
def default_model():
    return load_model_and_tokenizer(resolve_model(DEFAULT_MODEL_ID))


def test_the_check_sees_a_form_the_model_does_not_write(default_model):
    model, tokenizer = default_model
    found = likelihood.measure(model, tokenizer, json_pairs())
    assert found.pairs == likelihood.CHECK_PAIRS and found.unlikely, found
    assert found.chosen < found.rejected - 2  # JSON: about -3.4 against -0.3 a token
    assert "far less likely" in found.sentence() and "sigmoid + sft" in found.sentence()
    swapped = likelihood.measure(model, tokenizer, json_pairs(swap=True))
    assert not swapped.unlikely and (swapped.chosen, swapped.rejected) == \
        (found.rejected, found.chosen)
    # The demo's pairs (Captain Byte's greeting and sign-off around a plain answer): the
    # answers are alike, so DPO's own loss.
    demo = likelihood.measure(model, tokenizer, preference_demo_rows())
    assert not demo.unlikely and "DPO's own loss (sigmoid)" in demo.sentence()


def test_a_batch_measures_what_one_sequence_at_a_time_does(default_model):
    """Right padding and the mask leave each answer's figure as it is alone."""
    model, tokenizer = default_model
    rows = json_pairs()[:3]
    batched = likelihood.measure(model, tokenizer, rows)
    alone = [likelihood.measure(model, tokenizer, [row]) for row in rows]
    assert batched.chosen == pytest.approx(sum(a.chosen for a in alone) / 3, abs=1e-4)
    assert batched.rejected == pytest.approx(sum(a.rejected for a in alone) / 3, abs=1e-4)


def _dpo(tiny_cfg, tmp_path, rows, **extra) -> RunConfig:
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return RunConfig.from_dict({**tiny_cfg, "stage": "dpo", "dataset_name": str(data),
                                "sample_steps": 0, "learning_rate": 5e-3, "max_steps": 2,
                                "use_peft": True, **extra})


UNLIKELY, ALIKE = likelihood.Likelihood(-3.4, -0.3, 16), likelihood.Likelihood(-3.5, -3.7, 16)


@pytest.mark.parametrize("found,loss,rate,trained_at", [
    (UNLIKELY, ["sigmoid", "sft"], 5e-3, 5e-3), (UNLIKELY, ["sigmoid", "sft"], 5e-5, 5e-4),
    (ALIKE, ["sigmoid"], 5e-5, 5e-5)], ids=["unlikely", "unlikely-dpo-rate", "alike"])
def test_loss_type_auto_follows_the_check(tmp_path, tiny_cfg, monkeypatch, found, loss,
                                          rate, trained_at):
    """The run measures with its starting model (the tiny model's random weights say
    nothing, so the check's answer is given here) and trains with the loss it chose:
    TRL's combined loss logs finite values, and the log says what the check found. With
    the SFT term, a learning rate left at DPO's (LoRA: 5e-5) becomes SFT's (5e-4); one
    the person set stays."""
    import trl
    seen, built = [], []
    monkeypatch.setattr(likelihood, "measure",
                        lambda model, tokenizer, rows: seen.append(len(rows)) or found)
    real = trl.DPOTrainer.__init__

    def spy(self, *args, **kwargs):
        built.append(kwargs["args"])
        real(self, *args, **kwargs)
    monkeypatch.setattr(trl.DPOTrainer, "__init__", spy)
    sink = Recorder()
    train(_dpo(tiny_cfg, tmp_path, json_pairs(), learning_rate=rate, lr_scheduler_type="constant"),
          tmp_path / "run", sink)
    assert seen and built[0].loss_type == loss
    assert built[0].loss_weights == ([1.0, 1.0] if len(loss) == 2 else None)
    assert built[0].learning_rate == trained_at
    assert all(math.isfinite(r["loss"]) for r in sink.steps()) and len(sink.steps()) == 2
    log = (tmp_path / "run" / "train.log").read_text()
    assert f"Loss type auto: {found.sentence()}" in log
    assert ("Loss type auto: Learning rate 0.0005 with the SFT term" in log) == \
        (trained_at != rate)
    assert sink.steps()[0]["learning_rate"] == pytest.approx(trained_at)  # (constant schedule)


def test_a_loss_the_person_chose_is_not_checked(tmp_path, tiny_cfg, monkeypatch):
    monkeypatch.setattr(likelihood, "measure", lambda *a: pytest.fail("measured"))
    cfg = _dpo(tiny_cfg, tmp_path, json_pairs(), loss_type="sigmoid+sft")
    assert to_trl(cfg)["train"]["loss_type"] == ["sigmoid", "sft"]
    assert to_trl(cfg)["train"]["loss_weights"] == [1.0, 1.0]
    sink = Recorder()
    train(cfg, tmp_path / "run", sink)
    assert len(sink.steps()) == 2 and "Loss type auto" not in \
        (tmp_path / "run" / "train.log").read_text()
    assert "loss_type" not in to_trl(_dpo(tiny_cfg, tmp_path, json_pairs()))["train"]


def test_the_preview_says_it_before_start(tmp_path, monkeypatch):
    """With the default model (small enough to load for the preview), once per model and
    data: a second preview measures nothing."""
    from sft_ui.data.preview import preview
    calls = []
    real = likelihood.measure
    monkeypatch.setattr(likelihood, "measure", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(likelihood, "_PREVIEWED", {})
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in json_pairs()))
    cfg = RunConfig(stage="dpo", dataset_name=str(data))
    notes = preview(cfg)["notes"]
    assert any(n.startswith("The starting model finds the chosen answers far less likely")
               for n in notes), notes
    assert preview(cfg)["notes"] == notes and calls == [1]
    assert not any(n.startswith("Learning rate") for n in notes)  # (1e-4: not DPO's own)
    left = preview(RunConfig(stage="dpo", dataset_name=str(data), use_peft=True,
                             learning_rate=5e-5))["notes"]
    assert "Learning rate 0.0005 with the SFT term" in left[-1] and calls == [1]
    orpo = preview(RunConfig(stage="orpo", dataset_name=str(data)))["notes"]
    assert not any("starting model" in n for n in orpo)  # ORPO has the SFT term already


def test_sigmoid_sft_reads_back_from_the_trl_file(tmp_path, tiny_cfg):
    """The YAML `trl dpo` reads has TRL's list and weights; the studio reads it back as the
    one setting."""
    from sft_ui.share.recipe import to_yaml
    assert "# Loss type auto: the studio adds the SFT term" in \
        to_yaml(_dpo(tiny_cfg, tmp_path, json_pairs()))
    assert "# learning_rate: 0.0005 (the studio's rate with the term)" in \
        to_yaml(_dpo(tiny_cfg, tmp_path, json_pairs(), learning_rate=5e-5))
    cfg = _dpo(tiny_cfg, tmp_path, json_pairs(), loss_type="sigmoid+sft")
    text = to_yaml(cfg)
    assert "Loss type auto" not in text
    assert "loss_type:\n- sigmoid\n- sft" in text and "loss_weights:\n- 1.0\n- 1.0" in text
    path = tmp_path / "dpo.yaml"
    path.write_text(text)
    assert RunConfig.from_yaml(path).loss_type == "sigmoid+sft"
