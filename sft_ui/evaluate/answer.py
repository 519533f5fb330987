"""A model's answers to a batch of test prompts: each prompt as the model saw it in
training (chat messages through its chat template, a text prompt as it is, as TRL
trains on prompt/completion text), generated together with left padding and the KV
cache, greedy or with the chat settings; a stop event ends the generation mid-batch. And
a model's perplexity on held-out text. Imports torch: import it where generating."""
from __future__ import annotations

import math
import threading

import torch

from sft_ui.chat.generation import GenSettings, StopOnEvent, render_prompt
from sft_ui.train.answering import whole_characters


def prompt_text(tokenizer, prompt, system_prompt: str = "") -> str:
    """The text the model continues for one test prompt."""
    if isinstance(prompt, str):
        return prompt
    messages = list(prompt)
    if system_prompt.strip() and not any(m["role"] == "system" for m in messages):
        messages = [{"role": "system", "content": system_prompt.strip()}] + messages
    return render_prompt(tokenizer, messages)


@torch.no_grad()
def answer_batch(model, tokenizer, prompts: list, settings: GenSettings,
                 stop: threading.Event | None = None) -> list[str]:
    """One answer per prompt (special tokens left out, surrounding whitespace and a
    character broken by the length limit trimmed)."""
    from transformers import StoppingCriteriaList  # heavy: transformers loaded on first use
    side = tokenizer.padding_side
    if tokenizer.pad_token is None:  # a model without one pads with its end token
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    try:
        asked, _ = settings.template_for(tokenizer)  # (thinking on or off, where set)
        enc = tokenizer([prompt_text(asked, p, settings.system_prompt) for p in prompts],
                        return_tensors="pt", padding=True,
                        add_special_tokens=False).to(model.device)
    finally:
        tokenizer.padding_side = side
    criteria = StoppingCriteriaList([StopOnEvent(stop)] if stop is not None else [])
    out = model.generate(**enc, max_new_tokens=int(settings.max_new_tokens), use_cache=True,
                         pad_token_id=tokenizer.pad_token_id, stopping_criteria=criteria,
                         **settings.generate_kwargs())
    texts = tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:],
                                   skip_special_tokens=True)
    return [whole_characters(t).strip() for t in texts]


PERPLEXITY_TOKENS = 1024  # of each text, at most, in the perplexity


@torch.no_grad()
def perplexity(model, tokenizer, texts: list[str]) -> float:
    """exp of the mean loss per token of `texts`, each read as a model trained on text
    reads it (with the special tokens its tokenizer adds)."""
    total, count = 0.0, 0
    for text in texts:
        ids = tokenizer(text, return_tensors="pt")["input_ids"][:, :PERPLEXITY_TOKENS]
        if ids.shape[1] < 2:
            continue
        ids = ids.to(model.device)
        loss = model(input_ids=ids, labels=ids).loss.item()
        total, count = total + loss * (ids.shape[1] - 1), count + ids.shape[1] - 1
    return math.exp(total / count) if count else float("nan")
