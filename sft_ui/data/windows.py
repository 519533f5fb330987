"""Plain text longer than a run's length, split rather than cut: a row (a document's
text, a long text column) becomes windows of at most Max length tokens, split at its
paragraphs and headings, a paragraph too long for one window at its sentences, and a
sentence too long at a token; the windows hold every character of the text (their
whitespace between paragraphs aside), where the trainer would cut a long row at Max
length and never train the rest. Pure text and a tokenizer.
"""
from __future__ import annotations

import re

from sft_ui.i18n.message import Message

SPECIAL_ROOM = 2  # tokens a window leaves for the special tokens the tokenizer adds
MOST_SAID = 20  # documents the preview says one by one
PARAGRAPH = re.compile(r"\n\s*\n|\n(?=#{1,6} )")  # a blank line, or before a heading
# a sentence with the whitespace after it (joined again as they were)
SENTENCE = re.compile(r".+?(?:[.!?](?=\s)|[。！？]|$)\s*", re.S)


def windows(text: str, tokenizer, limit: int) -> list[str]:
    """`text` as windows of at most `limit` tokens (itself where it fits)."""
    if _size(tokenizer, text) <= limit:
        return [text]
    pieces = [p.strip() for p in PARAGRAPH.split(text) if p.strip()]
    return _grouped(_fitted(pieces, tokenizer, limit), tokenizer, limit, "\n\n", True)


def split_rows(rows: list[dict], tokenizer, max_length: int,
               field: str = "text") -> tuple[list[dict], Message | None]:
    """Text rows with every row longer than `max_length` tokens as its windows (each a
    row of its own, the other columns copied), and a sentence saying how many were
    split (None: none was)."""
    limit = max(8, max_length - SPECIAL_ROOM)
    out, split, made = [], 0, 0
    for row in rows:
        text = row.get(field)
        parts = windows(text, tokenizer, limit) if isinstance(text, str) else [text]
        if len(parts) > 1:
            split, made = split + 1, made + len(parts)
        out += [{**row, field: part} for part in parts]
    if not split:
        return out, None
    return out, Message("{count} texts longer than Max length ({length} tokens) split into "
                        "{windows} rows at their paragraphs and sentences: no text is cut "
                        "away.", count=split, length=max_length, windows=made)


def documents_said(rows, tokenizer, max_length: int, most: int = MOST_SAID) -> list:
    """For each row of a document (its "document" column: data/documents.py), a sentence
    of the rows and tokens it gives at Max length; `most` of them, then how many more."""
    limit = max(8, max_length - SPECIAL_ROOM)
    found = [r for r in rows if isinstance(r, dict) and r.get("document") and
             isinstance(r.get("text"), str)]
    said = [Message("{document}: {rows} rows of at most {length} tokens, {tokens} tokens in "
                    "all; nothing is cut.", document=r["document"],
                    rows=len(windows(r["text"], tokenizer, limit)), length=max_length,
                    tokens=f"{_size(tokenizer, r['text']):,}") for r in found[:most]]
    if len(found) > most:
        said.append(Message("... and {count} more documents.", count=len(found) - most))
    return said


def _size(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _fitted(pieces: list[str], tokenizer, limit: int) -> list[str]:
    """Pieces of at most `limit` tokens: a longer one as its sentences, grouped, and a
    sentence still longer cut at tokens."""
    out = []
    for piece in pieces:
        if _size(tokenizer, piece) <= limit:
            out.append(piece)
            continue
        sentences: list[str] = []
        for sentence in SENTENCE.findall(piece):
            sentences += [sentence] if _size(tokenizer, sentence) <= limit else \
                _cut(sentence, tokenizer, limit)
        out += [w.strip() for w in _grouped(sentences, tokenizer, limit, "")]
    return out


def _grouped(pieces: list[str], tokenizer, limit: int, joint: str,
             headings: bool = False) -> list[str]:
    """Consecutive pieces joined by `joint` into windows of at most `limit` tokens (with
    `headings`, a heading starts a window: its section reads with its title)."""
    out, current = [], ""
    for piece in pieces:
        joined = f"{current}{joint}{piece}" if current else piece
        if current and (_size(tokenizer, joined) > limit or
                        headings and piece.startswith("#")):
            out.append(current)
            current = piece
        else:
            current = joined
    return out + ([current] if current else [])


def _cut(text: str, tokenizer, limit: int) -> list[str]:
    """Text cut every `limit` tokens, at the characters where those tokens begin."""
    try:
        offsets = tokenizer(text, add_special_tokens=False,
                            return_offsets_mapping=True)["offset_mapping"]
    except (NotImplementedError, TypeError, ValueError, KeyError):  # a slow tokenizer
        step = max(1, len(text) * limit // max(_size(tokenizer, text), 1))
        return [text[i:i + step] for i in range(0, len(text), step)]
    step = max(1, limit - SPECIAL_ROOM)  # (a cut piece may tokenize a token longer)
    starts = [offsets[i][0] for i in range(0, len(offsets), step)] + [len(text)]
    return [text[a:b] for a, b in zip(starts, starts[1:]) if text[a:b].strip()]
