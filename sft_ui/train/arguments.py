"""RunConfig -> TRL's arguments on this machine: config/trl.py's translation with the
choices plan/kernels.py makes for the hardware (precision, optimizer, Liger kernels;
a set value wins). Used by the engine (SFTConfig and the LoRA config of a run) and by
the recipe (the YAML `trl sft` reads, the Python script, the command line).
Imports no TRL: the recipe writes files without it.
"""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.config.registry import trl_names
from sft_ui.config.trl import flat, translate
from sft_ui.config.values import derived_trl_keys
from sft_ui.plan import hardware, kernels


def to_trl(cfg: RunConfig, has_eval: bool | None = None) -> dict[str, dict]:
    """{"script": ScriptArguments, "model": ModelConfig, "train": the stage's training
    arguments} keyword values for cfg on this machine. `has_eval`: as
    config.trl.translate."""
    out = translate(cfg, has_eval)
    training = out["train"]
    # TRL's own defaults are bf16 on and fused AdamW, whatever the hardware: wrong on a
    # CPU without fast bf16 and on a T4. plan/kernels.py decides for this machine (a set
    # value wins).
    hw = hardware.detect()
    chosen = kernels.choose(cfg, hw)
    mixed = chosen["precision"].value
    training["bf16"], training["fp16"] = mixed == "bf16", mixed == "fp16"
    training["optim"] = chosen["optim"].value
    training["use_liger_kernel"] = chosen["use_liger_kernel"].value
    if hw.device == "cpu":
        training["use_cpu"] = True  # transformers refuses bf16 without a GPU otherwise
    assert set(flat(out)) <= {*trl_names(), *derived_trl_keys()}  # a file reads back
    return out
