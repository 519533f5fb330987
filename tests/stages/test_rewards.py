"""The GRPO rewards: the built-in ones on hand-made answers, the Test rewards table and the
checks before a run."""
from __future__ import annotations

import importlib.util
import pickle
import subprocess
import sys

import pytest

from sft_ui.rewards import (
    BUILTINS,
    RewardError,
    WrittenRewards,
    available,
    function_columns,
    make_reward,
    no_spread,
    preflight,
    score_table,
    text_of,
)
from sft_ui.rewards.written import ROOT
from tests.conftest import HANG


def msg(text: str) -> list[dict]:
    """A conversational completion."""
    return [{"role": "assistant", "content": text}]


def scores(name: str, completions, **options_and_columns):
    """The built-in `name`'s scores; keyword arguments in its options are options, the
    others columns (and completion_ids)."""
    options = {k: v for k, v in options_and_columns.items() if k in BUILTINS[name].options}
    rest = {k: v for k, v in options_and_columns.items() if k not in options}
    return make_reward(name, options)(prompts=["p"] * len(completions),
                                      completions=completions, **rest)


# --- built-in rewards ----------------------------------------------------------------------

def test_text_of_strings_and_messages():
    assert text_of("plain") == "plain"
    assert text_of(msg("hi")) == "hi"
    assert text_of([{"role": "assistant", "content": [{"type": "text", "text": "a"}]}]) == "a"
    assert text_of([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]) \
        == "s\nu"
    assert text_of(None) == ""


def test_json_answer_is_graded():
    answers = ['{"answer": 4, "why": "2+2"}',
               '```json\n{"answer": 4, "why": "sum"}\n```',
               'Sure! {"answer": 4, "why": "sum"} Hope it helps.',
               '{"answer": 4}',
               'It is {"answer" 4, "why": x}',
               'The answer is 4.']
    assert scores("json_answer", answers, keys="answer, why") == [1.0, 1.0, 0.5, 0.25, 0.25,
                                                                   0.0]
    as_messages = scores("json_answer", [msg(a) for a in answers], keys="answer,why")
    assert as_messages == [1.0, 1.0, 0.5, 0.25, 0.25, 0.0]
    # keys default to "answer"; a JSON value that is no object does not count
    assert scores("json_answer", ['{"answer": 1}', '[1, 2]', '{"other": 1}']) == [1.0, 0.0,
                                                                                  0.25]


def test_regex():
    assert scores("regex", ["The capital is Paris.", msg("It is Lyon")],
                  pattern=r"\bParis\b") == [1.0, 0.0]
    with pytest.raises(RewardError, match="not a valid regular expression"):
        make_reward("regex", {"pattern": "(unclosed"})
    with pytest.raises(RewardError, match="needs a pattern"):
        make_reward("regex", {"pattern": "  "})


def test_exact_match_normalises_and_reads_json():
    answers = ["Paris.", "  the   CAPITAL is  paris ", '{"answer": "Paris"} done',
               msg("5.0"), "London", "anything"]
    wanted = ["paris", "The capital is Paris", "paris.", 5, "Paris", None]
    assert scores("exact_match", answers, answer=wanted) == [1.0, 1.0, 1.0, 1.0, 0.0, None]
    # another column: its key in the JSON is compared, else "answer"
    city = scores("exact_match", ['{"city": "Rome", "answer": "x"}', '{"answer": "Rome"}'],
                  column="city", city=["rome", "rome"])
    assert city == [1.0, 1.0]
    assert BUILTINS["exact_match"].columns_for({"column": "city"}) == ("city",)
    assert BUILTINS["exact_match"].columns_for({}) == ("answer",)
    with pytest.raises(RewardError, match="reads the column 'answer'.*solution"):
        scores("exact_match", ["x"], solution=["x"])


def test_words():
    answers = ["A Cat sat.", msg("cat and DOG"), "category", "nothing"]
    assert scores("contains_words", answers, words="cat, dog") == [0.5, 1.0, 0.0, 0.0]
    assert scores("avoids_words", answers, avoid_words="cat\ndog") == [0.5, 0.0, 1.0, 1.0]
    for name, key in (("contains_words", "words"), ("avoids_words", "avoid_words")):
        with pytest.raises(RewardError, match=f"needs words: write them in {key}"):
            make_reward(name, {key: " , "})


def test_length_near():
    answers = ["x" * 10, msg("x" * 15), "x" * 5, "x" * 25, ""]
    assert scores("length_near", answers, target_chars="10") == [1.0, 0.5, 0.5, 0.0, 0.0]
    assert scores("length_near", ["x" * 200]) == [1.0]  # 200 by default
    with pytest.raises(RewardError, match="target_chars must be more than 0"):
        make_reward("length_near", {"target_chars": 0})
    with pytest.raises(RewardError, match="target_chars must be a whole number"):
        make_reward("length_near", {"target_chars": "ten"})


def test_trl_rewards_take_strings_and_messages():
    good, bad = "<think>\nreasoning\n</think>\nanswer", "answer <think>x</think>"
    assert scores("think_format", [good, msg(good), bad, msg(bad)]) == [1.0, 1.0, 0.0, 0.0]
    # soft_overlong: 0 up to 75 of 100 tokens, then down to -1 at 100; -1 beyond
    ids = [[7] * 70, [7] * 90, [7] * 120]
    assert scores("soft_overlong", ["a", "b", "c"], max_completion_length=100,
                  completion_ids=ids) == [0.0, -0.6, -1.0]
    # without token ids: 4 characters a token
    assert scores("soft_overlong", ["x" * 360, msg("x" * 280)],
                  max_completion_length="100") == [-0.6, 0.0]
    # repetition: the share of repeated 3-grams (of token ids, else of words), negated
    assert scores("repetition", ["a", "b"], completion_ids=[[1, 2, 3, 4], [5] * 6]) == [0.0,
                                                                                       -0.75]
    assert scores("repetition", ["one two three four", msg("go " * 6)]) == [0.0, -0.75]


def test_accuracy_only_where_math_verify_imports():
    if importlib.util.find_spec("math_verify") is None:
        assert "accuracy" not in available()
        with pytest.raises(RewardError, match="needs the Python package math_verify"):
            make_reward("accuracy", {})
    else:
        assert "accuracy" in available()
        assert scores("accuracy", [r"\boxed{\frac{1}{3}}", msg(r"\boxed{2}")],
                      solution=[r"\frac{1}{3}", "3"]) == [1.0, 0.0]
    assert BUILTINS["accuracy"].columns_for({}) == ("solution",)


def test_names_pickling_and_unknown_names():
    for name in available():
        options = {"pattern": "x", "words": "x", "avoid_words": "x"}
        reward = make_reward(name, options)
        assert reward.__name__ == name
        copy = pickle.loads(pickle.dumps(reward))  # TRL's async workers pickle rewards
        assert copy.__name__ == name
    with pytest.raises(RewardError, match="no built-in reward 'nope'.*json_answer.*regex"):
        make_reward("nope", {})


def test_importing_rewards_loads_no_gradio_torch_or_trl():
    code = ("import sys, sft_ui.rewards.builtin, sft_ui.rewards.check, "
            "sft_ui.rewards.written, sft_ui.rewards.sandbox; "
            "print(sorted(m for m in ('gradio', 'torch', 'trl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=HANG)
    assert out.stdout.strip() == "[]"


# --- the person's code ---------------------------------------------------------------------

GOOD = '''
import math

def _helper(x):
    return x

def right_answer(completions, answer, **kwargs):
    print("printing must not break the worker")
    return [1.0 if str(a) in text_of(c) else 0 for c, a in zip(completions, answer)]

def mixed(completions, **kwargs):
    return [True, None, 2][:len(completions)]

def uses_prompt(prompts, completions):
    return [float(len(p)) for p in prompts]
'''


# --- Test rewards, and the checks before a run ---------------------------------------------

def test_score_table_and_no_spread():
    prompts = ["What is 2+2?"] * 2 + [[{"role": "system", "content": "Be brief."},
                                       {"role": "user", "content": "Capital of France?"}]] * 2
    completions = ["4", "5", msg("Paris."), msg("paris.")]
    columns = {"answer": ["4", "4", "Paris", "Paris"]}

    def constant(completions, **kwargs):
        return [0.5] * len(completions)
    functions = [make_reward("exact_match", {}), make_reward("length_near",
                                                              {"target_chars": 5}), constant]
    rows = score_table(functions, prompts, completions, columns, weights=[2.0, 1.0, 0.0])
    assert rows[0] == {"prompt": "What is 2+2?", "completion": "4", "exact_match": 1.0,
                       "length_near": pytest.approx(0.2), "constant": 0.5,
                       "total": pytest.approx(2.2)}
    assert rows[1]["total"] == pytest.approx(0.2)
    assert rows[2]["prompt"] == "Capital of France?"
    assert [r["total"] for r in rows[2:]] == [pytest.approx(2.8), pytest.approx(2.8)]
    warnings = no_spread(rows, group_size=2)
    assert len(warnings) == 1
    assert "Prompt 'Capital of France?': all 2 answers scored 2.8" in warnings[0]
    assert "no learning signal" in warnings[0] and "temperature" in warnings[0]
    # without weights, the plain sum; a skipped score (None) counts for nothing
    rows = score_table([make_reward("exact_match", {})], ["p", "p"], ["a", "b"],
                       {"answer": [None, None]})
    assert [r["total"] for r in rows] == [None, None]
    assert "every reward skipped all 2 answers" in no_spread(rows, 2)[0]
    with pytest.raises(RewardError, match="1 weights for 2 rewards"):
        score_table(functions[:2], ["p"], ["a"], {"answer": ["a"]}, weights=[1.0])


def test_score_table_runs_written_rewards():
    with WrittenRewards(GOOD) as written:
        rows = score_table(written.functions()[:1], ["q", "q"], ["4", "five"],
                           {"answer": [4, 4]})
    assert [(r["right_answer"], r["total"]) for r in rows] == [(1.0, 1.0), (0.0, 0.0)]


def check(**changes) -> list[str]:
    settings = dict(reward_names=["exact_match", "json_answer"], options={},
                    columns=["prompt", "answer"], num_generations=4, generation_batch=8,
                    max_prompt_tokens=100, max_completion_length=200, max_length=512)
    return preflight(**{**settings, **changes})


def test_preflight():
    assert check() == []
    [problem] = check(generation_batch=10)
    assert "generation batch (10 answers a step) must be a multiple of Generations (4)" \
        in problem and "set it to 8 or 12" in problem and "one of 2, 5, 10" in problem
    assert "at least 2" in check(num_generations=1)[0]
    [problem] = check(max_prompt_tokens=400)
    assert "600 tokens, more than Max length (512)" in problem and "to 112" in problem
    assert check(max_prompt_tokens=None, max_completion_length=512)[0].startswith(
        "Max completion length (512 tokens) leaves no room")
    [problem] = check(columns=["prompt", "solution"])
    assert "exact_match needs the column 'answer'" in problem
    assert "it has: prompt, solution" in problem
    assert check(options={"column": "solution"}, columns=["prompt", "solution"]) == []
    assert "chosen 2 times" in check(reward_names=["regex", "regex"],
                                     options={"pattern": "x"})[0]
    [problem] = check(reward_names=["exact_match", "bleu"])
    assert "no reward 'bleu'" in problem and "json_answer, regex, exact_match" in problem
    assert "needs a pattern" in check(reward_names=["regex"])[0]
    assert "Choose at least one reward" in check(reward_names=[])[0]
    # the person's functions: known by name, their columns checked
    written = function_columns(GOOD)
    assert check(reward_names=["right_answer", "mixed"], written=written) == []
    assert "right_answer needs the column 'answer'" in check(
        reward_names=["right_answer"], written=written, columns=["prompt"])[0]
    # soft_overlong takes the run's max completion length when the options have none
    assert check(reward_names=["soft_overlong"], max_completion_length=0)[0].startswith(
        "Max completion length is 0")



def test_the_run_samples_weigh_the_scores_as_the_table_does():
    """A GRPO run's samples (train/grpo.py) and Test rewards' table (rewards/check.py) add
    the scores with one rule: weighted, a skipped score (None, or TRL's NaN) left out."""
    from sft_ui.rewards.check import weighted_total
    from sft_ui.train.grpo import completion_samples
    nan = float("nan")
    assert weighted_total([1.0, 0.5], [1.0, 2.0]) == 2.0
    assert weighted_total([1.0, None], [1.0, 2.0]) == weighted_total([1.0, nan], [1, 2]) == 1.0
    assert weighted_total([None, nan]) is None
    logs = {"prompt": ["p1", "p2"], "completion": ["a", "b"], "advantages": [0.5, -0.5],
            "rewards": {"json_answer": [1.0, nan], "exact_match": [0.5, 0.0]}}
    rows = completion_samples(logs, 3, [1.0, 2.0])
    assert [r["reward"].split(" ")[0] for r in rows] == ["2", "0"]
    assert rows[0]["reward"].endswith("advantage +0.50") and rows[0]["step"] == 3
