"""How long a run trains, one rule for the page, YAML, the API, the command line, sweeps and
the queue: epochs given train epochs, steps given train steps, neither the default (or a
time budget's fit), and a length given but unused is said. Knows nothing of torch, TRL or
Gradio.
"""
from __future__ import annotations

import dataclasses

from sft_ui.i18n.message import Message

AUTO = "auto"  # train_by's default: decided from the values given (`decide`)
DEFAULT_STEPS, DEFAULT_EPOCHS = 30, 1.0  # max_steps' and num_train_epochs' defaults
NAMES = ("train_by", "max_steps", "num_train_epochs")  # the settings of a run's length


def decide(train_by: str, max_steps: int, epochs: float) -> str:
    """`train_by` as it trains: itself where given, else steps where max_steps was given
    (epochs too: steps win, as in TRL), epochs where only epochs were, steps (max_steps'
    default) where neither was. TRL's own rule, read from the values that differ from
    their defaults."""
    if train_by != AUTO:
        return train_by
    if max_steps != DEFAULT_STEPS:
        return "steps"
    return "epochs" if epochs != DEFAULT_EPOCHS else "steps"


def given(cfg) -> bool:
    """Whether cfg's length is a person's (not the defaults): a budget then only stops it."""
    return (cfg.train_by, cfg.max_steps, cfg.num_train_epochs) != \
        ("steps", DEFAULT_STEPS, DEFAULT_EPOCHS)


def changed(cfg, **values):
    """cfg with `values`, where a length among them trains: epochs given train epochs,
    steps given train steps (both: steps, as TRL), unless `train_by` is among them."""
    if "train_by" not in values:
        if "max_steps" in values:
            values["train_by"] = "steps"
        elif "num_train_epochs" in values:
            values["train_by"] = "epochs"
    return dataclasses.replace(cfg, **values)


def of(cfg) -> Message:
    """cfg's length as a person reads it ("30 steps", "3 epochs")."""
    if cfg.train_by == "epochs":
        return Message("{epochs} epochs", epochs=f"{cfg.num_train_epochs:g}")
    return Message("{steps} steps", steps=f"{cfg.max_steps:,}")


def said(cfg) -> Message | None:
    """The sentence that says which length trains where another was given too (None:
    nothing left unused)."""
    if cfg.train_by == "steps" and cfg.num_train_epochs != DEFAULT_EPOCHS:
        return Message("Length: {steps} steps (Train for: steps); the {epochs} epochs set "
                       "are not used. To train by epochs, choose Train for: epochs.",
                       steps=f"{cfg.max_steps:,}", epochs=f"{cfg.num_train_epochs:g}")
    if cfg.train_by == "epochs" and cfg.max_steps != DEFAULT_STEPS:
        return Message("Length: {epochs} epochs (Train for: epochs); the {steps} max steps "
                       "set are not used. To train by steps, choose Train for: steps.",
                       epochs=f"{cfg.num_train_epochs:g}", steps=f"{cfg.max_steps:,}")
    return None
