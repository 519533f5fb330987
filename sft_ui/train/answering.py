"""Answers of a model to prompts: the prompt as the model sees it (its chat template, or
the text as it is for a model tried as text: an opening it continues) and greedy,
batched, KV-cached generation, used for a run's samples and by Chat's compare-all; an
answer cut at the limit never ends in half a character; the base model's answers before
training, kept between runs. Imports torch: callers outside training import it when they
generate.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch

from sft_ui.data.chat_habits import habits, to_template


def format_prompt(tokenizer, prompt: str, as_text: bool = False) -> str:
    """The text the model sees for a user prompt: its chat template, or the plain prompt
    (`as_text`: always, an opening to continue)."""
    if getattr(tokenizer, "chat_template", None) and not as_text:
        asked, _ = to_template([{"role": "user", "content": prompt}], habits(tokenizer))
        return tokenizer.apply_chat_template(asked, tokenize=False, add_generation_prompt=True)
    return prompt


def whole_characters(text: str) -> str:
    """An answer without the broken character a cut at the length limit may leave at its
    end: a byte-level tokenizer writes a Japanese or Chinese character (3 bytes in
    UTF-8) in up to 3 tokens, and one cut before its last byte decodes as U+FFFD, the
    replacement character."""
    return text.rstrip("\ufffd")


@torch.no_grad()
def generate_batch(model, tokenizer, prompts: list[str], max_new_tokens: int,
                   half: torch.dtype | None = None, as_text: bool = False) -> list[str]:
    """Greedy, KV-cached, batched answers to `prompts` (left padding); with `half` (the
    run's mixed precision) computed under autocast as training is: about twice as fast
    where bf16 is native (measured on a CPU with avx512_bf16: 2.8 s instead of 5.6-7.6 s
    for the default prompts); `as_text`: the prompts are openings of text, continued as
    they are (with the special tokens the tokenizer adds to a text, as training on text
    reads it)."""
    was_training, side = model.training, tokenizer.padding_side
    model.eval()
    tokenizer.padding_side = "left"
    try:
        enc = tokenizer([format_prompt(tokenizer, p, as_text) for p in prompts],
                        return_tensors="pt", padding=True,
                        add_special_tokens=as_text).to(model.device)
        with torch.autocast(model.device.type, dtype=half or torch.float32,
                            enabled=half is not None):
            out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False,
                                 use_cache=True, pad_token_id=tokenizer.pad_token_id)
        return [whole_characters(t) for t in tokenizer.batch_decode(
            out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)]
    finally:
        tokenizer.padding_side = side
        if was_training:
            model.train()


def kept_answers(cache: Path | None, prompts: list[str]) -> list[str] | None:
    """The base model's answers to `prompts` kept in `cache` (answers_before_training),
    or None."""
    try:
        saved = json.loads(cache.read_text(encoding="utf-8")) if cache else None
    except (OSError, ValueError):
        saved = None
    if isinstance(saved, dict) and saved.get("prompts") == prompts:
        return saved["answers"]
    return None


def answers_before_training(model, tokenizer, prompts: list[str], max_new_tokens: int,
                            half: torch.dtype | None, cache: Path | None,
                            as_text: bool = False) -> list[str]:
    """The base model's greedy answers to `prompts`: the same for every run of that
    model, prompts, length and precision, so the copy an earlier run (or the warm training
    process, ahead of the first) kept in `cache` is used instead of generating them again."""
    saved = kept_answers(cache, prompts)
    if saved is not None:
        return saved
    answers = generate_batch(model, tokenizer, prompts, max_new_tokens, half, as_text)
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps({"prompts": prompts, "answers": answers}),
                             encoding="utf-8")
        except OSError:  # a cache only: a read-only disk costs a generation next time
            pass
    return answers
