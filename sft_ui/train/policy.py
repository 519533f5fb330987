"""The model a run trains, from what it loaded: a new LoRA adapter on a model, a finished
LoRA run's adapter trained on (its folder loads as a peft model: stacked, not merged), or
every weight (a finished run's adapter merged into its base first). Used by the SFT and
the preference trainers alike (train/engine.py, train/preference.py).
"""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.plan.loading import peft_config

ADAPTER = "default"  # the name peft gives a loaded adapter


def is_adapter(model) -> bool:
    """Whether `model` is a peft model (a finished LoRA run's folder loads as one)."""
    return hasattr(model, "peft_config") and hasattr(model, "merge_and_unload")


def policy(cfg: RunConfig, model, log) -> tuple:
    """(the model to train, the LoRA config for the trainer or None); the run's log says
    which."""
    if cfg.use_peft and is_adapter(model):
        for name, parameter in model.named_parameters():
            parameter.requires_grad = f".{ADAPTER}." in name and "lora_" in name
        log.info("Trains the finished run's LoRA adapter on")
        return model, None
    if cfg.use_peft:
        return model, peft_config(cfg)
    if is_adapter(model):
        merged = model.merge_and_unload()
        for parameter in merged.parameters():  # peft froze the base it loaded
            parameter.requires_grad = True
        log.info("Trains every weight, the finished run's LoRA adapter merged in first")
        return merged, None
    return model, None
