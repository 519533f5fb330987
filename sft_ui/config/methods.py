"""What a RunConfig does besides holding its settings: made from loose input (the API, the
page, a YAML file, a `trl` config), written as YAML, checked (`validate`), and the
batch a machine's processes make. config/fields.py makes RunConfig with RunConfigMethods
as its base. Knows nothing of torch, TRL or Gradio.
"""
from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Self

import yaml

from sft_ui.config.checks import problems
from sft_ui.config.length import decide
from sft_ui.config.values import ConfigError, coerce, from_trl, kind_of
from sft_ui.i18n.message import Message, as_message


class RunConfigMethods:
    """What a RunConfig does besides holding its settings (config/fields.py makes RunConfig
    with this class as its base)."""

    if TYPE_CHECKING:  # the settings these methods read (config/fields.py declares them)
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
        train_by: str
        max_steps: int
        num_train_epochs: float
        num_processes: int | None
        per_device_train_batch_size: int
        gradient_accumulation_steps: int

    def __post_init__(self):
        # a length left to the rule (train_by "auto"): what was given trains (config/length.py)
        self.train_by = decide(self.train_by, self.max_steps, self.num_train_epochs)

    @classmethod
    def from_dict(cls, values: dict | None) -> Self:
        """Build from loose input (API, UI, YAML). Raises ConfigError with every problem."""
        if values is not None and not isinstance(values, dict):
            raise ConfigError([Message('Settings must be a mapping of setting names to values, '
                                       'like {{"max_steps": 10}} (got {kind}).',
                                       kind=as_message(kind_of(values)))])
        values = dict(values or {})
        known = {f.name: f for f in dataclasses.fields(cls)}
        errors: list[str] = [_unknown(k, known) for k in values if k not in known]
        kwargs = {}
        for name, value in values.items():
            if name in known:
                try:
                    kwargs[name] = coerce(known[name], value)
                except ValueError as e:
                    errors.append(e.args[0] if e.args and isinstance(e.args[0], str)
                                  else str(e))  # a Message stays one
        if errors:
            raise ConfigError(errors)
        return cls(**kwargs)

    @classmethod
    def from_yaml(cls, path: str | Path) -> Self:
        """Read a settings file (the studio's, or a `trl sft` config)."""
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as e:
            raise ConfigError([Message("{file} is not valid YAML: {error}",
                                       file=Path(path).name,
                                       error=str(e).splitlines()[0])]) from None
        if not isinstance(data, dict):
            raise ConfigError([Message("{file} must hold a mapping of settings (name: value "
                                       "lines).", file=Path(path).name)])
        return cls.from_dict(from_trl(data))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    # ---- checks ---------------------------------------------------------
    def validate(self) -> list[str]:
        """Readable messages for every bad value or combination; empty when fine."""
        return problems(self)

    def processes(self, devices: int) -> int:
        """The training processes a run of these settings starts on a machine of
        `devices` devices (plan.hardware's Hardware.devices): auto is one per device."""
        return self.num_processes or devices

    def effective_batch(self, devices: int = 1) -> int:
        return self.per_device_train_batch_size * self.gradient_accumulation_steps * devices


def _unknown(name: str, known) -> Message:
    """The message for a setting that does not exist: the nearest names, not all of them
    (there are over a hundred; /settings lists them)."""
    near = difflib.get_close_matches(str(name), list(known), n=3, cutoff=0.6)
    if near:
        return Message("Unknown setting '{name}'. Did you mean {names}? The API's /settings "
                       "lists every setting.", name=name, names=" or ".join(near))
    return Message("Unknown setting '{name}'. The API's /settings lists every setting.",
                   name=name)
