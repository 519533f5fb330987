"""GRPO's own sentences in the plan (its family's "plan_notes" hook): the answers it writes
each step and the memory their cache takes (plan/rollouts.py says them, plan/memory.py
sizes the cache). Knows nothing of Gradio, runs or the data."""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.memory import answers_cache, size_text
from sft_ui.plan.rollouts import generation_notes
from sft_ui.plan.shape import ModelShape


def answers_notes(cfg: RunConfig, shape: ModelShape, hw: Hardware,
                  prompt_tokens: int | None = None) -> list[Message]:
    """The answers a GRPO step writes, and their cache."""
    return generation_notes(cfg, answers_cache(cfg, shape, hw, prompt_tokens), size_text,
                            prompt_tokens)
