"""Openings of plain text, for the samples of a run trained on it: the first words of rows
the run does not train on, which the model continues as text (no chat template), and the
true continuation each is shown beside. A text on one line (Sample prompts is a box of
one prompt a line); an opening cut at a word's end where the text has spaces. Pure text
and a tokenizer; knows nothing of training or of the page.
"""
from __future__ import annotations

from collections.abc import Sequence

OPENING_TOKENS = 24  # an opening's tokens, at most
OPENING_SHARE = 3    # ... and at most a third of its row's
LEAST_TOKENS = 12    # a row shorter than this has no opening worth continuing


def one_line(text: str) -> str:
    """The text with every run of whitespace (line breaks too) as one space."""
    return " ".join(str(text).split())


def opening(text: str, tokenizer) -> str | None:
    """The first tokens of `text` on one line (OPENING_TOKENS at most, a third of it at
    most), ending at a word's end where the text has spaces; None for a text too short
    to be continued."""
    flat = one_line(text)
    ids = tokenizer(flat, add_special_tokens=False)["input_ids"]
    if len(ids) < LEAST_TOKENS:
        return None
    head = tokenizer.decode(ids[:min(OPENING_TOKENS, len(ids) // OPENING_SHARE)])
    head = head.rstrip("\ufffd")  # (half a character a cut token leaves)
    if not flat.startswith(head):
        return None
    if " " in head.strip() and not flat[len(head):len(head) + 1].isspace():
        head = head[:head.rstrip().rfind(" ")]  # (a word cut in two: up to the one before)
    return head.rstrip() or None


def openings(texts: list[str], tokenizer, count: int) -> list[str]:
    """Openings of the first `count` texts that have one."""
    found = []
    for text in texts:
        head = opening(text, tokenizer) if isinstance(text, str) else None
        if head and head not in found:
            found.append(head)
        if len(found) == count:
            break
    return found


def continuations(prompts: list[str], texts: Sequence[str | None], tokenizer,
                  max_tokens: int) -> list[str]:
    """For each prompt, the true continuation of the first text it opens (its next
    `max_tokens` tokens, as long as a sample), or "" where no text begins with it."""
    flat = [one_line(t) for t in texts if isinstance(t, str)]
    out = []
    for prompt in prompts:
        head = one_line(prompt)
        rest = next((t[len(head):] for t in flat if head and t.startswith(head)), "")
        ids = tokenizer(rest, add_special_tokens=False)["input_ids"][:max_tokens] \
            if rest else []
        out.append(tokenizer.decode(ids).rstrip("\ufffd").strip() if ids else "")
    return out
