"""Every list of settings the studio needs, derived from RunConfig's field metadata
(config/fields.py), so that a setting is written once: the Train tab's panels, the
settings the plan is made again for, the settings Fit may change, where each goes in
TRL, the model card's table, and the API's description of the settings. A new field
with its metadata appears in all of them with no other edit. Knows nothing of Gradio,
torch or TRL.
"""
from __future__ import annotations

import dataclasses
import typing

from sft_ui.config.fields import RunConfig
from sft_ui.config.setting import TRL_DESTINATIONS, panel_titles
from sft_ui.config.values import applies_field, choices
from sft_ui.stages import names as stage_list


class Panel(typing.NamedTuple):
    group: str
    title: str
    names: list[str]
    advanced: bool  # every field in it is advanced


def fields() -> list[dataclasses.Field]:
    """RunConfig's fields in their written order (read when called: a test may install
    a RunConfig with one more field)."""
    return list(dataclasses.fields(RunConfig))


def field(name: str) -> dataclasses.Field:
    """One of RunConfig's fields by name."""
    return next(f for f in fields() if f.name == name)


def panels() -> list[Panel]:
    """The Train tab's panels in page order, each with its settings in written order."""
    out = []
    for group, title in panel_titles().items():
        chosen = [f for f in fields() if f.metadata["group"] == group]
        if chosen:
            out.append(Panel(group, title, [f.name for f in chosen],
                             all(f.metadata["advanced"] for f in chosen)))
    return out


def plan_inputs(when: str) -> list[str]:
    """The settings the plan is made again for: "change" (on every change) or "leave"
    (typed boxes, when the box is left)."""
    return [f.name for f in fields() if f.metadata["plan"] == when]


def fit_names() -> list[str]:
    """The settings Fit may change: this machine's batch and accumulation, and for a GPU
    (a target's, or this machine's) also the way to train, max_length and activation
    checkpointing."""
    return [f.name for f in fields() if f.metadata["fit"]]


def applies(name: str, stage: str) -> bool:
    """Whether setting `name` applies to a run of `stage` (the others are hidden in the
    panels and ignored by the run)."""
    return applies_field(field(name), stage)


def stage_names(stage: str) -> list[str]:
    """The settings that apply to a run of `stage`."""
    return [f.name for f in fields() if applies_field(f, stage)]


def for_stage(cfg):
    """cfg with every setting that does not apply to its stage at its default: what a run
    of that stage reads (a hidden time budget or packing changes nothing)."""
    defaults = RunConfig()
    hidden = {f.name: getattr(defaults, f.name) for f in fields()
              if not applies_field(f, cfg.stage) and getattr(cfg, f.name) !=
              getattr(defaults, f.name)}
    return dataclasses.replace(cfg, **hidden) if hidden else cfg


def trl_names(destination: str | None = None, stage: str | None = None) -> list[str]:
    """Settings that TRL reads (into one of TRL_DESTINATIONS, or any of them), for a
    run of `stage` (or of any stage)."""
    assert destination in (None, *TRL_DESTINATIONS)
    return [f.name for f in fields() if f.metadata["trl"] and
            destination in (None, f.metadata["trl"]) and
            (stage is None or applies_field(f, stage))]


def studio_names() -> list[str]:
    """The studio's own settings (TRL ignores them in a settings file)."""
    return [f.name for f in fields() if not f.metadata["trl"]]


def code_names() -> tuple[str, ...]:
    """The settings that hold Python to run (`code`: access.py allows it or not)."""
    return tuple(f.name for f in fields() if f.metadata["code"])


def card_names(cfg) -> list[str]:
    """The rows of the model card's settings table for cfg (LoRA's only with LoRA on,
    the stage's own only)."""
    return [f.name for f in fields() if f.metadata["card"] and applies_field(f, cfg.stage)
            and (cfg.use_peft or not f.name.startswith("lora_"))]


def describe() -> list[dict]:
    """Every setting for the API: name, type, default, label, help, panel, bounds (with
    min_exclusive: the value must be above min), choices, where it goes in TRL and the
    stages it applies to."""
    defaults, titles = RunConfig(), panel_titles()
    return [{"name": f.name, "type": _type_name(f), "default": getattr(defaults, f.name),
             "label": f.metadata["label"], "help": f.metadata["help"],
             "panel": titles[f.metadata["group"]], "advanced": f.metadata["advanced"],
             "min": f.metadata["min"], "min_exclusive": f.metadata["min_exclusive"],
             "max": f.metadata["max"], "choices": choices(f), "trl": f.metadata["trl"],
             "stages": [s for s in stage_list() if applies_field(f, s)]}
            for f in fields()]


def _type_name(f: dataclasses.Field) -> str:
    kind = str(f.type)
    return "bool or null (auto)" if "Optional[bool]" in kind else \
        {"list": "list of strings", "str": "string"}.get(kind, kind)
