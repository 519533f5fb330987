"""The person-facing error: its message is written for the person who asked (what was
wrong, what to do) and is shown as it is in the page or the API, never as a trace.

Each room raises its own kind (ConfigError, DataError, ModelError, RunError, HubError,
AccessError), all `UserError`s; anything else that escapes is a bug, reported with its
type. Knows nothing of the rooms.
"""
from __future__ import annotations


class UserError(Exception):
    """A request that cannot be honoured; the message (or `messages`, one line per
    problem, where a kind has several) says why and what to do. `messages` holds them as
    they were made: a Message (i18n/message.py) stays one for the page, where
    str(error) is its English."""

    def __init__(self, message="", *args):
        super().__init__(message, *args)
        if "messages" not in self.__dict__:  # (a kind with several sets its own first)
            self.messages = [message] if message else []
