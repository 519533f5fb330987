"""Preference runs (DPO, ORPO, KTO) through the studio's engine and run manager: each
stage trains and logs its rewards, the reference model is the one the settings name
(the starting model with no second copy where TRL allows), a finished SFT run continues
into DPO with its LoRA adapter trained on, Stop and Resume keep one series, and chat and
export read the result like an SFT run's."""
from __future__ import annotations

import json
import math
import shutil

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer

from sft_ui.chat import ChatService, GenSettings
from sft_ui.config import RunConfig
from sft_ui.runs import RunManager
from sft_ui.runs.checkpoints import latest_checkpoint
from sft_ui.runs.run import base_model_name
from sft_ui.share.export import export_run
from sft_ui.train.engine import train
from sft_ui.train.events import MODEL_SUBDIR, NullSink
from tests.conftest import wait_for

REWARDS = ("rewards/chosen", "rewards/rejected", "rewards/margins", "rewards/accuracies")


class Recorder(NullSink):
    """The records a run logs; asks to stop after `stop_after` logged steps."""

    def __init__(self, stop_after: int | None = None):
        super().__init__()
        self.records, self.stop_after = [], stop_after

    def add_metrics(self, record):
        self.records.append(record)

    def stop_requested(self):
        return self.stop_after is not None and len(self.steps()) >= self.stop_after

    def steps(self) -> list[dict]:
        return [r for r in self.records if "loss" in r]


def _cfg(tiny_cfg, **extra) -> RunConfig:
    values = {**tiny_cfg, "dataset_name": "demo-preference", "stage": "dpo",
              "sample_steps": 0, "learning_rate": 5e-3, "max_steps": 3, **extra}
    return RunConfig.from_dict(values)


def _finished(manager, run_id):
    snap = manager.get(run_id).snapshot()
    return snap if snap["state"] not in ("queued", "running") else None


@pytest.mark.parametrize("stage,lora", [("dpo", True), ("dpo", False), ("orpo", True),
                                        ("kto", True)])
def test_each_stage_trains_and_logs_its_rewards(tmp_path, tiny_cfg, stage, lora):
    sink = Recorder()
    out = train(_cfg(tiny_cfg, stage=stage, use_peft=lora, per_device_train_batch_size=4),
                tmp_path / "run", sink)
    steps = sink.steps()
    assert [r["step"] for r in steps] == [1, 2, 3]
    # KTO logs the rewards of the batch's good and bad answers (a batch may hold one
    # kind only) and its KL estimate; DPO and ORPO the pairs' margins and accuracy.
    logged = ("kl",) if stage == "kto" else REWARDS
    for record in steps:
        assert all(math.isfinite(record[k]) for k in ("loss", *logged)), record
    rewards = [r[k] for r in steps for k in REWARDS[:2] if k in r]
    assert rewards and all(math.isfinite(v) for v in rewards)
    if stage == "kto":  # good and bad answers reach it interleaved: every batch has both
        assert all("rewards/margins" in r for r in steps), steps
    else:  # a share of the batch's 4 pairs
        assert all((4 * r["rewards/accuracies"]).is_integer() for r in steps), steps
    if stage == "orpo":  # reference-free log-probs: nonzero at once, moved by training
        assert steps[-1]["rewards/margins"] != steps[0]["rewards/margins"]
    elif stage == "dpo":
        assert steps[-1]["rewards/margins"] != 0  # the policy moved from the reference
    if stage == "dpo":  # the reference is the starting model: no margin at the first step
        assert steps[0]["rewards/margins"] == 0 and steps[0]["rewards/chosen"] == 0
    weights = "adapter_model.safetensors" if lora else "model.safetensors"
    assert (out / weights).exists() and not (out / "ref").exists()
    log = (tmp_path / "run" / "train.log").read_text()
    assert f"Training ({stage.upper()})" in log and "reference model:" in log


def test_a_finished_sft_run_continues_into_dpo(tmp_path, tiny_cfg, tiny_model_dir):
    """SFT with LoRA, then DPO from its model folder: the SFT adapter trains on (its
    frozen copy is the reference, so the first step has no margin), the saved adapter
    sits on the same base, and a full fine-tune from it merges the adapter first."""
    sft = RunConfig.from_dict({**tiny_cfg, "use_peft": True, "lora_r": 4, "lora_alpha": 8,
                               "learning_rate": 5e-3, "max_steps": 3, "sample_steps": 0})
    sft_model = train(sft, tmp_path / "sft", Recorder())
    before = load_file(sft_model / "adapter_model.safetensors")

    sink = Recorder()
    dpo = _cfg(tiny_cfg, model_name_or_path=str(sft_model), use_peft=True, lora_r=4,
               lora_alpha=8)
    out = train(dpo, tmp_path / "dpo", sink)
    assert sink.steps()[0]["rewards/margins"] == 0  # the reference is the SFT adapter
    assert "frozen copy of the finished run's LoRA adapter" in \
        (tmp_path / "dpo" / "train.log").read_text()
    after = load_file(out / "adapter_model.safetensors")
    assert after.keys() == before.keys() and not (out / "ref").exists()
    assert any(not torch.equal(after[k], before[k]) for k in after)  # trained on
    config = json.loads((out / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == tiny_model_dir  # not the SFT folder

    full = train(_cfg(tiny_cfg, model_name_or_path=str(sft_model), use_peft=False),
                 tmp_path / "full", first := Recorder())
    assert first.steps()[0]["rewards/margins"] == 0  # the reference: the merged SFT model
    assert (full / "model.safetensors").exists()

    other = Recorder()  # a reference named in the settings: the base, not the SFT model
    train(_cfg(tiny_cfg, model_name_or_path=str(sft_model), use_peft=True,
               ref_model=tiny_model_dir, max_steps=1), tmp_path / "ref", other)
    assert other.steps()[0]["rewards/margins"] != 0


def test_a_run_from_a_finished_run_names_that_runs_base(tmp_path):
    """An adapter trained on from a finished LoRA run is exported (and carded) against
    the base that run named, not against the run's folder."""
    sft = tmp_path / "runs" / "sft"
    (sft / MODEL_SUBDIR).mkdir(parents=True)
    (sft / "config.yaml").write_text(RunConfig(model_name_or_path="owner/base").to_yaml())
    (sft / MODEL_SUBDIR / "adapter_config.json").write_text(
        json.dumps({"base_model_name_or_path": "/this/machine/copy"}))
    dpo = RunConfig(stage="dpo", model_name_or_path=str(sft / MODEL_SUBDIR))
    assert base_model_name(dpo) == "owner/base"
    (sft / "config.yaml").unlink()  # a folder outside the runs: the adapter's own base
    assert base_model_name(dpo) == "/this/machine/copy"
    assert base_model_name(RunConfig()) == RunConfig().model_name_or_path


def test_stop_and_resume_keep_one_series(tmp_path, tiny_cfg):
    cfg = _cfg(tiny_cfg, max_steps=4, use_peft=True)
    first = Recorder(stop_after=2)
    train(cfg, tmp_path / "run", first)
    checkpoint = latest_checkpoint(tmp_path / "run")
    assert checkpoint is not None and checkpoint.name == "checkpoint-2"
    rest = Recorder()
    train(cfg, tmp_path / "run", rest, resume_from=checkpoint)
    assert [r["step"] for r in first.steps()] == [1, 2]
    assert [r["step"] for r in rest.steps()] == [3, 4]


def test_a_preference_run_chats_compares_and_exports(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "stage": "dpo", "dataset_name": "demo-preference",
                            "use_peft": True, "max_steps": 2, "sample_steps": 2})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    assert any("rewards/accuracies" in m for m in snap["metrics"])
    assert snap["samples"]  # samples as in an SFT run
    chat = ChatService(manager)
    for ref in (run_id, f"{run_id}/base"):
        assert list(chat.stream("Hello", [], ref, GenSettings(max_new_tokens=4)))
    merged = export_run(manager.get(run_id), merged=True)
    assert (merged / "model.safetensors").exists()
    assert (tmp_path / "runs" / run_id / MODEL_SUBDIR / "adapter_config.json").exists()


def test_bad_preference_settings_are_refused_before_a_run(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path / "runs")
    with pytest.raises(Exception, match="'demo' is SFT's built-in set, not DPO's"):
        manager.start({**tiny_cfg, "stage": "dpo", "dataset_name": "demo"})
    with pytest.raises(Exception, match="KTO compares answers within a batch"):
        manager.start({**tiny_cfg, "stage": "kto", "dataset_name": "demo-preference",
                       "per_device_train_batch_size": 1})
    with pytest.raises(Exception, match="not one of DPO's"):
        manager.start({**tiny_cfg, "stage": "dpo", "dataset_name": "demo-preference",
                       "loss_type": "kto"})
    # A named reference model is checked before the run folder exists: it must exist,
    # load, and read the trained model's vocabulary.
    pairs = {**tiny_cfg, "stage": "dpo", "dataset_name": "demo-preference"}
    with pytest.raises(Exception, match="Reference model: .*holds no config.json"):
        manager.start({**pairs, "ref_model": str(tmp_path)})
    other = tmp_path / "other-vocabulary"
    shutil.copytree(tiny_cfg["model_name_or_path"], other)
    tokenizer = AutoTokenizer.from_pretrained(other)
    tokenizer.add_tokens(["<a-token-of-its-own>"])
    tokenizer.save_pretrained(other)
    with pytest.raises(Exception, match="reads another vocabulary than the trained model"):
        manager.start({**pairs, "ref_model": str(other)})
    assert not list((tmp_path / "runs").glob("*/config.yaml"))


@pytest.mark.parametrize("stage", ["dpo", "kto"])
def test_a_preference_run_reports_held_out_pairs(tmp_path, tiny_cfg, stage):
    """A held-out fraction of the pairs is evaluated: reward accuracy (DPO) and margins of
    pairs it never trained on, logged beside the training batches'."""
    from sft_ui.data.preference_demo import preference_demo_rows
    from sft_ui.ui import live_view
    sink = Recorder()
    train(_cfg(tiny_cfg, stage=stage, use_peft=True, per_device_train_batch_size=4,
               eval_fraction=0.25, eval_steps=3, max_steps=3), tmp_path / "run", sink)
    evals = [r for r in sink.records if "eval_loss" in r]
    assert evals and math.isfinite(evals[-1]["eval_rewards/margins"]), sink.records
    if stage == "dpo":
        assert 0 <= evals[-1]["eval_rewards/accuracies"] <= 1
        frame = live_view.accuracy_frame({"metrics": sink.records})
        assert set(frame["series"]) == {"accuracy", "eval accuracy"}
    log = (tmp_path / "run" / "train.log").read_text()
    held = round(0.25 * len(preference_demo_rows()))
    assert f"Eval: {held} rows held out (seed 42)." in log
