"""What a file's answers ask of a run, read from its rows: facts to recall or a form to learn.
Pure text arithmetic on rows as data/formats.py gives them; knows nothing of tokenizers or
the trainer.
"""
from __future__ import annotations

import dataclasses
import re

RECALL = "recall"
FORM = "form"
SHORT_WORDS = 8  # an answer of at most this many words is short
NEW_SHARE = 0.8  # of the answers, those that bring a new name (`_brings_new`)
NEW_WORDS = 4  # an answer that restates its question adds at most this many words
VARIED_SHARE = 0.1  # distinct answers of all (and at least MIN_ROWS): not a fixed label set
MIN_ROWS = 20  # fewer rows say nothing of their kind
WORD = re.compile(r"\w+")


@dataclasses.dataclass(frozen=True)
class Answers:
    """RECALL: short answers that bring what their prompt does not hold, most of them
    different (a place's capital, a company's founder); FORM: everything else (an answer
    made from its prompt, a label, a format, free text). The time budget (plan/budget.py)
    trains recall harder: facts asked in new words are answered only once memorised,
    where a form is learnt in a few epochs and more would memorise its rows."""
    kind: str = FORM       # RECALL or FORM
    short: float = 0.0     # share of answers of at most SHORT_WORDS words
    new: float = 0.0       # share of answers that bring a new name (_brings_new)
    varied: float = 0.0    # distinct answers / answers


def _text(part) -> str:
    """A prompt's or an answer's text: a string, or the contents of its messages."""
    if isinstance(part, str):
        return part
    if isinstance(part, list):
        return "\n".join(str(m.get("content", "")) for m in part if isinstance(m, dict))
    return ""


def pairs(rows: list[dict]) -> list[tuple[str, str]]:
    """(prompt, answer) of each row that has both: prompt/completion rows, or each
    assistant turn of a conversation after what came before it (every answer is
    trained: data/turns.py)."""
    found = []
    for row in rows:
        if "completion" in row and "prompt" in row:
            found.append((_text(row["prompt"]), _text(row["completion"])))
        elif isinstance(row.get("messages"), list) and row["messages"]:
            turns = row["messages"]
            found += [(_text(turns[:i]), _text(turns[i:i + 1])) for i, m in enumerate(turns)
                      if isinstance(m, dict) and m.get("role") == "assistant"]
    return found


def _brings_new(prompt: set[str], answer: list[str]) -> bool:
    """Whether an answer brings what its prompt does not hold: no word of it in the
    prompt ("Sarjor"), or a sentence that restates its question around a few new words,
    not all numbers ("The capital of Zor is Sarjor."). A number made from the prompt (a
    date, a sum) or a word the prompt offers (a label from its list) brings nothing."""
    novel = [w for w in answer if w not in prompt]
    if not novel:
        return False
    return len(novel) == len(answer) or (len(novel) <= NEW_WORDS
                                         and not all(w.isdigit() for w in novel))


def read_answers(rows: list[dict]) -> Answers:
    """The kind of the rows' answers, with the shares it was told by."""
    found = [(p, a.strip()) for p, a in pairs(rows) if a.strip()]
    if len(found) < MIN_ROWS:
        return Answers()
    words = [(set(w.lower() for w in WORD.findall(p)), WORD.findall(a.lower()))
             for p, a in found]
    short = sum(1 for _, a in words if 0 < len(a) <= SHORT_WORDS) / len(found)
    new = sum(1 for p, a in words if _brings_new(p, a)) / len(found)
    distinct = len({a for _, a in found})
    varied = distinct / len(found)
    recall = short >= NEW_SHARE and new >= NEW_SHARE and varied >= VARIED_SHARE \
        and distinct >= MIN_ROWS
    return Answers(RECALL if recall else FORM, short, new, varied)
