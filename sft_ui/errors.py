"""The person-facing error (`UserError`): written for the person who asked (what was wrong,
what to do) and shown as it is, never as a trace; each room raises its own kind, and
anything else that escapes is a bug. Knows nothing of the rooms.
"""
from __future__ import annotations

from sft_ui.i18n.message import Message, joined


class UserError(Exception):
    """A request that cannot be honoured; the message (or `messages`, one line per
    problem, where a kind has several) says why and what to do. `messages` holds them as
    they were made: a Message (i18n/message.py) stays one for the page, where
    str(error) is its English."""

    def __init__(self, message="", *args):
        super().__init__(message, *args)
        if "messages" not in self.__dict__:  # (a kind with several sets its own first)
            self.messages = [message] if message else []


def said(error: BaseException) -> Message | str:
    """A person-facing error's message as it was made: its Message (or its Messages, one
    after the other, as `ConfigError` joins them), kept as a value for the run's status;
    else its English (str(error) of a Message is its English only)."""
    messages = list(getattr(error, "messages", None) or error.args[:1])
    if not messages or not all(isinstance(m, Message) for m in messages) or \
            " ".join(messages) != str(error):
        return str(error)
    return messages[0] if len(messages) == 1 else joined(messages)
