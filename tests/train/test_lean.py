"""The lean CPU step (train/lean.py) trains as TRL's own SFTTrainer does: the same losses
on the same rows, padding-free batches, TRL's metrics at logging steps, TRL's path kept
where the lean step does not apply."""
import json

import pytest
import torch

from sft_ui.config import RunConfig
from sft_ui.data.tokens import load_training_data
from sft_ui.lazy import trl as _trl
from sft_ui.models import load_model_and_tokenizer
from sft_ui.train.engine import sft_config
from sft_ui.train.lean import studio_trainer


def _chat_file(tmp_path):
    """Chat rows of very different lengths: padding a batch to its longest row matters."""
    rows = []
    for i in range(16):
        answer = " ".join(["word"] * (2 + (i * 7) % 40))
        rows.append({"messages": [{"role": "user", "content": f"Question {i}?"},
                                  {"role": "assistant", "content": f"Answer {i}: {answer}"}]})
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _train(trainer_class, cfg: RunConfig, out, **overrides):
    model, tokenizer = load_model_and_tokenizer(cfg.model_name_or_path)
    train_set, _ = load_training_data(cfg, tokenizer).datasets()
    args = sft_config(cfg, out)
    for key, value in overrides.items():
        setattr(args, key, value)
    trainer = trainer_class(model=model, args=args, train_dataset=train_set,
                            processing_class=tokenizer)
    trainer.train()
    return trainer, [r for r in trainer.state.log_history if "loss" in r]


@pytest.fixture
def cfg(tmp_path, tiny_model_dir):
    return RunConfig.from_dict({
        "model_name_or_path": tiny_model_dir, "dataset_name": _chat_file(tmp_path),
        "max_steps": 4, "per_device_train_batch_size": 4, "gradient_accumulation_steps": 2,
        "max_length": 48, "learning_rate": 1e-3, "seed": 0, "sample_steps": 0,
        "bf16": False})


def test_lean_step_gives_the_losses_of_trls_step(cfg, tmp_path, monkeypatch):
    from sft_ui.train import lean as lean_module
    rows, original = [], lean_module.rows_attention
    monkeypatch.setattr(lean_module, "rows_attention",
                        lambda bounds: rows.append(bounds) or original(bounds))
    _, SFTTrainer = _trl()
    plain, plain_logs = _train(SFTTrainer, cfg, tmp_path / "plain")
    lean, lean_logs = _train(studio_trainer(SFTTrainer), cfg, tmp_path / "lean")
    assert lean.lean and lean.padding_free_batches
    # every micro-batch attended row by row: 4 rows, so 5 bounds
    assert len(rows) == 4 * 2 and all(len(b) == 5 and b[0] == 0 for b in rows)
    assert not getattr(plain.data_collator, "padding_free", False)
    assert len(lean_logs) == len(plain_logs) == 4
    for a, b in zip(plain_logs, lean_logs):
        # same rows, same order, same label count: the same loss up to float rounding
        assert b["loss"] == pytest.approx(a["loss"], rel=2e-4)
        assert b["mean_token_accuracy"] == pytest.approx(a["mean_token_accuracy"], abs=1e-6)
        assert b["entropy"] == pytest.approx(a["entropy"], rel=1e-3)
    # num_tokens counts real tokens only, padded or not
    assert lean_logs[-1]["num_tokens"] == plain_logs[-1]["num_tokens"]
    assert lean_logs[0]["loss"] != lean_logs[-1]["loss"]  # it trained


def test_lean_step_in_bf16_stays_close_to_trls_step(cfg, tmp_path):
    """bf16 autocast (what "auto" trains in on a CPU where bf16 pays) rounds the two
    paths differently; the curves stay within a fraction of a percent."""
    import dataclasses
    cfg = dataclasses.replace(cfg, bf16=True)
    _, SFTTrainer = _trl()
    _, plain_logs = _train(SFTTrainer, cfg, tmp_path / "plain")
    _, lean_logs = _train(studio_trainer(SFTTrainer), cfg, tmp_path / "lean")
    assert len(plain_logs) == len(lean_logs) == 4  # a record per step, compared
    for a, b in zip(plain_logs, lean_logs):
        assert b["loss"] == pytest.approx(a["loss"], rel=1e-2)


@pytest.mark.parametrize("every, logged, computed", [
    (2, [2, 4], [2, 2, 4, 4]),
    # the last step (not a logging one) too: its metrics go into the run's closing
    # record, as TRL's do
    (3, [3], [3, 3, 4, 4])])
def test_metrics_only_at_logging_steps_and_at_every_one(cfg, tmp_path, monkeypatch, every,
                                                        logged, computed):
    """The metrics are computed for each micro-batch (2 a step) of the steps that log, and
    of no other step: TRL's log() clears them, so the log records alone cannot tell."""
    from sft_ui.train import lean as lean_module
    steps, original = [], lean_module._log_metrics

    def counted(trainer, *args):
        steps.append(trainer.state.global_step + 1)  # the step under way
        return original(trainer, *args)
    monkeypatch.setattr(lean_module, "_log_metrics", counted)
    _, SFTTrainer = _trl()
    lean, logs = _train(studio_trainer(SFTTrainer), cfg, tmp_path / "lean",
                        logging_steps=every)
    assert [r["step"] for r in logs] == logged
    assert steps == computed
    for record in logs:
        assert 0.0 <= record["mean_token_accuracy"] <= 1.0 and record["entropy"] > 0
    closing = lean.state.log_history[-1]  # the last step's metrics, if no log took them
    assert "train_runtime" in closing
    assert ("mean_token_accuracy" in closing) == (logged[-1] != cfg.max_steps)
    assert not lean._metrics["train"]  # nothing left over for a log that never comes


def test_trls_own_step_where_the_lean_one_does_not_apply(cfg, tmp_path):
    """A custom loss (here DFT) keeps TRL's step and TRL's padded batches."""
    _, SFTTrainer = _trl()
    trainer, logs = _train(studio_trainer(SFTTrainer), cfg, tmp_path / "dft", max_steps=1)
    assert trainer.lean
    model, tokenizer = load_model_and_tokenizer(cfg.model_name_or_path)
    train_set, _ = load_training_data(cfg, tokenizer).datasets()
    args = sft_config(cfg, tmp_path / "dft2")
    args.loss_type = "dft"
    dft = studio_trainer(SFTTrainer)(model=model, args=args, train_dataset=train_set,
                                     processing_class=tokenizer)
    assert not dft.lean and not dft.padding_free_batches
    dft.train()
    assert any("loss" in r and r["loss"] == r["loss"] for r in dft.state.log_history)
    assert torch.isfinite(torch.tensor(logs[0]["loss"]))
