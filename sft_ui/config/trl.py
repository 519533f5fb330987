"""RunConfig -> TRL's argument names: the one translation of the settings, before this
machine's choices (train/arguments.py). Imports no TRL: the recipe writes files without it.
"""
from __future__ import annotations

from sft_ui.config.fields import RunConfig
from sft_ui.config.registry import field, trl_names
from sft_ui.config.setting import TRL_DESTINATIONS
from sft_ui.stages import hook, stage_of
from sft_ui.stages.preference import SFT_TERM

# What every SFTConfig the studio builds carries besides the settings: the column
# data/formats.py puts plain text in, and no progress bars (the run's log has the steps).
STUDIO_SFT_ARGUMENTS = {"dataset_text_field": "text", "disable_tqdm": True}
# The settings whose value this machine decides ("auto", or a default that depends on
# the hardware): left out here, set by train/arguments.py.
MACHINE_CHOICES = ("bf16", "fp16", "optim", "use_liger_kernel")


def has_eval_data(cfg: RunConfig) -> bool:
    """Whether a run of cfg has eval data: a held-out fraction, an eval dataset or split
    (for a stage that reads eval data: a preference run has none yet)."""
    return stage_of(cfg).eval_data and (cfg.eval_fraction > 0 or bool(
        cfg.eval_dataset_name.strip() or cfg.dataset_test_split.strip()))


def translate(cfg: RunConfig, has_eval: bool | None = None) -> dict[str, dict]:
    """{"script": ScriptArguments, "model": ModelConfig, "train": the stage's training
    arguments} keyword values for cfg, except MACHINE_CHOICES; the settings of other
    stages left out. `has_eval`: whether the trainer gets eval data (default: cfg names
    some; `trl sft` itself reads only dataset_test_split). Each setting goes where its
    field's `trl` metadata says, under its own name; only those whose studio form differs
    from TRL's are converted (epochs, "off" as 0, lists written as text, "auto" left to
    TRL)."""
    out: dict[str, dict] = {dest: {} for dest in TRL_DESTINATIONS}
    for name in trl_names(stage=cfg.stage):
        if name not in MACHINE_CHOICES:
            out[field(name).metadata["trl"]][name] = getattr(cfg, name)
    script, model, training = out["script"], out["model"], out["train"]
    script["dataset_config"] = cfg.dataset_config or None
    if "dataset_test_split" in script:
        script["dataset_test_split"] = cfg.dataset_test_split.strip() or None
    targets = cfg.lora_target_modules.strip()
    if targets != "all-linear":
        model["lora_target_modules"] = [t.strip() for t in targets.split(",") if t.strip()]
    if cfg.train_by == "epochs":
        training["max_steps"] = -1
    if cfg.warmup_steps >= 1:
        training["warmup_steps"] = int(cfg.warmup_steps)
    if "neftune_noise_alpha" in training:  # a stage that has it
        training["neftune_noise_alpha"] = cfg.neftune_noise_alpha or None
    if training.get("loss_type") == "auto":
        del training["loss_type"]
    elif training.get("loss_type") == SFT_TERM:  # TRL combines losses from a list
        training["loss_type"], training["loss_weights"] = SFT_TERM.split("+"), [1.0, 1.0]
    training["per_device_eval_batch_size"] = cfg.per_device_train_batch_size
    own = hook(cfg, "trl")  # the keys a family derives from its own settings
    if own:
        own(cfg, script, training)
    for name in ("desirable_weight", "undesirable_weight"):  # 0: auto (train/preference.py)
        if training.get(name) == 0:
            del training[name]
    training["hub_model_id"] = cfg.hub_model_id.strip() or None
    if cfg.save_strategy == "steps" and not cfg.save_steps:
        # Stop still writes a checkpoint
        training["save_strategy"], training["save_steps"] = "no", 500
    training["save_total_limit"] = cfg.save_total_limit or None
    training["report_to"] = [r.strip() for r in cfg.report_to.split(",") if r.strip()
                             and r.strip() != "none"] or "none"
    if not (has_eval_data(cfg) if has_eval is None else has_eval):
        training["eval_strategy"] = "no"
    return out


def flat(args: dict[str, dict]) -> dict:
    """The three parts as one mapping: a `trl sft` (or `trl dpo`, ...) settings file."""
    return {k: v for part in args.values() for k, v in part.items()}
