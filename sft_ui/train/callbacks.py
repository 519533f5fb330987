"""TrainerCallbacks that turn training into small events for a run.

The callback only calls methods of a `sink` (train/events.py's RunSink: progress,
add_metrics, add_samples, stop_requested, deadline); it never touches UI objects or
files. Sample generation (train/generation.py) follows the shape of TRL's
LogCompletionsCallback: a frequency, a guard against sampling a step twice, eval mode
and no_grad, train mode restored.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

import torch
import torch.distributed as dist
from transformers import TrainerCallback

from sft_ui.plan.hardware import memory_in_use
from sft_ui.plan.plateau import cool_steps
from sft_ui.plan.speed import NEAR_END, round_steps
from sft_ui.train import fit as fitting
from sft_ui.train.events import RunSink, announce
from sft_ui.train.generation import answers_before_training, generate_batch, kept_answers
from sft_ui.train.held_out import HeldOut

SAVE_SECONDS = 5.0  # room kept at a time budget's end to save the model
# Bytes a second a save of the trained model writes, at least (measured: SmolLM2-135M's
# 538 MB of fp32 weights in 0.6-1.4 s on a 2-core CPU's disk): the run's ETA counts it
SAVE_RATE = 250e6


def save_seconds(model) -> float:
    """About how long saving the trained model takes: what it writes (a LoRA adapter's
    weights, else every weight) at SAVE_RATE."""
    adapter = hasattr(model, "peft_config")
    size = sum(p.numel() * p.element_size() for p in model.parameters()
               if p.requires_grad or not adapter) if model is not None else 0
    return 0.2 + size / SAVE_RATE


def sample_prompts(prompts: list[str]) -> list[str]:
    """The sample prompts that are asked (blank ones left out)."""
    return [p for p in prompts if p.strip()]


class StudioCallback(TrainerCallback):
    """Progress, log records, stop requests and periodic sample generations."""

    def __init__(self, sink: RunSink, tokenizer, prompts: list[str], sample_steps: int,
                 max_new_tokens: int, log: logging.Logger | None = None,
                 base_answers: Path | None = None, half: torch.dtype | None = None,
                 deadline: float | None = None, fit: bool = False,
                 expected_round: float | None = None, judge: HeldOut | None = None,
                 as_text: bool = False):
        self.sink, self.tokenizer, self.half = sink, tokenizer, half
        self.as_text = as_text  # the prompts are openings, continued as text
        self.references: list[str] = []  # each opening's true continuation ("": none)
        self.deadline = deadline  # time.time() by which a time-budgeted run has its model
        self.fit = fit and deadline is not None  # set the length on its steps' pace
        self.judge = judge  # the held-out rows' verdict on a time-budgeted run
        self._paced: tuple[int, float, float] | None = None  # (step, time, sampled) counted from
        self._longest = 0  # the most steps the run may train (its length before fitting)
        self._timed_out = False  # the budget ended the run
        self._eval_seconds = 0.0  # the latest evaluation's time
        self._step_ended: float | None = None  # when the latest step ended
        self.round_seconds: float | None = None  # the latest round of answers generated
        # A round's time before this run measures one: remembered from an earlier run
        # (plan/speed.py round_seconds), for the run's ETA
        self.expected_round = expected_round
        self.save_seconds = SAVE_SECONDS  # what saving the model will take (on_train_begin)
        self.base_answers = base_answers  # where the answers before training are kept
        self.prompts = sample_prompts(prompts)
        self.sample_steps, self.max_new_tokens = sample_steps, max_new_tokens
        self.log = log or logging.getLogger("sft_ui.train")
        self._sampled_steps: set[int] = set()
        self._last_tokens: tuple[float, float] | None = None  # (time, tokens seen)
        self._paused = 0.0  # seconds spent sampling or evaluating since the last log
        self._start_step = 0  # the step this (re)start began at
        self._saved_step = -1  # the step of the latest checkpoint saved
        self._stop_logged = False
        self._agreed_stop = False  # several processes: the stop they agreed on

    def _sample(self, step: int, model, state, last: bool = False) -> float:
        """A round of answers at `step` (once a step; `last`: the run's final one); the
        seconds it took. The sink hears the round begin (its phase), unless the answers
        before training were kept from an earlier run."""
        if not self._samples_on() or step in self._sampled_steps \
                or not state.is_world_process_zero:
            return 0.0
        self._sampled_steps.add(step)
        answers = kept_answers(self.base_answers, self.prompts) if step == 0 else None
        took = 0.0
        if answers is None:
            announce(self.sink, "samples", step=step,
                     **self._round_of(step, state.max_steps, last))
            start = time.time()
            answers = self._answers(model, step)
            took = time.time() - start
            self._paused += took
            self.round_seconds = took  # (the first round's too: the ETA counts the rest)
        self.log.info("Sample answers at step %d in %.2f s", step, took)
        rows = [{"step": step, "prompt": p, "completion": a.strip()}
                for p, a in zip(self.prompts, answers)]
        for row, true in zip(rows, self.references):
            row["reference"] = true
        self.sink.add_samples(rows)
        if last or step >= state.max_steps:  # what the run does next (the engine says it too)
            announce(self.sink, "saving")
        return took

    def _samples_on(self) -> bool:
        return bool(self.sample_steps and self.prompts)

    def _round_of(self, step: int, max_steps: int, last: bool) -> dict:
        """Which round of the run's sample answers the one at `step` is, and of how many
        (the final one at the run's end, early or not, is the last)."""
        steps = round_steps(self.sample_steps, max_steps)
        number = 1 + sum(1 for s in steps if s < step)
        return {"round": number, "rounds": number if last or step >= max_steps
                else max(len(steps), number)}

    def _training(self, state) -> None:
        """The sink hears that the run trains, with what its rest will take besides its
        steps (train/events.py PHASES)."""
        announce(self.sink, "training",
                 sample_steps=self.sample_steps if self._samples_on() else 0,
                 round_seconds=self.round_seconds if self.round_seconds is not None
                 else self.expected_round,
                 save_seconds=self.save_seconds, processes=_processes())

    def _sample_due(self, state) -> bool:
        """A round at this step: every `sample_steps`, but not a step or two before the
        final one (on_train_end samples it)."""
        step, every = state.global_step, self.sample_steps
        if not every or step % every:
            return False
        return not (every > NEAR_END and 0 < state.max_steps - step <= NEAR_END)

    def _answers(self, model, step: int) -> list[str]:
        """Greedy answers to the prompts; those before training (step 0) are the base
        model's (answers_before_training)."""
        if step == 0:
            return answers_before_training(model, self.tokenizer, self.prompts,
                                           self.max_new_tokens, self.half, self.base_answers,
                                           self.as_text)
        return generate_batch(model, self.tokenizer, self.prompts, self.max_new_tokens,
                              self.half, self.as_text)

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
        return self._agreed_stop if _processes() > 1 else self.sink.stop_requested()

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
        if _processes() > 1:
            self._agreed_stop = agree(self.sink.stop_requested(), args.device)
        if self._stop_here(state, control):
            return
        sampled = 0.0
        if self._sample_due(state):
            sampled = self._sample(state.global_step, model, state)
            if not self._stop_here(state, control) and sampled and \
                    state.global_step < state.max_steps:  # (asked while they were written)
                self._training(state)
        now, last = time.time(), self._step_ended
        self._step_ended = now
        if self.deadline is not None and last is not None:
            pace = now - last - sampled  # this step's own time
            if self.fit:
                self._refit(args, state, control, lr_scheduler, pace, sampled, now)
                if fitting.decay(lr_scheduler, state.global_step, state.max_steps):
                    self.log.info("Time budget: the learning rate comes down to 0 from step "
                                  "%d to the run's end, step %d", state.global_step,
                                  state.max_steps)
            self._out_of_time(args, state, control, pace, now)
        if self.judge and (control.should_training_stop or
                           state.global_step >= state.max_steps):
            control.should_evaluate = True  # the model the run ends with is judged too

    def _refit(self, args, state, control, scheduler, pace: float, sampled: float,
               now: float) -> None:
        """Set the run's length from its pace at FIT_AFTER steps, then again each time
        the steps counted double (their mean pace, the first step's warm-up left out, sample
        rounds and evaluations between steps in it), so the length follows the pace as it
        settles."""
        done = state.global_step - self._start_step
        if self._paced is None:  # (the first step warms up: counted from its end)
            self._paced = (state.global_step, now, 0.0)
            return
        step0, then, paused = self._paced
        self._paced = (step0, then, paused + sampled)
        counted = state.global_step - step0
        after = fitting.FIT_AFTER
        if done == after or (done > after and counted & (counted - 1) == 0):
            mean = (now - then - paused - sampled) / max(counted, 1)
            self._fit(args, state, control, scheduler, mean if done > after else pace, now)

    def _end_seconds(self, pace: float) -> float:
        """What the run does after its last step: the final answers, the evaluation of a
        run its held-out rows judge (as long as the latest), and the save."""
        rounds = self.round_seconds if self.round_seconds is not None else pace
        return SAVE_SECONDS + (rounds if self._samples_on() else 0.0) + \
            (self._eval_seconds if self.judge else 0.0)

    def _fit(self, args, state, control, scheduler, pace: float, now: float) -> None:
        """Set the run's length from the pace of its steps so far (train/fit.py)."""
        self._longest = self._longest or state.max_steps
        epoch = self._longest // max(int(state.num_train_epochs), 1) \
            if args.max_steps <= 0 else None  # (training by epochs)
        rounds = self.round_seconds if self.round_seconds is not None else pace
        steps = fitting.steps_that_fit(state.global_step, pace,
                                       self.deadline - now - self._end_seconds(pace),
                                       self._longest, epoch, rounds, self.sample_steps)
        if steps == state.max_steps and self._longest != steps:
            return  # (the same length again: nothing to say)
        if scheduler is not None:
            fitting.fit_schedule(scheduler, args, steps)
        state.max_steps = steps
        # (the trainer's own flow ends a run that reached its length before this step's
        # callbacks: a length set again, longer, goes on)
        control.should_training_stop = steps <= state.global_step
        self.sink.fitted(steps)
        self.sink.progress(state.global_step, steps)
        self.log.info("Time budget: %d steps fit, at %.2f s a step (this run's step %d)",
                      steps, pace, state.global_step)

    def _out_of_time(self, args, state, control, pace: float, now: float) -> None:
        """End a time-budgeted run when one more step (half as long again as the last,
        with a round of answers if one is due, the final answers and the save) would not
        end before its deadline."""
        due = self._samples_on() and (state.global_step + 1) % self.sample_steps == 0
        rounds = (self.round_seconds or pace) if due else 0.0
        if agree(now + 1.5 * pace + rounds + self._end_seconds(pace) > self.deadline,
                 args.device):
            control.should_training_stop = self._timed_out = True
            self.log.info("Time budget: step %d is the last that ends in time",
                          state.global_step)

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
        if self._stop_here(state, control):
            return
        loss = self.judge.read(metrics) if self.judge else None  # (the stage's measure)
        began = time.time()
        plateau = self.judge and loss is not None and \
            self.judge.heard(loss, state.global_step, model)
        judged = time.time() - began  # (its exact matches: answers generated)
        self._paused += judged
        self._eval_seconds += judged
        if self.judge and self.judge.match is not None:
            self.sink.add_metrics({"step": state.global_step,
                                   "eval_exact_match": self.judge.match})
            self.log.info("step %d: held-out exact match %.3g", state.global_step,
                          self.judge.match)
        if plateau and state.global_step < state.max_steps and \
                not control.should_training_stop:
            self._cool_down(state, lr_scheduler)

    def _cool_down(self, state, scheduler) -> None:
        """At the held-out rows' plateau: the rate comes down to 0 over the next steps
        (plan/plateau.py's cool_steps), the run ends there, its length set no more; where
        its length ends within them, it trains on to it."""
        best, at = self.judge.best
        cool = cool_steps(state.global_step, state.max_steps)
        if cool is None or scheduler is None:
            self.log.info("Held-out rows show no more gain (none in %d evaluations) at step "
                          "%d; the best, %s, was at step %d; the rate comes down by "
                          "the run's end, step %d", self.judge.patience, state.global_step,
                          self.judge.shown(best), at, state.max_steps)
            return
        self.fit, end = False, state.global_step + cool
        fitting.cool_schedule(scheduler, end)
        state.max_steps = end
        self.sink.progress(state.global_step, end)
        self.log.info("Held-out rows show no more gain (none in %d evaluations) at step %d; "
                      "the best, %s, was at step %d; the learning rate comes down to "
                      "0 over %d steps, to step %d", self.judge.patience, state.global_step,
                      self.judge.shown(best), at, cool, end)

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
            self.sink.add_metrics(self.judge.ending(step, self._timed_out))
        # the answers the saved model gives
        self._sample(state.global_step, model, state, last=True)


def _processes() -> int:
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def agree(wanted: bool, device) -> bool:
    """True in every process when any process wants it (one process: `wanted`)."""
    if _processes() == 1:
        return wanted
    flag = torch.tensor([1 if wanted else 0], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
