"""The rewards of the GRPO stage: what scores the answers the model writes.

A reward function is called as TRL's GRPOTrainer calls it, `fn(prompts=..., completions=...,
completion_ids=..., **row_columns)`, and returns one number (or None: skip) per completion.
Built-in ones (builtin.py, their scores in scores.py), ones the person writes in the page
and that run in a worker process of their own (written.py, sandbox.py), and what "Test
rewards" shows and the checks made before a run (check.py). Imports neither gradio nor
torch; TRL only when a reward of its own is first called.

The modules import RewardError from here, so their public names are re-exported as they
are first asked for (`from sft_ui.rewards import make_reward` works) rather than imported
at the top, which would close a cycle.
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
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
