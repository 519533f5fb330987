"""The built-in rewards as the page offers them: what each scores, the options and data
columns it reads, the reward function made from it (its score: rewards/scores.py), which of
them work here, and their import paths for `trl grpo`.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from sft_ui.i18n.message import Message, as_message
from sft_ui.rewards import RewardError, scores
from sft_ui.rewards.scores import Reward

# --- options -------------------------------------------------------------------------------

def _option(options: dict, key: str, default=None):
    value = options.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    return value.strip() if isinstance(value, str) else value


def _items(options: dict, key: str, default: str = "") -> tuple[str, ...]:
    value = _option(options, key, default)
    text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return tuple(dict.fromkeys(w.strip() for w in re.split(r"[,\n]", text) if w.strip()))


def _whole_number(options: dict, key: str, default: int | None, what: str) -> int:
    value = _option(options, key, default)
    try:
        number = float(value)
        if not number.is_integer():
            raise ValueError
    except (TypeError, ValueError):
        raise RewardError(Message("{key} must be a whole number of {what} (e.g. 200), not "
                                  "{value}.", key=key, what=as_message(what),
                                  value=repr(value))) from None
    if number <= 0:
        raise RewardError(Message("{key} must be more than 0 {what}; it is {number}.",
                                  key=key, what=as_message(what), number=int(number)))
    return int(number)


# --- the catalogue -------------------------------------------------------------------------

def _make_regex(options: dict) -> Reward:
    pattern = _option(options, "pattern")
    if pattern is None:
        raise RewardError("The reward regex needs a pattern (a Python regular expression, "
                          "e.g. \\bParis\\b): write one in Pattern.")
    try:
        re.compile(str(pattern))
    except re.error as e:
        raise RewardError(Message(
            "The pattern {pattern} is not a valid regular expression ({e}): fix it, or escape "
            "special characters such as ( [ . * with \\.", pattern=repr(pattern), e=str(e))
        ) from None
    return Reward("regex", scores.regex, pattern=str(pattern))


def _make_words(name: str, key: str, score: Callable) -> Callable[[dict], Reward]:
    def make(options: dict) -> Reward:
        words = _items(options, key)
        if not words:
            raise RewardError(Message("The reward {name} needs words: write them in {key}, "
                                      "separated by commas (e.g. because, therefore).",
                                      name=name, key=key))
        return Reward(name, score, words=words)
    return make


@dataclass(frozen=True)
class Builtin:
    """A built-in reward as the page offers it: `columns` the data must have (or a function
    of the options giving them), `options` it reads, `make(options)` its reward function,
    `needs` a module that must import for it to work (and `install`, how to get it)."""
    name: str
    title: str
    help: str
    columns: tuple[str, ...] | Callable[[dict], tuple[str, ...]]
    options: tuple[str, ...]
    make: Callable[[dict], Callable]
    needs: str | None = None
    install: str = ""

    def columns_for(self, options: dict) -> tuple[str, ...]:
        return tuple(self.columns(options) if callable(self.columns) else self.columns)


def _answer_column(options: dict) -> str:
    return str(_option(options, "column", "answer"))


BUILTINS: dict[str, Builtin] = {b.name: b for b in (
    Builtin("json_answer", "JSON answer",
            "1.0 when the whole answer is a JSON object (a ```json fence allowed) with every "
            "key of Keys; 0.5 when such an object is inside other text; 0.25 when some JSON "
            "object, or a key in quotes between { and }, is there but not every key; else 0.",
            (), ("keys",),
            lambda o: Reward("json_answer", scores.json_answer,
                             keys=_items(o, "keys", "answer"))),
    Builtin("regex", "Pattern found",
            "1.0 when the regular expression Pattern is found in the answer, else 0.",
            (), ("pattern",), _make_regex),
    Builtin("exact_match", "Exact answer",
            "1.0 when the answer equals the row's value in the answer column (case, spaces "
            "and a final period aside; numbers by value); when the answer holds a JSON "
            "object with that key (or \"answer\"), its value is compared. Else 0.",
            lambda o: (_answer_column(o),), ("column",),
            lambda o: Reward("exact_match", scores.exact_match, column=_answer_column(o))),
    Builtin("contains_words", "Uses words",
            "The share of Words (comma-separated, any case, whole words) the answer uses.",
            (), ("words",), _make_words("contains_words", "words", scores.contains_words)),
    Builtin("avoids_words", "Avoids words",
            "1.0 minus the share of Avoid words (comma-separated, any case) the answer uses.",
            (), ("avoid_words",),
            _make_words("avoids_words", "avoid_words", scores.avoids_words)),
    Builtin("length_near", "Length near target",
            "1.0 at Target characters, falling linearly to 0 at none or twice as many.",
            (), ("target_chars",),
            lambda o: Reward("length_near", scores.length_near, target=_whole_number(
                o, "target_chars", 200, "characters"))),
    Builtin("think_format", "Thinks first (<think>...</think>)",
            "TRL's think_format_reward: 1.0 when the answer starts with one <think>...</think> "
            "block followed by the answer, else 0.",
            (), (), lambda o: Reward("think_format", scores.think_format)),
    Builtin("soft_overlong", "Not too long (DAPO)",
            "TRL's soft overlong punishment: 0 up to three quarters of Max completion length "
            "(in tokens), then falling to -1 at the limit; -1 beyond it.",
            (), ("max_completion_length",),
            lambda o: Reward("soft_overlong", scores.soft_overlong, max_len=_whole_number(
                o, "max_completion_length", 512, "tokens"))),
    Builtin("repetition", "No repetition",
            "TRL's repetition penalty: 0 when no 3 tokens repeat, down to -1 for an answer "
            "that only repeats itself.",
            (), (), lambda o: Reward("repetition", scores.repetition)),
    Builtin("accuracy", "Math answer correct",
            "TRL's accuracy_reward: 1.0 when the answer's final \\boxed{} (LaTeX) equals the "
            "row's solution mathematically, else 0; skipped when the solution cannot be read.",
            ("solution",), (), lambda o: Reward("accuracy", scores.accuracy),
            needs="math_verify", install='"trl[math-verify]"'),
)}


@cache
def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except Exception:  # missing, or broken: either way it cannot be used
        return False
    return True


def available() -> list[str]:
    """The built-in rewards that work on this machine (their dependencies import)."""
    return [name for name, b in BUILTINS.items() if b.needs is None or _imports(b.needs)]


def make_reward(name: str, options: dict | None = None) -> Callable:
    """The reward function of the built-in `name` under the page's options (strings or
    numbers as the page holds them, an empty one meaning its default). A `Reward`: named by
    `__name__` (TRL logs `rewards/<name>/mean`) and picklable, as TRL's async rollout
    worker sends rewards to another process, which a closure cannot be."""
    builtin = BUILTINS.get(name)
    if builtin is None:
        raise RewardError(Message("There is no built-in reward {name}. The built-in rewards "
                                  "are: {join}.", name=repr(name), join=", ".join(available())))
    if name not in available():
        raise RewardError(Message(
            "The reward {name} needs the Python package {needs}, which is not installed: "
            "install it (pip install {install}) and restart the app, or choose another reward.",
            name=name, needs=builtin.needs, install=builtin.install))
    return builtin.make(dict(options or {}))


def import_path(name: str) -> str:
    """The built-in `name` as an import path, which `trl grpo --config` reads in
    reward_funcs (the reward with its default options: `__getattr__` below)."""
    return f"{__name__}.{name}"


def from_import_path(path: str) -> str:
    """A built-in's name from its import path (a name stays as it is)."""
    return path.removeprefix(f"{__name__}.")


def __getattr__(name: str):
    """`sft_ui.rewards.builtin.json_answer` and the like: a built-in with its default
    options, for TRL's own `trl grpo` (which imports reward functions by path)."""
    if name in BUILTINS:
        return make_reward(name, {})
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
