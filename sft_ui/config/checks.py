"""What is wrong with a RunConfig: every value outside its field's range or choices, and
the combinations that cannot train, each as one readable line with the fix.
"""
from __future__ import annotations

import dataclasses

from sft_ui.config.values import applies_field, choices, field_label, shorten
from sft_ui.i18n.message import Message
from sft_ui.stages import demos, get, hook


def problems(cfg) -> list[str]:
    """Readable messages for every bad value or combination of `cfg`; empty when fine."""
    errors: list[str] = []
    for f in dataclasses.fields(cfg):
        if not applies_field(f, cfg.stage):
            continue  # another stage's setting: hidden and ignored
        value, lo, hi = getattr(cfg, f.name), f.metadata["min"], f.metadata["max"]
        label = field_label(f)
        if value is None:  # an Optional field on auto
            continue
        if lo is not None and f.metadata["min_exclusive"] and value <= lo:
            errors.append(Message("{label} must be greater than {low} (got {value}).",
                                  label=label, low=lo, value=shorten(value, str)))
        elif lo is not None and value < lo:
            errors.append(Message("{label} must be at least {low} (got {value}).", label=label,
                                  low=lo, value=shorten(value, str)))
        if hi is not None and value > hi:
            errors.append(Message("{label} must be at most {high} (got {value}).", label=label,
                                  high=hi, value=shorten(value, str)))
        picked = value if isinstance(value, list) else [value]  # a list picks several
        allowed = choices(f)
        if allowed and any(v not in allowed for v in picked):
            wrong = [v for v in picked if v not in allowed]
            errors.append(Message("{label} must be one of {choices} (got {value}).",
                                  label=label, choices=", ".join(allowed),
                                  value=shorten(wrong[0] if isinstance(value, list) else value)))
    if not cfg.model_name_or_path.strip():
        errors.append(Message("Model is empty: enter a Hub id or a local folder."))
    if not cfg.dataset_name.strip():
        errors.append(Message("Dataset is empty: enter 'demo', a Hub id or a file path."))
    if cfg.sample_steps and not [p for p in cfg.sample_prompts if p.strip()]:
        errors.append(Message("Samples are on but there are no sample prompts: "
                              "add a prompt or set sample_steps to 0."))
    errors += _stage_problems(cfg)
    if cfg.eval_fraction > 0 and (cfg.eval_dataset_name.strip()
                                   or cfg.dataset_test_split.strip()):
        errors.append(Message("Choose one source of eval data: an eval dataset or split, "
                              "or a held-out eval fraction, not both."))
    stage = get(cfg.stage)
    own = hook(stage, "checks") if stage else None  # its family's own combinations
    if own:
        errors += own(cfg)
    if cfg.warmup_steps >= 1 and cfg.warmup_steps != int(cfg.warmup_steps):
        errors.append(Message("warmup_steps ({warmup}) must be a whole number of steps, or "
                              "a fraction below 1.", warmup=f"{cfg.warmup_steps:g}"))
    if cfg.train_by == "steps" and cfg.warmup_steps >= max(cfg.max_steps, 1):
        errors.append(Message("warmup_steps ({warmup}) must be smaller than max_steps "
                              "({max_steps}).", warmup=f"{cfg.warmup_steps:g}",
                              max_steps=cfg.max_steps))
    if cfg.save_strategy == "steps" and cfg.save_total_limit and not cfg.save_steps:
        errors.append(Message("Keep at most N checkpoints is set but no checkpoints are "
                              "saved: set Save every N steps (save_steps) above 0."))
    if cfg.bf16 and cfg.fp16:
        errors.append(Message("bf16 and fp16 are both on: choose one mixed precision (or "
                              "leave both on auto)."))
    if cfg.load_in_4bit and not cfg.use_peft:
        errors.append(Message("Load the base in 4 bits (QLoRA) trains a LoRA adapter on the "
                              "frozen 4-bit model: turn on Use LoRA too."))
    if cfg.use_peft and not cfg.lora_target_modules.strip():
        errors.append(Message("LoRA is on but LoRA target modules is empty: use 'all-linear' "
                              "or module names such as q_proj,v_proj."))
    return errors


def sft_data_problems(cfg) -> list[str]:
    """The combinations an SFT run's data settings cannot read."""
    errors: list[str] = []
    if not cfg.dataset_text_field.strip():
        errors.append(Message("Text field is empty: name the column that holds the text "
                              "(usually 'text')."))
    if cfg.dataset_format == "template" and not cfg.dataset_template.strip():
        # (its braces are the placeholders the person writes: kept as they are)
        errors.append(Message("Data format is 'template' but the template is empty: write "
                              "one with {column} placeholders, e.g. 'Q: {question}\nA: "
                              "{answer}'.", column="{column}", question="{question}",
                              answer="{answer}"))
    return errors


def _stage_problems(cfg) -> list[str]:
    """The combinations a stage cannot train: another kind of stage's demo set, a loss its
    trainer does not know, a batch below its minimum (KTO's of one)."""
    stage, name = get(cfg.stage), cfg.dataset_name.strip()
    if stage is None:
        return []  # the Stage setting's choices say it
    other = demos().get(name)
    errors: list[str]
    if other and other.family != stage.family:
        errors = [Message("'{name}' is {other}'s built-in set, not {stage}'s: for {stage2} "
                          "choose '{demo}' or a file of {columns} rows; for '{name2}' choose "
                          "the stage {other_name}.", name=name, other=other.title,
                          stage=stage.title, stage2=stage.title, demo=stage.demo,
                          columns=stage.columns, name2=name, other_name=other.name)]
    else:
        errors = []
    if stage.losses and cfg.loss_type not in stage.loss_choices():
        errors.append(Message("Loss type {loss_type} is not one of {stage}'s: choose {join}.",
                              loss_type=cfg.loss_type, stage=stage.title,
                              join=", ".join(stage.loss_choices())))
    # (a stage whose minimum is 1 compares nothing within a batch: its batch's own range
    # says what is wrong with 0)
    if stage.min_batch > 1 and cfg.per_device_train_batch_size < stage.min_batch:
        errors.append(Message("{stage} compares answers within a batch: set Batch size per "
                              "device to {n} or more.", stage=stage.title, n=stage.min_batch))
    return errors
