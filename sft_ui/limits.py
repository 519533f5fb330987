"""Each visitor's share of a shared server's generation (Chat and Compare are open to visitors
without rights): replies in flight, tokens per minute, replies at once, the longest reply,
and a pause between tokens while a run trains, each an operator's setting. Knows nothing of
Gradio, of models or of runs.
"""
from __future__ import annotations

import math
import os
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Callable, Iterator

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message

WINDOW_S = 60.0  # tokens per minute: a rolling minute


class LimitError(UserError):
    """A visitor's request past a limit: the message says which and how long to wait."""


@dataclass(frozen=True)
class Limits:
    """The limits, each read from the environment variable in its metadata."""
    replies: int = 1               # SFT_UI_VISITOR_REPLIES: replies in flight per visitor
    tokens_per_minute: int = 3000  # SFT_UI_VISITOR_TOKENS_PER_MINUTE (Max new tokens asked)
    queue: int = 4                 # SFT_UI_VISITOR_QUEUE: visitors' replies at once, in all
    queue_training: int = 1        # SFT_UI_VISITOR_QUEUE_TRAINING: the same while a run trains
    max_new_tokens: int = 512      # SFT_UI_VISITOR_MAX_NEW_TOKENS: the longest reply
    pause: float = 3.0             # SFT_UI_VISITOR_PAUSE: while a run trains, seconds of
    #                                pause per second of generating (3: a quarter of the time)
    server_nice: int = 19          # SFT_UI_SERVER_NICE: the CPU priority (nice, 0-19) of the
    #                                threads that answer pages, below the training process's

    ENV = {"replies": "SFT_UI_VISITOR_REPLIES",
           "tokens_per_minute": "SFT_UI_VISITOR_TOKENS_PER_MINUTE",
           "queue": "SFT_UI_VISITOR_QUEUE", "queue_training": "SFT_UI_VISITOR_QUEUE_TRAINING",
           "max_new_tokens": "SFT_UI_VISITOR_MAX_NEW_TOKENS",
           "pause": "SFT_UI_VISITOR_PAUSE", "server_nice": "SFT_UI_SERVER_NICE"}

    @classmethod
    def from_env(cls, env=None) -> "Limits":
        """The limits the environment sets (a value that is no number is left at its
        default, so a typo never opens the server)."""
        env = os.environ if env is None else env
        given = {}
        for f in fields(cls):
            text = env.get(cls.ENV[f.name], "").strip()
            try:  # (every limit has a default: its type reads the text)
                value = type(f.default)(float(text)) if text else None  # type: ignore[misc]
            except ValueError:
                value = None
            if value is not None and value >= 0 and math.isfinite(value):
                given[f.name] = value
        return cls(**given)


def lower_this_thread(nice: int) -> None:
    """This thread at CPU priority `nice` (0-19; never higher than it is): under Linux a
    thread's priority is its own and passes to the threads and processes it starts from
    then on, so where the cores are wanted the processes started before (a training run's)
    get them first. Elsewhere a no-op."""
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me,
                       max(os.getpriority(os.PRIO_PROCESS, me), min(19, max(0, nice))))
    except (AttributeError, OSError):
        pass


class Shares:
    """Who is generating and how much each visitor asked for in the last minute."""

    def __init__(self, limits: Limits | None = None, clock: Callable[[], float] = time.monotonic):
        self.limits = limits or Limits.from_env()
        self.clock = clock
        self._lock = threading.Lock()
        self._flying: dict[str, int] = {}
        self._asked: dict[str, deque] = {}     # visitor -> (time, tokens) of the last minute
        self._began: dict[int, float] = {}     # reply -> its start
        self._took = 10.0                      # a reply's seconds, a running mean
        self._next = 0

    @contextmanager
    def admit(self, visitor: str, tokens: int, replies: int = 1,
              training: bool = False) -> Iterator[None]:
        """Hold a visitor's reply (or `replies` of `tokens` each, as Compare's two) while
        it generates; LimitError where the visitor or the server is past a limit (fewer
        replies at once while a run trains)."""
        limits, tokens = self.limits, int(tokens)
        if tokens > limits.max_new_tokens:
            raise LimitError(Message("On this shared server a reply is at most {limit} new "
                                     "tokens: lower Max new tokens to {limit} or less.",
                                     limit=limits.max_new_tokens))
        with self._lock:
            now, key = self.clock(), self._next
            asked = self._asked.setdefault(visitor, deque())
            while asked and asked[0][0] <= now - WINDOW_S:
                asked.popleft()
            if self._flying.get(visitor, 0) >= limits.replies:
                raise LimitError(Message("Your last reply is still being written: wait for "
                                         "it (about {seconds} s), or press Stop, then send "
                                         "again.", seconds=self._wait(now)))
            flying = sum(self._flying.values())
            if training and flying >= limits.queue_training:
                raise LimitError(Message("A run is training on this shared server, and "
                                         "visitors' replies are written {most} at a time "
                                         "meanwhile: try again in about {seconds} s.",
                                         most=limits.queue_training,
                                         seconds=self._wait(now)))
            if flying >= limits.queue:
                raise LimitError(Message("{count} visitors' replies are being written on "
                                         "this shared server, its most at once: try again "
                                         "in about {seconds} s.",
                                         count=sum(self._flying.values()),
                                         seconds=self._wait(now)))
            cost = tokens * replies
            used = sum(n for _, n in asked)
            if used + cost > limits.tokens_per_minute:
                raise LimitError(Message(
                    "You asked for {used} new tokens in the last minute; a visitor may ask "
                    "for {limit} a minute on this shared server. Try again in about "
                    "{seconds} s, or lower Max new tokens.", used=used,
                    limit=limits.tokens_per_minute,
                    seconds=_freed_after(asked, used + cost - limits.tokens_per_minute, now)))
            asked.append((now, cost))
            self._flying[visitor] = self._flying.get(visitor, 0) + 1
            self._began[key], self._next = now, key + 1
        try:
            yield
        finally:
            with self._lock:
                self._flying[visitor] -= 1
                if not self._flying[visitor]:
                    del self._flying[visitor]
                self._took = 0.8 * self._took + 0.2 * (self.clock() - self._began.pop(key))

    def share(self, visitor: str | None, tokens: int, replies: int,
              reply: Callable[["Pause | None"], Iterator], training: Callable[[], bool]):
        """Yield what `reply(pause)` yields: for a visitor (None: a caller with rights,
        unlimited) once admitted, pausing between tokens while `training()`."""
        if visitor is None:
            yield from reply(None)
            return
        with self.admit(visitor, tokens, replies, training()):
            yield from reply(Pause(self.limits.pause, training))

    def _wait(self, now: float) -> int:
        """Seconds until the reply that began first is likely done (at least 1)."""
        first = min(self._began.values(), default=now)
        return max(1, math.ceil(first + self._took - now))


def _freed_after(asked: deque, over: int, now: float) -> int:
    """Seconds until `over` tokens of `asked` leave the rolling minute (at least 1)."""
    freed = 0
    for when, tokens in asked:
        freed += tokens
        if freed >= over:
            return max(1, math.ceil(when + WINDOW_S - now))
    return math.ceil(WINDOW_S)


class Pause:
    """A generation's stopping criterion that never stops it but, while `training()` is
    true, sleeps after each token `ratio` times the time the token took, so that the
    generation holds the cores 1/(1+ratio) of its time and a training run the rest."""

    def __init__(self, ratio: float, training: Callable[[], bool],
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.ratio, self.training, self.clock, self.sleep = ratio, training, clock, sleep
        self._last = clock()

    def __call__(self, input_ids, scores, **kwargs) -> bool:
        now = self.clock()
        if self.ratio > 0 and self.training():
            self.sleep(min(2.0, (now - self._last) * self.ratio))
        self._last = self.clock()
        return False
