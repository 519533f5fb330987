"""A run's rounds of sample answers: at which steps the fixed prompts are asked, the
answers (the base model's at step 0, kept from an earlier run where they can be), and the
rows the sink gets. Follows TRL's LogCompletionsCallback (a frequency, a step asked once,
eval mode and no_grad: train/answering.py). Knows nothing of the time budget or Stop.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

import torch

from sft_ui.plan.speed import NEAR_END, round_steps
from sft_ui.train.answering import answers_before_training, generate_batch, kept_answers
from sft_ui.train.events import RunSink, announce


def sample_prompts(prompts: list[str]) -> list[str]:
    """The sample prompts that are asked (blank ones left out)."""
    return [p for p in prompts if p.strip()]


class SampleRounds:
    """`every`: a round each that many steps (0: none); `as_text`: the prompts are
    openings, continued as text; `expected_round`: a round's seconds before this run
    measures one, remembered from an earlier run (plan/speed.py), for the run's ETA."""

    def __init__(self, sink: RunSink, log: logging.Logger, tokenizer, prompts: list[str],
                 every: int, max_new_tokens: int, base_answers: Path | None = None,
                 half: torch.dtype | None = None, as_text: bool = False,
                 expected_round: float | None = None):
        self.sink, self.log, self.tokenizer = sink, log, tokenizer
        self.prompts, self.every = sample_prompts(prompts), every
        self.max_new_tokens, self.half, self.as_text = max_new_tokens, half, as_text
        self.base_answers = base_answers  # where the answers before training are kept
        self.expected_round = expected_round
        self.references: list[str] = []  # each opening's true continuation ("": none)
        self.seconds: float | None = None  # the latest round's
        self._asked: set[int] = set()

    @property
    def on(self) -> bool:
        return bool(self.every and self.prompts)

    def round_seconds(self, pace: float) -> float:
        """A round's time for the budget's sums: the latest, else a step's `pace`."""
        return pace if self.seconds is None else self.seconds

    def due(self, state) -> bool:
        """A round at this step: every `every`, but not a step or two before the final one
        (the run's end asks it)."""
        step, every = state.global_step, self.every
        if not every or step % every:
            return False
        return not (every > NEAR_END and 0 < state.max_steps - step <= NEAR_END)

    def ask(self, step: int, model, state, last: bool = False) -> float:
        """A round of answers at `step` (once a step; `last`: the run's final one); the
        seconds it took. The sink hears the round begin (its phase), unless the answers
        before training were kept from an earlier run."""
        if not self.on or step in self._asked or not state.is_world_process_zero:
            return 0.0
        self._asked.add(step)
        answers = kept_answers(self.base_answers, self.prompts) if step == 0 else None
        took = 0.0
        if answers is None:
            announce(self.sink, "samples", step=step,
                     **self._round_of(step, state.max_steps, last))
            start = time.time()
            answers = self._answers(model, step)
            took = time.time() - start
            self.seconds = took  # (the first round's too: the ETA counts the rest)
        self.log.info("Sample answers at step %d in %.2f s", step, took)
        rows = [{"step": step, "prompt": p, "completion": a.strip()}
                for p, a in zip(self.prompts, answers)]
        for row, true in zip(rows, self.references):
            row["reference"] = true
        self.sink.add_samples(rows)
        if last or step >= state.max_steps:  # what the run does next (the engine says it too)
            announce(self.sink, "saving")
        return took

    def _round_of(self, step: int, max_steps: int, last: bool) -> dict:
        """Which round the one at `step` is, and of how many (the final one at the run's
        end, early or not, is the last)."""
        steps = round_steps(self.every, max_steps)
        number = 1 + sum(1 for s in steps if s < step)
        return {"round": number, "rounds": number if last or step >= max_steps
                else max(len(steps), number)}

    def _answers(self, model, step: int) -> list[str]:
        """Greedy answers to the prompts; those before training (step 0) are the base
        model's (answers_before_training)."""
        if step == 0:
            return answers_before_training(model, self.tokenizer, self.prompts,
                                           self.max_new_tokens, self.half, self.base_answers,
                                           self.as_text)
        return generate_batch(model, self.tokenizer, self.prompts, self.max_new_tokens,
                              self.half, self.as_text)
