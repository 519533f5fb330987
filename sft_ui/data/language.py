"""Which language most of a dataset is in, told by the Unicode ranges of its letters, and
whether the model knows it (the preview's and the plan's note). No dependency; knows nothing
of training or the UI.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import PurePath
from typing import Iterable, Sequence

from sft_ui.data.formats import chat_note
from sft_ui.i18n.message import Message

SAMPLE_ROWS = 200
MOSTLY = 0.5  # the share of the letters that makes a language the data's
KANA_IN_JAPANESE = 0.1  # CJK text with at least this share of kana is Japanese, else Chinese

# Unicode ranges of each script (letters only: digits, punctuation and spaces count for none).
SCRIPTS = {
    "kana": ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F)),
    "han": ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FFFF)),
    "hangul": ((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF)),
    "cyrillic": ((0x0400, 0x052F),),
    "arabic": ((0x0600, 0x06FF), (0x0750, 0x077F), (0xFB50, 0xFDFF), (0xFE70, 0xFEFF)),
    "devanagari": ((0x0900, 0x097F),),
    "thai": ((0x0E00, 0x0E7F),),
    "latin": ((0x41, 0x5A), (0x61, 0x7A), (0xC0, 0xD6), (0xD8, 0xF6), (0xF8, 0x24F),
              (0x1E00, 0x1EFF), (0xFF21, 0xFF3A), (0xFF41, 0xFF5A)),
}
# How a message names each language (a script where several languages share it).
NAMES = {"japanese": "Japanese", "chinese": "Chinese", "korean": "Korean",
         "cyrillic": "Cyrillic script", "arabic": "Arabic script",
         "devanagari": "Devanagari script", "thai": "Thai", "latin": "Latin script"}
MANY = frozenset(NAMES)
# Which languages a model family was trained for, by a pattern on its name (lower case),
# the first that matches: SmolLM2 (and SmolLM, SmolLM3) is made for English and a few
# European languages; Qwen2, Qwen2.5 and Qwen3 for some 30 languages or more (their model
# cards: Chinese, Japanese, Korean, Russian, Arabic, Thai, Hindi...).
MODELS = ((re.compile(r"smollm"), frozenset({"latin"})),
          (re.compile(r"qwen[23]"), MANY))
# A small model that knows each language, and its size.
SMALL_MODEL = ("Qwen/Qwen2.5-0.5B-Instruct", "0.5B")


def strings(value) -> Iterable[str]:
    """Every string in a row's value (lists and mappings walked; a message's role left
    out)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            if key != "role":
                yield from strings(inner)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from strings(inner)


PATTERNS = {script: re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in ranges)
                                 + "]")
            for script, ranges in SCRIPTS.items()}


def language_shares(rows: Sequence[dict | str], limit: int = SAMPLE_ROWS) -> dict[str, float]:
    """The share of the letters of the first `limit` rows (a list, or a datasets.Dataset)
    in each language (NAMES' keys; CJK text with kana is Japanese, without it Chinese);
    {} for rows without letters. Only scripts are told apart: a Latin-script language
    other than English is not recognised."""
    counts: Counter = Counter()
    for i in range(min(len(rows), limit)):
        for text in strings(rows[i]):
            counts.update({script: len(pattern.findall(text))
                           for script, pattern in PATTERNS.items()})
    kana, han = counts.pop("kana", 0), counts.pop("han", 0)
    if kana + han:
        counts["japanese" if kana >= KANA_IN_JAPANESE * (kana + han) else "chinese"] = kana + han
    counts["korean"] = counts.pop("hangul", 0)
    total = sum(counts.values())
    return {k: n / total for k, n in counts.most_common() if n} if total else {}


def main_language(rows: Sequence[dict]) -> str | None:
    """The language (NAMES' key) of most of the rows' letters, or None when none has
    half of them."""
    shares = language_shares(rows)
    top = max(shares, key=shares.__getitem__, default=None)
    return top if top and shares[top] >= MOSTLY else None


def known_languages(model_name: str) -> frozenset[str] | None:
    """The languages a model was trained for, by its name; None for a model not known."""
    key = (model_name or "").lower()
    return next((known for pattern, known in MODELS if pattern.search(key)), None)


def language_note(model_name: str, rows: Sequence[dict]) -> str | None:
    """A sentence for the preview and the plan where most of the data is in a language
    the model was not trained for, naming a small model that knows it; None otherwise
    (and for a model not in MODELS). A small model trained for English answers nonsense
    after fine-tuning on, say, Japanese rows."""
    known = known_languages(model_name)
    if known is None:
        return None
    found = main_language(rows)
    if found is None or found in known:
        return None
    label, name = NAMES[found], PurePath(model_name.strip().rstrip("/\\")).name
    model, size = SMALL_MODEL
    return Message("Most of this data is in {label}, which {model} was not trained for: its "
                   "answers in {label} will be poor. A small model trained for {label}: "
                   "{suggested} ({size} parameters).", label=Message(label), model=name,
                   suggested=model, size=size)


def language_notes(model_name: str, rows: Sequence[dict]) -> list[str]:
    """language_note as a list of notes: none or one."""
    note = language_note(model_name, rows)
    return [note] if note else []


def source_notes(model_name: str, source, as_chat: bool = False) -> tuple[str, ...]:
    """A data source's notes (how it was read: load.py's Source.notes; its text prompts
    made chat turns: formats.chat_note) and the language note of its rows, for the
    plan."""
    chat = (chat_note(model_name),) if as_chat else ()
    return (*source.notes, *chat, *language_notes(model_name, source.rows))
