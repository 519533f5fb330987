"""GRPO rewards written by the person: their functions and columns, their code run in its
worker process (scores checked and bad ones refused naming the completion, errors named by
line, a hang stopped, no secrets seen, nothing left behind)."""
from __future__ import annotations

import psutil
import pytest

from sft_ui.rewards import (
    RewardError,
    WrittenRewards,
    function_columns,
    function_names,
)
from tests.stages.test_rewards import GOOD, msg


def children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_function_names_and_columns():
    assert function_names(GOOD) == ["right_answer", "mixed", "uses_prompt"]
    assert function_columns(GOOD) == {"right_answer": ("answer",), "mixed": (),
                                      "uses_prompt": ()}
    with pytest.raises(RewardError, match="syntax error at line 3"):
        function_names("def f(completions):\n    return [1]\ndef g(:\n")
    with pytest.raises(RewardError, match=r"def my_reward\(completions, \*\*kwargs\)"):
        function_names("x = 1\ndef _private(c):\n    return c\n")


def test_written_rewards_give_their_numbers():
    with WrittenRewards(GOOD) as written:
        right, mixed, uses_prompt = written.functions()
        assert [f.__name__ for f in (right, mixed, uses_prompt)] == function_names(GOOD)
        assert right(prompts=["a", "b"], completions=["it is 4", msg("it is 5")],
                     completion_ids=[[1], [2]], answer=[4, 4],
                     trainer_state=object(), log_extra=print) == [1.0, 0.0]
        assert mixed(prompts=["a", "b", "c"], completions=["x", "y", "z"]) == [1.0, None, 2.0]
        # a function naming only some arguments gets only those
        assert uses_prompt(prompts=["ab", "abc"], completions=["x", "y"],
                           answer=[1, 2]) == [2.0, 3.0]


BROKEN = '''
def wrong_count(completions, **kwargs):
    return [1.0]

def a_string(completions, **kwargs):
    return [1.0, "high"]

def not_a_number(completions, **kwargs):
    return [0.0, float("nan")]

def no_list(completions, **kwargs):
    return 1.0

def raises(completions, **kwargs):
    total = 0
    return [1 / total for c in completions]

def hangs(completions, **kwargs):
    while True:
        pass

def fine(completions, **kwargs):
    return [0.5 for c in completions]
'''


def test_written_rewards_refuse_bad_scores_naming_the_completion():
    two = ["first answer", "second answer " + "x" * 100]
    with WrittenRewards(BROKEN) as written:
        f = {fn.__name__: fn for fn in written.functions()}
        with pytest.raises(RewardError, match=r"wrong_count returned 1 scores for 2 completions "
                                              r"\(completion 1 \('second answer x+'\) got none"):
            f["wrong_count"](completions=two)
        with pytest.raises(RewardError, match=r"a_string gave completion 1 \('second answer "
                                              r"x{66}'\) the score 'high' \(str\), not a number"):
            f["a_string"](completions=two)
        with pytest.raises(RewardError, match=r"not_a_number gave completion 1 .* the score nan"
                                              r": a score must be a finite number"):
            f["not_a_number"](completions=two)
        with pytest.raises(RewardError, match=r"no_list returned 1.0 \(float\), not a list"):
            f["no_list"](completions=two)
        with pytest.raises(RewardError, match=r"raises raised ZeroDivisionError: division by "
                                              r"zero at line 16 \(`return \[1 / total"):
            f["raises"](completions=two)
        assert f["fine"](completions=two) == [0.5, 0.5]  # the same worker goes on


def test_a_hang_is_stopped_and_the_next_call_starts_a_new_worker():
    before = children()
    with WrittenRewards(BROKEN, timeout_s=1) as written:
        f = {fn.__name__: fn for fn in written.functions()}
        assert f["fine"](completions=["a"]) == [0.5]
        first = children() - before
        assert len(first) == 1
        with pytest.raises(RewardError, match=r"hangs took more than 1 s for 1 completions"):
            f["hangs"](completions=["a"])
        assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status()
                       != psutil.STATUS_ZOMBIE for pid in first)
        assert f["fine"](completions=["a", "b"]) == [0.5, 0.5]
        assert len(children() - before - first) == 1
    assert children() - before == set()


def test_close_leaves_no_process_and_errors_at_load_name_their_line():
    before = children()
    written = WrittenRewards("import os\n\nvalue = missing_name + 1\n\ndef f(completions):\n"
                             "    return [1.0]\n")
    with pytest.raises(RewardError, match=r"failed when loaded with NameError: name "
                                          r"'missing_name' is not defined at line 3"):
        written.functions()[0](completions=["a"])
    assert children() - before == set()
    written = WrittenRewards(GOOD)
    assert written.functions()[1](completions=["a"]) == [1.0]
    assert len(children() - before) == 1
    written.close()
    assert children() - before == set()
    written.close()  # twice is fine


def test_written_code_does_not_see_secrets(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    monkeypatch.setenv("SFT_UI_HARMLESS", "1")
    code = ("import os\ndef env(completions, **kwargs):\n"
            "    return [float(k in os.environ) for k in ('HF_TOKEN', 'SFT_UI_HARMLESS')]\n")
    with WrittenRewards(code) as written:
        assert written.functions()[0](completions=["a", "b"]) == [0.0, 1.0]
