"""Setting values from loose input: the UI's widgets, the API's JSON and YAML files (with
TRL's conventions) become the field's type, or a readable message says why not.
Knows the fields only through their dataclass types and labels.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.stages import families
from sft_ui.stages import get as get_stage

MAX_TEXT = 4096  # characters in one text setting (or one line of a list)
# TRL keys a settings file holds that are no RunConfig field: train/arguments.py writes
# them from other settings and from the machine (the device, its optimizer).
MACHINE_TRL_KEYS = ("use_cpu", "per_device_eval_batch_size")


def derived_trl_keys() -> tuple:
    """The TRL keys a settings file carries that the studio derives: the machine's, and
    each family's from its own settings (its Family's derived_trl_keys: DPO's
    loss_weights from a combined loss_type, GRPO's reward_funcs from its rewards)."""
    return (*MACHINE_TRL_KEYS, *(k for f in families() for k in f.derived_trl_keys))


class ConfigError(UserError, ValueError):
    """Bad settings; `messages` holds one readable line per problem."""

    def __init__(self, messages: Sequence[str]):
        self.messages = list(messages)
        super().__init__(" ".join(self.messages))


def from_trl(values: dict) -> dict:
    """Read TRL's conventions in a settings file: max_steps -1 means training for
    epochs, null means off, target modules may be a list, a loss_type list is a combined
    loss (sigmoid+sft)."""
    if str(values.get("max_steps", "")).strip() == "-1":
        values.pop("max_steps")
        values.setdefault("train_by", "epochs")
    for name, off in (("neftune_noise_alpha", 0), ("save_total_limit", 0),
                      ("dataset_config", ""), ("dataset_test_split", ""),
                      ("hub_model_id", "")):
        if name in values and values[name] is None:
            values[name] = off
    for name in derived_trl_keys():  # the studio decides these again where it runs
        values.pop(name, None)
    if isinstance(values.get("lora_target_modules"), (list, tuple)):
        values["lora_target_modules"] = ",".join(map(str, values["lora_target_modules"]))
    if isinstance(values.get("report_to"), (list, tuple)):
        values["report_to"] = ",".join(map(str, values["report_to"])) or "none"
    if isinstance(values.get("loss_type"), (list, tuple)):  # TRL's combined losses
        values["loss_type"] = "+".join(map(str, values["loss_type"]))
    return values


def field_label(f: dataclasses.Field) -> str:
    """How a message names a setting: its label, then its name ("Max steps (max_steps)");
    a Message, its label rendered in the reader's language and its name kept."""
    label = f.metadata.get("label")
    return Message("{label} ({name})", label=Message(label), name=f.name) if label else f.name


def coerce(f: dataclasses.Field, value):
    """Turn UI/API input into the field's type, or raise a readable ValueError that names
    the setting as `RunConfig.validate` does."""
    kind, label = str(f.type), field_label(f)
    optional = "Optional" in kind
    if value is None or (optional and str(value).strip().lower() in ("", "auto", "none")):
        if optional:
            return None
        raise ValueError(Message("{label} needs a value.", label=label))
    if optional:
        kind = kind.replace("typing.", "").removeprefix("Optional[").removesuffix("]")
    if "bool" in kind:
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in ("true", "1", "yes", "on"):
            return True
        if word in ("false", "0", "no", "off"):
            return False
        raise ValueError(Message("{label} must be true or false (got {value}).", label=label,
                                 value=shorten(value)))
    if kind in ("int", "float"):
        whole = kind == "int"
        try:
            number = float(value)
        except OverflowError:
            raise ValueError(Message("{label} is far too large (got {value}).", label=label,
                                     value=shorten(value))) from None
        except (TypeError, ValueError):
            number = None
        finite = number is not None and number == number and abs(number) != float("inf")
        if whole and (number is None or not finite or number != int(number)):
            raise ValueError(Message("{label} must be a whole number (got {value}).", label=label,
                                     value=shorten(value)))
        if not finite:
            raise ValueError(Message("{label} must be a finite number (got {value})."
                                     if number is not None else
                                     "{label} must be a number (got {value}).", label=label,
                                     value=shorten(value)))
        assert number is not None  # (finite)
        return int(number) if whole else number
    if kind == "list":
        if isinstance(value, str):
            return [line.strip() for line in _text(label, value).splitlines() if line.strip()]
        if isinstance(value, (list, tuple)):
            return [_text(label, v) for v in value]
        raise ValueError(Message("{label} must be a list of strings (got {value}).", label=label,
                                 value=shorten(value)))
    return _text(label, value).strip()


def _text(label: str, value) -> str:
    """A text setting (or one line of a list) from a string or a number."""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ValueError(Message("{label} must be text (got {value}).", label=label,
                                 value=shorten(value)))
    text = str(value)
    if "\x00" in text:
        raise ValueError(Message("{label} contains a NUL character (\\x00): remove it.",
                                 label=label))
    if len(text) > MAX_TEXT:
        raise ValueError(Message("{label} is too long: {count} characters, at most {limit}. "
                                 "Shorten it.", label=label, count=f"{len(text):,}",
                                 limit=f"{MAX_TEXT:,}"))
    return text


def shorten(value, show=repr, limit: int = 60) -> str:
    """A value as a message quotes it (repr), cut short when it is long."""
    try:
        text = show(value)
    except ValueError:  # an integer too long to print
        return Message("a number too long to show")
    return text if len(text) <= limit else text[:limit - 5] + "[...]"


def kind_of(value) -> str:
    return {list: "a list", tuple: "a list", str: "text", bool: "true/false",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def choices(f: dataclasses.Field) -> list | None:
    """A field's choices (its metadata's list, or a function's, read now)."""
    found = f.metadata["choices"]
    return list(found()) if callable(found) else found


def applies_field(f: dataclasses.Field, stage: str) -> bool:
    """Whether field `f` applies to a run of `stage` (a name): its `stages` tags meet the
    stage's (stages/base.py); an unknown stage has every setting."""
    known = get_stage(stage)
    tags = f.metadata["stages"]
    return tags is None or known is None or bool(known.tags & set(tags))
