"""A setting and everything said of it once (`setting`), the Train tab's panels, and how
declared settings (the common ones and each family's own) become RunConfig's fields in page
order. Knows nothing of torch, TRL or Gradio.
"""
from __future__ import annotations

import typing
from dataclasses import Field, field

from sft_ui.stages import families, setting_tags

# The common panels of the Train tab, in page order (the first open): a setting's `group`
# names its panel. A family's own panel (Family.panel) comes after "data", in the order
# the families were registered.
COMMON_PANELS = {"start": "Model and data", "model": "Model", "data": "Dataset",
                 "batch": "Batch and time", "optim": "Optimizer",
                 "log": "Logging, checkpoints and samples", "eval": "Eval data",
                 "hardware": "Precision and memory", "lora": "LoRA",
                 "where": "Where it trains"}
# Where a setting goes in TRL: ScriptArguments, ModelConfig, and the stage's training
# arguments (SFTConfig, DPOConfig, ORPOConfig or KTOConfig).
TRL_DESTINATIONS = ("script", "model", "train")


def panel_titles() -> dict[str, str]:
    """Every panel's key and English title, in page order."""
    common = list(COMMON_PANELS.items())
    at = [key for key, _ in common].index("data") + 1
    own = [f.panel for f in families() if f.panel]
    return dict(common[:at] + own + common[at:])


def setting(default, help, group, minimum=None, maximum=None, choices=None, label=None,
            trl=None, plan="", card=False, advanced=False, min_exclusive=False, fit=False,
            stages=None, code=False, sweep=False) -> typing.Any:
    """A setting and everything said of it once (config/registry.py derives the rest):
    help text, bounds, choices and label (widgets and checks; `min_exclusive`: the value
    must be greater than `minimum`, not equal to it); `group`, the panel it is in
    (panel_titles()), and `advanced`, shown in a closed panel; `trl`, where it goes in TRL
    (TRL_DESTINATIONS; None: the studio's own); `plan`, whether the plan is made again
    when it changes ("change") or when its typed box is left ("leave"); `card`, a row
    of the model card's settings table; `fit`, Fit may change it (batch and accumulation
    for this machine's memory; for a GPU also the way to train, max_length and
    activation checkpointing: plan/planner.py and plan/modes.py decide which); `stages`,
    what stages it applies to (stages/base.py's setting_tags(): a family, or the stages with
    a reference model or loss types; None: every stage): under another stage the panels
    hide it and the run ignores it; `code`, a text of Python (a code box in the page; it
    runs only where access.py allows code); `sweep`, a sweep may vary it
    (sweeps/space.py). `choices` may be a function (read when asked)."""
    assert group in panel_titles() and trl in (None, *TRL_DESTINATIONS), (group, trl)
    assert stages is None or set(stages) <= set(setting_tags())
    meta = {"help": help, "group": group, "min": minimum, "max": maximum,
            "min_exclusive": min_exclusive, "choices": choices, "label": label, "trl": trl,
            "plan": plan, "card": card, "advanced": advanced, "fit": fit,
            "stages": tuple(stages) if stages else None, "code": code, "sweep": sweep}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


def declared(cls) -> list[tuple[str, str, Field]]:
    """A class body of settings (annotated names, each a `setting`) as
    dataclasses.make_dataclass's fields, in written order; each type as its name, as a
    module with `from __future__ import annotations` writes it (config/values.py reads
    it so)."""
    return [(name, kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind)),
             cls.__dict__[name]) for name, kind in cls.__annotations__.items()]


def ordered(common: list, own: list) -> list:
    """`common`'s settings with each family's `own` (a list of declared lists, in the
    families' order) put where its panels are: each right before the first common setting
    of a panel that comes after its own in page order (a family's own panel: after the
    data settings), so the fields' order is the page's."""
    order = list(panel_titles())
    out = list(common)
    for settings in own:
        for item in settings:
            rank = order.index(item[2].metadata["group"])
            at = next((i for i, c in enumerate(out) if any(c is x for x in common)
                       and order.index(c[2].metadata["group"]) > rank), len(out))
            out.insert(at, item)
    return out
