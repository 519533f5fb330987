"""The signature of each hook a family may name (stages/base.py's HOOKS): a Protocol each,
which `hook` and `family_hook` return, so the type checker holds every caller to it and
tests/stages/test_hooks.py holds every family's function to it. A setting's values come
as `cfg` (a RunConfig: this bottom layer does not import it).
"""
from __future__ import annotations

import importlib
from typing import Any, Literal, Protocol, overload

from sft_ui.stages.base import Family, family_of


class DataCheck(Protocol):  # backends: refuse data or settings before a run folder exists
    def __call__(self, cfg: Any, /) -> Any: ...


class Trainer(Protocol):  # train: the family's TRL trainer for cfg
    def __call__(self, cfg: Any, model: Any, tokenizer: Any, output_dir: Any,
                 callbacks: list, log: Any, /) -> Any: ...


class Preview(Protocol):  # data: the data as its trainer reads it
    def __call__(self, cfg: Any, tokenizer: Any, examples: int = ..., /) -> dict: ...


class Script(Protocol):  # share: the Python script of Show code
    def __call__(self, cfg: Any, output_dir: str, /) -> str: ...


class YamlNote(Protocol):  # share: a note at the top of the settings file
    def __call__(self, cfg: Any, command: str, /) -> str: ...


class Checks(Protocol):  # config: the combinations the family cannot train, as lines
    def __call__(self, cfg: Any, /) -> list: ...


class TrlKeys(Protocol):  # config: its TRL keys, changed in place
    def __call__(self, cfg: Any, script: dict, training: dict, /) -> None: ...


class Continued(Protocol):  # config: (cfg made trainable after Continue, a note or '')
    def __call__(self, cfg: Any, /) -> tuple: ...


class PlanSample(Protocol):  # plan: (lengths, rows, format, notes)
    def __call__(self, cfg: Any, tokenizer: Any, limit: int, /) -> tuple: ...


class Signal(Protocol):
    """runs: before a run trains, what its data and model call for (the person's cfg, the
    run's, its log, its folder): (the run's settings, a sentence per setting chosen); raises a
    UserError where training would learn nothing."""
    def __call__(self, person: Any, cfg: Any, log: Any, folder: Any = ..., /) -> tuple: ...


class FollowData(Protocol):
    """runs: Continue's data for the family from the data the earlier run trained on (its
    cfg, its folder): (a file written into that folder, a note), or None."""
    def __call__(self, cfg: Any, folder: Any, /) -> tuple | None: ...


class Stalled(Protocol):
    """runs: a run that learns nothing, read from its logged records (oldest first): a
    sentence saying so and what to do, or None."""
    def __call__(self, records: list[dict], cfg: Any = ..., /) -> Any: ...


class Sized(Protocol):
    """data: what the family sizes from its own data where cfg left it at its default:
    ({setting: value}, a sentence each)."""
    def __call__(self, cfg: Any, tokenizer: Any, /) -> tuple: ...


class Judge(Protocol):
    """sweeps: a sweep's score of an ended run on held-out data (eval file, run), for a
    family whose runs have no eval loss; higher is better."""
    def __call__(self, eval_file: str, run: Any, /) -> float | None: ...


class Settings(Protocol):
    """config: a class whose annotated names are the family's own settings, each a
    config/setting.py `setting`, in the order the YAML and the page show them."""
    def __call__(self) -> type: ...


class PlanNotes(Protocol):
    """plan: the plan's sentences on what a run of the family holds and does besides an
    SFT run (cfg, shape, hardware, prompt tokens)."""
    def __call__(self, cfg: Any, shape: Any, hw: Any, prompt_tokens: int | None = ...,
                 /) -> list: ...


class Try(Protocol):
    """actions: Test rewards before a run: the model's answers to a few prompts, scored by
    the run's rewards, nothing saved (cfg, how many prompts)."""
    def __call__(self, cfg: Any, prompts: int = ..., /) -> dict: ...


SIGNATURES: dict[str, type] = {
    "data_check": DataCheck, "trainer": Trainer, "preview": Preview, "script": Script,
    "yaml_note": YamlNote, "checks": Checks, "trl": TrlKeys, "continued": Continued,
    "plan_sample": PlanSample, "signal": Signal, "follow_data": FollowData,
    "stalled": Stalled, "sized": Sized, "judge": Judge, "settings": Settings,
    "plan_notes": PlanNotes, "try": Try,
}


@overload
def family_hook(family: Family, name: Literal["data_check"]) -> DataCheck: ...
@overload
def family_hook(family: Family, name: Literal["trainer"]) -> Trainer: ...
@overload
def family_hook(family: Family, name: Literal["preview"]) -> Preview: ...
@overload
def family_hook(family: Family, name: Literal["script"]) -> Script: ...
@overload
def family_hook(family: Family, name: Literal["yaml_note"]) -> YamlNote | None: ...
@overload
def family_hook(family: Family, name: Literal["checks"]) -> Checks | None: ...
@overload
def family_hook(family: Family, name: Literal["trl"]) -> TrlKeys | None: ...
@overload
def family_hook(family: Family, name: Literal["continued"]) -> Continued | None: ...
@overload
def family_hook(family: Family, name: Literal["plan_sample"]) -> PlanSample | None: ...
@overload
def family_hook(family: Family, name: Literal["signal"]) -> Signal | None: ...
@overload
def family_hook(family: Family, name: Literal["follow_data"]) -> FollowData | None: ...
@overload
def family_hook(family: Family, name: Literal["stalled"]) -> Stalled | None: ...
@overload
def family_hook(family: Family, name: Literal["sized"]) -> Sized | None: ...
@overload
def family_hook(family: Family, name: Literal["judge"]) -> Judge | None: ...
@overload
def family_hook(family: Family, name: Literal["settings"]) -> Settings | None: ...
@overload
def family_hook(family: Family, name: Literal["plan_notes"]) -> PlanNotes | None: ...
@overload
def family_hook(family: Family, name: Literal["try"]) -> Try | None: ...


def family_hook(family: Family, name: str) -> Any:
    """What `family` names for hook `name` (HOOKS), imported; None where it names none."""
    return _imported(family, name)


@overload
def hook(cfg_or_stage: Any, name: Literal["data_check"]) -> DataCheck: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["trainer"]) -> Trainer: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["preview"]) -> Preview: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["script"]) -> Script: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["yaml_note"]) -> YamlNote | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["checks"]) -> Checks | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["trl"]) -> TrlKeys | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["continued"]) -> Continued | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["plan_sample"]) -> PlanSample | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["signal"]) -> Signal | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["follow_data"]) -> FollowData | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["stalled"]) -> Stalled | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["sized"]) -> Sized | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["judge"]) -> Judge | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["settings"]) -> Settings | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["plan_notes"]) -> PlanNotes | None: ...
@overload
def hook(cfg_or_stage: Any, name: Literal["try"]) -> Try | None: ...


def hook(cfg_or_stage: Any, name: str) -> Any:
    """The function the run's family names for hook `name` (HOOKS), or None where it names
    none. Imported on first use: the family's code lies in the layer that calls it."""
    return _imported(family_of(cfg_or_stage), name)


def _imported(family: Family, name: str) -> Any:
    path = family.hooks.get(name)
    if not path:
        return None
    module, _, function = path.partition(":")
    return getattr(importlib.import_module(module), function)
