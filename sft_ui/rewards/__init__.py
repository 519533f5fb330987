"""The rewards of the GRPO stage: what scores the answers the model writes (built-in, or
written in the page and run in a worker of its own), and RewardError. Imports neither gradio
nor torch; TRL only when a reward of its own is first called.
"""
from __future__ import annotations

import importlib

from sft_ui.errors import UserError


class RewardError(UserError, ValueError):
    """A reward that cannot be made or that gave something other than one number per
    completion; the message says which, where, and what to do."""


_EXPORTS = {"BUILTINS": "builtin", "Builtin": "builtin", "available": "builtin",
            "make_reward": "builtin", "text_of": "scores",
            "no_spread": "check", "preflight": "check", "score_table": "check",
            "WrittenRewards": "written", "function_columns": "written",
            "function_names": "written"}

__all__ = ["RewardError", *_EXPORTS]


def __getattr__(name: str):
    """The modules' public names, imported as they are first asked for: they import
    RewardError from here, so importing them at the top would close a cycle."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
