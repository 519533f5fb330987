"""The TrainerCallback that turns training into small events for a run (progress, log records,
Stop at a step's end) and calls into the sample rounds, the budget clock and the held-out
judge. It only calls a `sink` (train/events.py); it never touches UI objects or files.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

import torch
from transformers import TrainerCallback

from sft_ui.plan.hardware import memory_in_use
from sft_ui.plan.plateau import cool_steps
from sft_ui.train import schedule
from sft_ui.train.agree import agree, processes
from sft_ui.train.budget_clock import SAVE_SECONDS, BudgetClock
from sft_ui.train.events import RunSink, announce
from sft_ui.train.held_out import HeldOut
from sft_ui.train.sample_rounds import SampleRounds

# Bytes a second a save of the trained model writes, at least (measured: docs/training.md,
# the Train tab's ETA): the run's ETA counts it
SAVE_RATE = 250e6


def save_seconds(model) -> float:
    """About how long saving the trained model takes: what it writes (a LoRA adapter's
    weights, else every weight) at SAVE_RATE."""
    adapter = hasattr(model, "peft_config")
    size = sum(p.numel() * p.element_size() for p in model.parameters()
               if p.requires_grad or not adapter) if model is not None else 0
    return 0.2 + size / SAVE_RATE


class StudioCallback(TrainerCallback):
    """Progress, log records, stop requests, and the run's sample rounds, budget clock and
    held-out judge called at their moments."""

    def __init__(self, sink: RunSink, tokenizer, prompts: list[str], sample_steps: int,
                 max_new_tokens: int, log: logging.Logger | None = None,
                 base_answers: Path | None = None, half: torch.dtype | None = None,
                 deadline: float | None = None, fit: bool = False,
                 expected_round: float | None = None, judge: HeldOut | None = None,
                 as_text: bool = False):
        self.sink, self.judge = sink, judge  # judge: the held-out rows' verdict
        self.log = log or logging.getLogger("sft_ui.train")
        self.samples = SampleRounds(sink, self.log, tokenizer, prompts, sample_steps,
                                    max_new_tokens, base_answers, half, as_text,
                                    expected_round)
        self.clock = BudgetClock(sink, self.log, deadline, fit and deadline is not None,
                                 self.samples, self._judging) if deadline is not None else None
        self._eval_seconds = 0.0  # the latest evaluation's time
        self._step_ended: float | None = None  # when the latest step ended
        self.save_seconds = SAVE_SECONDS  # what saving the model takes (on_train_begin)
        self._last_tokens: tuple[float, float] | None = None  # (time, tokens seen)
        self._paused = 0.0  # seconds spent sampling or evaluating since the last log
        self._start_step = 0  # the step this (re)start began at
        self._saved_step = -1  # the step of the latest checkpoint saved
        self._stop_logged = False
        self._agreed_stop = False  # several processes: the stop they agreed on

    @property
    def references(self) -> list[str]:
        """Each sample opening's true continuation (the engine sets them)."""
        return self.samples.references

    @references.setter
    def references(self, value: list[str]) -> None:
        self.samples.references = value

    @property
    def round_seconds(self) -> float | None:
        """The latest round of sample answers' seconds (None: none measured)."""
        return self.samples.seconds

    def _judging(self) -> float:
        return self._eval_seconds if self.judge else 0.0

    def _sample(self, step: int, model, state, last: bool = False) -> float:
        took = self.samples.ask(step, model, state, last)
        self._paused += took
        return took

    def _training(self, state) -> None:
        """The sink hears that the run trains, with what its rest will take besides its
        steps (train/events.py PHASES)."""
        rounds = self.samples.seconds if self.samples.seconds is not None \
            else self.samples.expected_round
        announce(self.sink, "training",
                 sample_steps=self.samples.every if self.samples.on else 0,
                 round_seconds=rounds, save_seconds=self.save_seconds,
                 processes=processes())

    def _stop_here(self, state, control) -> bool:
        """End training at this step's end when a stop was requested, with a full checkpoint
        (model, optimizer, scheduler, RNG) so the run can resume. Called at the step's end
        and in each event the trainer runs after it (sampling, logging, evaluating,
        saving) before it decides whether to train the next step: a stop that arrives during
        that work ends the run at this step, not after one more.

        Not from on_step_begin or on_substep_end: the trainer tests should_training_stop
        after every micro-batch, so setting it there would end a step half done (gradients
        accumulated, no optimizer step); a stop requested during a step ends at its end."""
        if not self._stop_wanted() or state.global_step <= self._start_step:
            return False  # before the first step: its end checks again
        control.should_training_stop = True
        if self._saved_step != state.global_step:
            control.should_save = True
        if not self._stop_logged:
            self._stop_logged = True
            self.log.info("Stop requested: saving a checkpoint at step %d", state.global_step)
        return True

    def _stop_wanted(self) -> bool:
        """A stop asked of this run. With several processes, what they agreed on at this
        step's end (only the main one's sink hears the request, and all must stop at the
        same step); alone, the sink asked again (a stop during the step's later work)."""
        return self._agreed_stop if processes() > 1 else self.sink.stop_requested()

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self._start_step, self._stop_logged = state.global_step, False
        self.save_seconds = save_seconds(model)
        self.sink.progress(state.global_step, state.max_steps)
        self.log.info("Started at step %d of %d", state.global_step, state.max_steps)
        if state.global_step == 0:  # the answers before training (not again on resume)
            self._sample(state.global_step, model, state)
        self._training(state)
        self._step_ended = time.time()  # the first step's time starts here

    def on_step_end(self, args, state, control, model=None, lr_scheduler=None, **kwargs):
        self.sink.progress(state.global_step, state.max_steps)
        if processes() > 1:
            self._agreed_stop = agree(self.sink.stop_requested(), args.device)
        if self._stop_here(state, control):
            return
        sampled = 0.0
        if self.samples.due(state):
            sampled = self._sample(state.global_step, model, state)
            if not self._stop_here(state, control) and sampled and \
                    state.global_step < state.max_steps:  # (asked while they were written)
                self._training(state)
        now, last = time.time(), self._step_ended
        self._step_ended = now
        if self.clock is not None and last is not None:
            self.clock.after_step(args, state, control, lr_scheduler, now - last - sampled,
                                  sampled, now, self._start_step)
        if self.judge and (control.should_training_stop or
                           state.global_step >= state.max_steps):
            # the model the run ends with is judged too (not after a Stop, which returned
            # above: the person asked for the model as it is)
            control.should_evaluate = True

    def on_log(self, args, state, control, logs=None, **kwargs):
        record = {"step": state.global_step}
        record.update({k: v for k, v in (logs or {}).items() if isinstance(v, (int, float))})
        now, tokens = time.time(), record.get("num_tokens")
        if tokens is not None:
            if self._last_tokens and tokens > self._last_tokens[1]:  # training time only
                then, before = self._last_tokens
                record["tokens_per_second"] = (tokens - before) / max(
                    now - then - self._paused, 1e-6)
            self._last_tokens, self._paused = (now, tokens), 0.0
        record["memory_bytes"] = memory_in_use()
        self.sink.add_metrics(record)
        self.log.info("step %d: %s", state.global_step, ", ".join(
            f"{k} {_short(v)}" for k, v in record.items() if k not in ("step", "memory_bytes")))
        self._stop_here(state, control)

    def on_evaluate(self, args, state, control, metrics=None, model=None, lr_scheduler=None,
                    **kwargs):
        self._paused += (metrics or {}).get("eval_runtime", 0.0)
        self._eval_seconds = (metrics or {}).get("eval_runtime", self._eval_seconds)
        if self._stop_here(state, control) or not self.judge:
            return
        loss = self.judge.read(metrics)  # (the stage's measure)
        began = time.time()
        plateau = loss is not None and self.judge.heard(loss, state.global_step, model)
        judged = time.time() - began  # (its exact matches: answers generated)
        self._paused += judged
        self._eval_seconds += judged
        if self.judge.match is not None:
            self.sink.add_metrics({"step": state.global_step,
                                   "eval_exact_match": self.judge.match})
            self.log.info("step %d: held-out exact match %.3g", state.global_step,
                          self.judge.match)
        if plateau and state.global_step < state.max_steps and \
                not control.should_training_stop:
            self._cool_down(self.judge, state, lr_scheduler)

    def _cool_down(self, judge: HeldOut, state, scheduler) -> None:
        """At the held-out rows' plateau: the rate comes down to 0 over the next steps
        (plan/plateau.py's cool_steps), the run ends there, its length set no more; where
        its length ends within them, it trains on to it."""
        assert judge.best is not None  # (a plateau is heard after a best)
        best, at = judge.best
        cool = cool_steps(state.global_step, state.max_steps)
        if cool is None or scheduler is None:
            self.log.info("Held-out rows show no more gain (none in %d evaluations) at step "
                          "%d; the best, %s, was at step %d; the rate comes down by "
                          "the run's end, step %d", judge.patience, state.global_step,
                          judge.shown(best), at, state.max_steps)
            return
        if self.clock is not None:
            self.clock.fit = False
        end = state.global_step + cool
        schedule.cool_schedule(scheduler, end)
        state.max_steps = end
        self.sink.progress(state.global_step, end)
        self.log.info("Held-out rows show no more gain (none in %d evaluations) at step %d; "
                      "the best, %s, was at step %d; the learning rate comes down to "
                      "0 over %d steps, to step %d", judge.patience, state.global_step,
                      judge.shown(best), at, cool, end)

    def on_save(self, args, state, control, **kwargs):
        self._saved_step = state.global_step
        self.log.info("Saved checkpoint-%d", state.global_step)
        self._stop_here(state, control)

    def on_train_end(self, args, state, control, model=None, **kwargs):
        if self.judge and self.judge.best and not self.sink.stop_requested():
            step = state.global_step
            if self.judge.restore(model, step):
                self.log.info("Kept the model of step %d (held-out %s), not step %d's",
                              self.judge.best[1], self.judge.shown(self.judge.best[0]), step)
            timed_out = self.clock is not None and self.clock.timed_out
            self.sink.add_metrics(self.judge.ending(step, timed_out))
        # the answers the saved model gives
        self._sample(state.global_step, model, state, last=True)


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
