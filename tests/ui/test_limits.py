"""Visitors' shares of a shared server's generation (sft_ui/limits.py): replies in flight
per visitor, tokens per minute, the server's queue bound and the longest reply, each
refused with how long to wait, in English and Japanese whole; the operator's settings
read from the environment; a reply's pauses while a run trains; and the actions that
apply them: a visitor's Chat and Compare shared out, a caller with rights not."""
from __future__ import annotations

import pytest

from sft_ui import i18n
from sft_ui.access import Access, Who
from sft_ui.actions import Actions
from sft_ui.chat import GenSettings
from sft_ui.limits import LimitError, Limits, Pause, Shares
from sft_ui.runs import RunManager
from tests.i18n.test_messages_checks import _left


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _refusal(shares: Shares, visitor: str, tokens: int, replies: int = 1,
             training: bool = False) -> str:
    with pytest.raises(LimitError) as e:
        with shares.admit(visitor, tokens, replies, training):
            pass
    message = e.value.messages[0]
    assert not _left(message), i18n.translate(message, "ja")  # Japanese whole
    return str(message)


def test_each_limit_refuses_with_how_long_to_wait():
    clock = Clock()
    shares = Shares(Limits(replies=1, tokens_per_minute=1000, queue=2, max_new_tokens=400),
                    clock)
    assert "at most 400 new tokens" in _refusal(shares, "ann", 401)
    with shares.admit("ann", 300):
        said = _refusal(shares, "ann", 10)  # a reply of hers still being written
        assert "still being written" in said and "about 10 s" in said, said
        with shares.admit("bob", 100):
            said = _refusal(shares, "cid", 10)  # two replies at once: the server's most
            assert "2 visitors' replies" in said, said
        # while a run trains, visitors' replies are written one at a time
        said = _refusal(shares, "cid", 10, training=True)
        assert "A run is training" in said and "1 at a time" in said, said
    clock.now += 20
    with shares.admit("ann", 300, training=True):
        pass
    clock.now += 10  # ann asked 600 in the last minute: 300 more + 200 > 1000
    said = _refusal(shares, "ann", 250, replies=2)
    assert "600 new tokens in the last minute" in said and "1000 a minute" in said, said
    assert "about 30 s" in said, said  # her first 300 leave the minute at 60 s
    clock.now += 30
    with shares.admit("ann", 250, replies=2):  # (300 left the minute)
        pass


def test_the_operator_sets_the_limits_in_the_environment():
    limits = Limits.from_env({"SFT_UI_VISITOR_REPLIES": "2", "SFT_UI_VISITOR_QUEUE": "9",
                              "SFT_UI_VISITOR_TOKENS_PER_MINUTE": "lots",
                              "SFT_UI_VISITOR_MAX_NEW_TOKENS": "-5",
                              "SFT_UI_VISITOR_PAUSE": "0.5"})
    assert (limits.replies, limits.queue, limits.pause) == (2, 9, 0.5)
    # a value that is no number, or below 0, keeps the default: a typo never opens it
    assert (limits.tokens_per_minute, limits.max_new_tokens) == (3000, 512)


def test_a_reply_pauses_between_tokens_only_while_a_run_trains():
    slept, training = [], [True]
    times = iter([0.0, 0.1, 0.3, 0.5, 0.6, 0.7])
    pause = Pause(3.0, lambda: training[0], clock=lambda: next(times), sleep=slept.append)
    assert pause(None, None) is False  # never stops the reply
    assert slept == [pytest.approx(0.3)]  # 3 x the 0.1 s the token took
    training[0] = False
    pause(None, None)
    assert len(slept) == 1


def _actions(tmp_path, access: Access) -> Actions:
    actions = Actions(RunManager(tmp_path / "runs"), access)
    actions.shares = Shares(Limits(max_new_tokens=50))
    return actions


def test_a_visitors_chat_and_compare_are_shared_out_and_rights_are_not(tmp_path):
    space = _actions(tmp_path, Access(space_id="me/studio"))
    visitor = Who("visitor-1")
    long = GenSettings(max_new_tokens=80)
    with pytest.raises(LimitError, match="at most 50 new tokens"):
        list(space.chat(visitor, "Hi", [], "base", long))
    with pytest.raises(LimitError, match="at most 50 new tokens"):
        list(space.compare(visitor, "Hi", "base", "base", long))
    with space.shares.admit(space.access.owner(visitor), 10):  # a reply of theirs flying
        with pytest.raises(LimitError, match="still being written"):
            list(space.chat(visitor, "Hi", [], "base", GenSettings(max_new_tokens=4)))
    # the app open on one's own machine: no share (the reply is the model's, not refused)
    own = _actions(tmp_path, Access())
    with own.shares.admit(own.access.owner(visitor), 10):
        assert list(own.chat(visitor, "Hi", [], "base", GenSettings(max_new_tokens=2)))


def test_a_reply_that_yields_to_a_training_run_generates_at_the_lowest_priority(
        tiny_model_dir):
    """While a run trains, a visitor's reply generates on a thread of its own at nice 19
    and torch on one thread (the training process gets the cores first); a reply while
    nothing trains keeps the process's priority; the priority ends with the reply."""
    import os
    import threading

    import torch

    from sft_ui.chat.generation import generate_streaming
    from sft_ui.models import load_model_and_tokenizer
    model, tokenizer = load_model_and_tokenizer(tiny_model_dir)
    threads = torch.get_num_threads()

    class Seen(Pause):
        def __init__(self, training: bool):
            super().__init__(0.0, lambda: training)
            self.nice: list[tuple[int, int]] = []

        def __call__(self, input_ids, scores, **kwargs) -> bool:
            here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            self.nice.append((here, torch.get_num_threads()))
            return False

    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    for training, expected in ((True, (19, 1)), (False, (mine, threads))):
        seen = Seen(training)
        list(generate_streaming(model, tokenizer, ["Hi"], GenSettings(max_new_tokens=3),
                                pause=seen))
        assert seen.nice and set(seen.nice) == {expected}, training
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
    assert torch.get_num_threads() == threads
