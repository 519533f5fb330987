"""RunConfig -> TRL's argument names: the one translation of the settings, before this
machine's choices (train/arguments.py adds those: precision, optimizer, Liger, use_cpu).

Each setting goes where its field's `trl` metadata says (config/fields.py), under its
own name; only the settings whose studio form differs from TRL's are converted here
(training for epochs, "off" written as 0, lists written as text). Imports no TRL: the
recipe writes files without it, and the data's tokenization (data/tokens.py) reads it.
"""
from __future__ import annotations

from sft_ui.config.fields import TRL_DESTINATIONS, RunConfig
from sft_ui.config.registry import field, trl_names

# What every SFTConfig the studio builds carries besides the settings: the column
# data/formats.py puts plain text in, and no progress bars (the run's log has the steps).
STUDIO_SFT_ARGUMENTS = {"dataset_text_field": "text", "disable_tqdm": True}
# The settings whose value this machine decides ("auto", or a default that depends on
# the hardware): left out here, set by train/arguments.py.
MACHINE_CHOICES = ("bf16", "fp16", "optim", "use_liger_kernel")


def has_eval_data(cfg: RunConfig) -> bool:
    """Whether a run of cfg has eval data: a held-out fraction, an eval dataset or split."""
    return cfg.eval_fraction > 0 or bool(cfg.eval_dataset_name.strip()
                                         or cfg.dataset_test_split.strip())


def translate(cfg: RunConfig, has_eval: bool | None = None) -> dict[str, dict]:
    """{"script": ScriptArguments, "model": ModelConfig, "sft": SFTConfig} keyword values
    for cfg, except MACHINE_CHOICES. `has_eval`: whether the trainer gets eval data
    (default: cfg names some; `trl sft` itself reads only dataset_test_split)."""
    out = {dest: {} for dest in TRL_DESTINATIONS}
    for name in trl_names():
        if name not in MACHINE_CHOICES:
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
    return out


def flat(args: dict[str, dict]) -> dict:
    """The three parts as one mapping: a `trl sft` settings file."""
    return {k: v for part in args.values() for k, v in part.items()}
