"""RunConfig -> TRL's arguments: the one translation, used by the engine (SFTConfig and
the LoRA config of a run) and by the recipe (the YAML `trl sft` reads, the Python
script, the command line).

Each setting goes where its field's `trl` metadata says (config/fields.py), under its
own name; only the settings whose studio form differs from TRL's are converted here
(training for epochs, "off" written as 0, precision "auto" resolved on this machine).
Imports no TRL: the recipe writes files without it.
"""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.config.fields import TRL_DESTINATIONS
from sft_ui.config.registry import field, trl_names
from sft_ui.config.values import DERIVED_TRL_KEYS


def has_eval_data(cfg: RunConfig) -> bool:
    """Whether a run of cfg has eval data: a held-out fraction, an eval dataset or split."""
    return cfg.eval_fraction > 0 or bool(cfg.eval_dataset_name.strip()
                                         or cfg.dataset_test_split.strip())


def to_trl(cfg: RunConfig, has_eval: bool | None = None) -> dict[str, dict]:
    """{"script": ScriptArguments, "model": ModelConfig, "sft": SFTConfig} keyword values
    for cfg on this machine. `has_eval`: whether the trainer gets eval data (default: cfg
    names some; `trl sft` itself reads only dataset_test_split)."""
    from sft_ui.plan import kernels
    from sft_ui.plan.hardware import detect
    out = {dest: {} for dest in TRL_DESTINATIONS}
    for name in trl_names():
        out[field(name).metadata["trl"]][name] = getattr(cfg, name)
    script, model, sft = out["script"], out["model"], out["sft"]
    script["dataset_config"] = cfg.dataset_config or None
    script["dataset_test_split"] = cfg.dataset_test_split.strip() or None
    targets = cfg.lora_target_modules.strip()
    if targets != "all-linear":
        model["lora_target_modules"] = [t.strip() for t in targets.split(",") if t.strip()]
    if cfg.train_by == "epochs":
        sft["max_steps"] = -1
    if cfg.warmup_steps >= 1:
        sft["warmup_steps"] = int(cfg.warmup_steps)
    sft["neftune_noise_alpha"] = cfg.neftune_noise_alpha or None
    sft["hub_model_id"] = cfg.hub_model_id.strip() or None
    if cfg.save_strategy == "steps" and not cfg.save_steps:
        sft["save_strategy"], sft["save_steps"] = "no", 500  # Stop still writes a checkpoint
    sft["save_total_limit"] = cfg.save_total_limit or None
    sft["report_to"] = [r.strip() for r in cfg.report_to.split(",") if r.strip()
                        and r.strip() != "none"] or "none"
    if not (has_eval_data(cfg) if has_eval is None else has_eval):
        sft["eval_strategy"] = "no"
    sft["per_device_eval_batch_size"] = cfg.per_device_train_batch_size
    # TRL's own defaults are bf16 on and fused AdamW, whatever the hardware: wrong on a
    # CPU without fast bf16 and on a T4. plan/kernels.py decides for this machine (a set
    # value wins).
    hw = detect()
    chosen = kernels.choose(cfg, hw)
    mixed = chosen["precision"].value
    sft["bf16"], sft["fp16"] = mixed == "bf16", mixed == "fp16"
    sft["optim"] = chosen["optim"].value
    sft["use_liger_kernel"] = chosen["use_liger_kernel"].value
    if hw.device == "cpu":
        sft["use_cpu"] = True  # transformers refuses bf16 without a GPU otherwise
    assert set(flat(out)) <= {*trl_names(), *DERIVED_TRL_KEYS}  # a file reads back
    return out


def flat(args: dict[str, dict]) -> dict:
    """to_trl's three parts as one mapping: a `trl sft` settings file."""
    return {k: v for part in args.values() for k, v in part.items()}
