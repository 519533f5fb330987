"""TrainerCallbacks that turn training into small events for a run.

The callback only calls methods of a `sink` (progress, add_metrics,
add_samples, stop_requested); it never touches UI objects or files. Sample generation
follows the shape of TRL's LogCompletionsCallback: a frequency, a guard
against sampling a step twice, eval mode and no_grad, train mode restored.
"""
from __future__ import annotations

from typing import Protocol

import torch
from transformers import TrainerCallback


class RunSink(Protocol):
    def progress(self, step: int, max_steps: int) -> None: ...
    def add_metrics(self, record: dict) -> None: ...
    def add_samples(self, rows: list[dict]) -> None: ...
    def stop_requested(self) -> bool: ...


def format_prompt(tokenizer, prompt: str) -> str:
    """The text the model sees for a user prompt: its chat template, or the plain prompt."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template([{"role": "user", "content": prompt}],
                                             tokenize=False, add_generation_prompt=True)
    return prompt


@torch.no_grad()
def generate_batch(model, tokenizer, prompts: list[str], max_new_tokens: int) -> list[str]:
    """Greedy, KV-cached, batched answers to `prompts` (left padding)."""
    was_training, side = model.training, tokenizer.padding_side
    model.eval()
    tokenizer.padding_side = "left"
    try:
        enc = tokenizer([format_prompt(tokenizer, p) for p in prompts], return_tensors="pt",
                        padding=True, add_special_tokens=False).to(model.device)
        out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False,
                             use_cache=True, pad_token_id=tokenizer.pad_token_id)
        return tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
    finally:
        tokenizer.padding_side = side
        if was_training:
            model.train()


class StudioCallback(TrainerCallback):
    """Progress, log records, stop requests and periodic sample generations."""

    def __init__(self, sink: RunSink, tokenizer, prompts: list[str], sample_steps: int,
                 max_new_tokens: int):
        self.sink, self.tokenizer = sink, tokenizer
        self.prompts = [p for p in prompts if p.strip()]
        self.sample_steps, self.max_new_tokens = sample_steps, max_new_tokens
        self._sampled_steps: set[int] = set()

    def _sample(self, step: int, model) -> None:
        if not self.sample_steps or not self.prompts or step in self._sampled_steps:
            return
        self._sampled_steps.add(step)
        answers = generate_batch(model, self.tokenizer, self.prompts, self.max_new_tokens)
        self.sink.add_samples([{"step": step, "prompt": p, "completion": a.strip()}
                           for p, a in zip(self.prompts, answers)])

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.sink.progress(state.global_step, state.max_steps)
        if state.global_step == 0:  # the answers before training (not again on resume)
            self._sample(state.global_step, model)

    def on_step_end(self, args, state, control, model=None, **kwargs):
        self.sink.progress(state.global_step, state.max_steps)
        if self.sink.stop_requested():
            # A full checkpoint (model, optimizer, scheduler, RNG) so the run can resume.
            control.should_training_stop = control.should_save = True
            return
        if self.sample_steps and state.global_step % self.sample_steps == 0:
            self._sample(state.global_step, model)

    def on_log(self, args, state, control, logs=None, **kwargs):
        record = {"step": state.global_step}
        record.update({k: v for k, v in (logs or {}).items() if isinstance(v, (int, float))})
        self.sink.add_metrics(record)

    def on_train_end(self, args, state, control, model=None, **kwargs):
        self._sample(state.global_step, model)  # the answers the saved model gives
