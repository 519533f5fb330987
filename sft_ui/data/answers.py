"""What a file's answers ask of a run, read from its rows: facts to recall (short answers
found nowhere in their prompts, most of them different: a place's capital, a company's
founder) or a form to learn (everything else: an answer made from its prompt, a label
from a fixed set, a format, free text). The time budget (plan/budget.py) trains the first
kind harder: facts asked in new words are only answered once they are memorised, where a
form is learnt in a few epochs and more would memorise its rows.

Pure text arithmetic on rows as data/formats.py gives them (prompt/completion, or
messages); knows nothing of tokenizers or the trainer.
"""
from __future__ import annotations

import dataclasses
import re

RECALL = "recall"
FORM = "form"
SHORT_WORDS = 8  # an answer of at most this many words is short
NEW_SHARE = 0.8  # of the answers, those with no word of their prompt
VARIED_SHARE = 0.3  # distinct answers of all
MIN_ROWS = 20  # fewer rows say nothing of their kind
WORD = re.compile(r"\w+")


@dataclasses.dataclass(frozen=True)
class Answers:
    kind: str = FORM       # RECALL or FORM
    short: float = 0.0     # share of answers of at most SHORT_WORDS words
    new: float = 0.0       # share of answers sharing no word with their prompt
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


def read_answers(rows: list[dict]) -> Answers:
    """The kind of the rows' answers, with the shares it was told by."""
    found = [(p, a.strip()) for p, a in pairs(rows) if a.strip()]
    if len(found) < MIN_ROWS:
        return Answers()
    words = [(set(w.lower() for w in WORD.findall(p)), WORD.findall(a.lower()))
             for p, a in found]
    short = sum(1 for _, a in words if 0 < len(a) <= SHORT_WORDS) / len(found)
    new = sum(1 for p, a in words if a and not (set(a) & p)) / len(found)
    varied = len({a for _, a in found}) / len(found)
    recall = short >= NEW_SHARE and new >= NEW_SHARE and varied >= VARIED_SHARE
    return Answers(RECALL if recall else FORM, short, new, varied)
