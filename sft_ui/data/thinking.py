"""Whether a thinking model thinks: the Thinking setting (on, off, or the template's default)
written into the chat template a run loads and saves, so its rows, samples and exports ask
the model as it was trained. Knows nothing of the trainer or the UI.
"""
from __future__ import annotations

import copy

from sft_ui.i18n.message import Message

CHOICES = ("default", "on", "off")
SWITCH = "enable_thinking"
_SET = "{{%- set enable_thinking = {value} -%}}\n"  # (format's braces doubled)


def switchable(tokenizer) -> bool:
    """Whether the tokenizer's chat template reads `enable_thinking`."""
    template = getattr(tokenizer, "chat_template", None)
    return isinstance(template, str) and SWITCH in template


def applied(tokenizer, choice: str):
    """(the tokenizer with its template's thinking set to `choice`, a copy where it
    changes: a tokenizer loaded ahead may serve another run; what to say of it, None:
    nothing changed and nothing to say)."""
    if choice not in ("on", "off"):
        return tokenizer, None
    if not switchable(tokenizer):
        return tokenizer, Message("Thinking {choice}: this model's chat template has no "
                                  "thinking switch (enable_thinking), so the setting "
                                  "changes nothing.", choice=choice)
    value = "true" if choice == "on" else "false"
    tokenizer = copy.copy(tokenizer)
    template = tokenizer.chat_template
    for earlier in ("true", "false"):  # (a model trained here before: its choice replaced)
        template = template.removeprefix(_SET.format(value=earlier))
    tokenizer.chat_template = _SET.format(value=value) + template
    return tokenizer, Message("Thinking {choice}: the chat template is asked with "
                              "enable_thinking {value} in training, the samples and the "
                              "held-out answers, and the model is saved with it, so Chat, "
                              "Compare and Evaluate ask it alike.", choice=choice,
                              value=value)
