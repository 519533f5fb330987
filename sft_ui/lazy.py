"""The heavy libraries, loaded when first needed rather than when a module is imported:
the page and the planner start without torch, transformers and TRL.

TRL's lazy first import is not thread-safe (two threads importing at once can get an
ImportError), so it happens under a lock.
"""
from __future__ import annotations

import importlib
import threading

_TRL_IMPORT = threading.Lock()


def trl():
    """TRL's SFTConfig and SFTTrainer."""
    with _TRL_IMPORT:
        from trl import SFTConfig, SFTTrainer  # heavy: loaded on first use
    return SFTConfig, SFTTrainer


def trl_class(module: str, name: str):
    """A class of TRL by module and name (e.g. "trl", "DPOConfig"), imported under the
    same lock."""
    with _TRL_IMPORT:
        return getattr(importlib.import_module(module), name)


def trl_chat_templates():
    """TRL's chat-template helpers: get_training_chat_template, has_generation_markers
    and supports_tool_calling, imported under the same lock."""
    with _TRL_IMPORT:
        from trl.chat_template_utils import (  # heavy: TRL
            get_training_chat_template,
            has_generation_markers,
            supports_tool_calling,
        )
    return get_training_chat_template, has_generation_markers, supports_tool_calling
