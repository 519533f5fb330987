"""How the built-in rewards score answers: a completion's text, `Reward` (a score function
under a name, as TRL calls it), and each built-in's score (JSON, text, and TRL's own,
imported on first call). Which rewards the page offers is rewards/builtin.py's.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable

from sft_ui.i18n.message import Message
from sft_ui.rewards import RewardError

# Keyword arguments TRL adds to a reward call that are not columns of the data.
TRL_EXTRAS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})
CHARS_PER_TOKEN = 4  # the length of a completion in tokens, when its token ids are not given


def text_of(completion) -> str:
    """The text of a completion (or prompt): a string as it is; a message, or a list of
    messages, as their contents (parts' texts joined) one per line."""
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        content = completion.get("content", completion.get("text", ""))
        return text_of(content) if not isinstance(content, str) else content
    if isinstance(completion, (list, tuple)):
        return "\n".join(text_of(part) for part in completion)
    return str(completion)


class Reward:
    """A reward function: `score(texts, completion_ids, row, **settings)` under a name,
    giving one number (or None: skip) per completion; the data's columns come in `row`."""

    def __init__(self, name: str, score: Callable, **settings):
        self.__name__ = name
        self.score = score
        self.settings = settings

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs):
        texts = [text_of(c) for c in completions or []]
        if completion_ids is not None and len(completion_ids) != len(texts):
            completion_ids = None
        return self.score(texts, completion_ids, kwargs, **self.settings)

    def __repr__(self) -> str:
        return f"Reward({self.__name__!r}, {self.settings!r})"


def _column(row: dict, column: str, n: int, reward: str) -> list:
    if column not in row:
        have = ", ".join(sorted(k for k in row if k not in TRL_EXTRAS)) or "none"
        raise RewardError(Message(
            "The reward {reward} reads the column '{column}', which the data does not have "
            "(its other columns: {have}). Choose one of them, or add the column to the data.",
            reward=reward, column=column, have=have))
    values = list(row[column])
    if len(values) != n:
        raise RewardError(Message("The column '{column}' has {values} values for {n} "
                                  "completions: give one value per completion.",
                                  column=column, values=len(values), n=n))
    return values


# --- JSON ----------------------------------------------------------------------------------

_FENCE = re.compile(r"^```[ \t]*(?:json)?[ \t]*\n?(.*?)\s*```$", re.S | re.I)


def _whole_json(text: str) -> dict | None:
    """The completion as one JSON object (a ```json fence allowed), or None."""
    body = text.strip()
    fenced = _FENCE.match(body)
    try:
        value = json.loads(fenced.group(1) if fenced else body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _objects(text: str) -> list[dict]:
    """The JSON objects written inside the text, outermost ones, left to right."""
    decoder, found, at = json.JSONDecoder(), [], text.find("{")
    while at != -1:
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        found.append(value)
        at = text.find("{", end)
    return found


def json_answer(texts, ids, row, keys: tuple[str, ...]) -> list[float]:
    quoted = re.compile(r"\{.*\"(?:%s)\".*\}" % "|".join(map(re.escape, keys)), re.S)

    def score(text: str) -> float:
        whole = _whole_json(text)
        if whole is not None and all(k in whole for k in keys):
            return 1.0
        found = _objects(text)
        if any(all(k in obj for k in keys) for obj in found):
            return 0.5
        return 0.25 if found or (keys and quoted.search(text)) else 0.0
    return [score(t) for t in texts]


# --- text ----------------------------------------------------------------------------------

def _normal(value) -> str:
    text = value if isinstance(value, str) else (
        json.dumps(value) if isinstance(value, (dict, list)) else str(value))
    text = " ".join(text.split()).lower()
    return text[:-1].rstrip() if text.endswith(".") else text


def _same(got, want) -> bool:
    a, b = _normal(got), _normal(want)
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def _answer_in(text: str, column: str):
    """The value of `column` (else of "answer") in a JSON object of the text, else the text."""
    found = _objects(text)
    for key in dict.fromkeys((column, "answer")):
        for obj in found:
            if key in obj:
                return obj[key]
    return text


def exact_match(texts, ids, row, column: str) -> list[float | None]:
    wanted = _column(row, column, len(texts), "exact_match")
    return [None if want is None else float(_same(_answer_in(text, column), want))
            for text, want in zip(texts, wanted)]


def _has(text: str, word: str) -> bool:
    return re.search(r"(?<!\w)%s(?!\w)" % re.escape(word), text, re.I) is not None


def contains_words(texts, ids, row, words: tuple[str, ...]) -> list[float]:
    return [sum(_has(t, w) for w in words) / len(words) for t in texts]


def avoids_words(texts, ids, row, words: tuple[str, ...]) -> list[float]:
    return [1.0 - sum(_has(t, w) for w in words) / len(words) for t in texts]


def length_near(texts, ids, row, target: int) -> list[float]:
    return [max(0.0, 1.0 - abs(len(t) - target) / target) for t in texts]


def regex(texts, ids, row, pattern: str) -> list[float]:
    return [1.0 if re.search(pattern, t) else 0.0 for t in texts]


# --- TRL's own -----------------------------------------------------------------------------

def _trl(name: str):
    from sft_ui import lazy  # TRL's first import is taken under the app's lock
    return lazy.trl_class("trl.rewards", name)


def _messages(texts) -> list[list[dict]]:
    return [[{"role": "assistant", "content": t}] for t in texts]


def think_format(texts, ids, row) -> list[float]:
    return _trl("think_format_reward")(completions=_messages(texts))


def soft_overlong(texts, ids, row, max_len: int) -> list[float]:
    lengths = ([len(i) for i in ids] if ids is not None
               else [math.ceil(len(t) / CHARS_PER_TOKEN) for t in texts])
    punish = _trl("get_soft_overlong_punishment")(max_len, max_len // 4)
    return punish(completion_ids=[[0] * n for n in lengths])


def repetition(texts, ids, row) -> list[float]:
    tokens = [list(i) for i in ids] if ids is not None else [t.split() for t in texts]
    return _trl("get_repetition_penalty_reward")(ngram_size=3, max_penalty=-1.0)(
        completion_ids=tokens)


def accuracy(texts, ids, row) -> list[float | None]:
    solutions = _column(row, "solution", len(texts), "accuracy")
    return _trl("accuracy_reward")(completions=_messages(texts),
                                   solution=["" if s is None else str(s) for s in solutions],
                                   log_extra=row.get("log_extra"))
