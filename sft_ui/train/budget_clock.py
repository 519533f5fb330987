"""A time-budgeted run's clock: after each step, its length set again from the pace of its
steps (train/schedule.py), and its end where one more step would not end before the deadline
with the final answers and the save. Knows the sample rounds' times, nothing of what
they ask; nothing of Stop or the held-out rows but their seconds.
"""
from __future__ import annotations

import logging
from collections.abc import Callable

from sft_ui.train import schedule
from sft_ui.train.agree import agree
from sft_ui.train.events import RunSink
from sft_ui.train.sample_rounds import SampleRounds

SAVE_SECONDS = 5.0  # room kept at a time budget's end to save the model


class BudgetClock:
    """`deadline`: time.time() by which the run has its model; `fit`: its length set on
    its steps' pace; `judging`: the seconds its held-out rows' evaluation takes at the
    end (0: none)."""

    def __init__(self, sink: RunSink, log: logging.Logger, deadline: float, fit: bool,
                 rounds: SampleRounds, judging: Callable[[], float]):
        self.sink, self.log, self.deadline, self.fit = sink, log, deadline, fit
        self.rounds, self.judging = rounds, judging
        self.timed_out = False  # the budget ended the run
        self._paced: tuple[int, float, float] | None = None  # (step, time, sampled) counted from
        self._longest = 0  # the most steps the run may train (its length before fitting)

    def after_step(self, args, state, control, scheduler, pace: float, sampled: float,
                   now: float, start_step: int) -> None:
        """A step ended `pace` seconds after the last (its sample round, `sampled`,
        left out)."""
        if self.fit:
            self._refit(args, state, control, scheduler, pace, sampled, now, start_step)
            if schedule.decay(scheduler, state.global_step, state.max_steps):
                self.log.info("Time budget: the learning rate comes down to 0 from step "
                              "%d to the run's end, step %d", state.global_step,
                              state.max_steps)
        self._out_of_time(args, state, control, pace, now)

    def _refit(self, args, state, control, scheduler, pace: float, sampled: float,
               now: float, start_step: int) -> None:
        """Set the run's length from its pace at FIT_AFTER steps, then again each time
        the steps counted double (their mean pace, the first step's warm-up left out, sample
        rounds and evaluations between steps in it), so the length follows the pace as it
        settles."""
        done = state.global_step - start_step
        if self._paced is None:  # (the first step warms up: counted from its end)
            self._paced = (state.global_step, now, 0.0)
            return
        step0, then, paused = self._paced
        self._paced = (step0, then, paused + sampled)
        counted = state.global_step - step0
        after = schedule.FIT_AFTER
        if done == after or (done > after and counted & (counted - 1) == 0):
            mean = (now - then - paused - sampled) / max(counted, 1)
            self._fit(args, state, control, scheduler, mean if done > after else pace, now)

    def end_seconds(self, pace: float) -> float:
        """What the run does after its last step: the final answers, the evaluation of a
        run its held-out rows judge (as long as the latest), and the save."""
        rounds = self.rounds.round_seconds(pace) if self.rounds.on else 0.0
        return SAVE_SECONDS + rounds + self.judging()

    def _fit(self, args, state, control, scheduler, pace: float, now: float) -> None:
        """Set the run's length from the pace of its steps so far (train/schedule.py)."""
        self._longest = self._longest or state.max_steps
        epoch = self._longest // max(int(state.num_train_epochs), 1) \
            if args.max_steps <= 0 else None  # (training by epochs)
        steps = schedule.steps_that_fit(state.global_step, pace,
                                       self.deadline - now - self.end_seconds(pace),
                                       self._longest, epoch, self.rounds.round_seconds(pace),
                                       self.rounds.every)
        if steps == state.max_steps and self._longest != steps:
            return  # (the same length again: nothing to say)
        if scheduler is not None:
            schedule.fit_schedule(scheduler, args, steps)
        state.max_steps = steps
        # (the trainer's own flow ends a run that reached its length before this step's
        # callbacks: a length set again, longer, goes on)
        control.should_training_stop = steps <= state.global_step
        self.sink.fitted(steps)
        self.sink.progress(state.global_step, steps)
        self.log.info("Time budget: %d steps fit, at %.2f s a step (this run's step %d)",
                      steps, pace, state.global_step)

    def _out_of_time(self, args, state, control, pace: float, now: float) -> None:
        """End the run when one more step (half as long again as the last, with a round of
        answers if one is due, the final answers and the save) would not end before its
        deadline."""
        due = self.rounds.on and (state.global_step + 1) % self.rounds.every == 0
        rounds = self.rounds.round_seconds(pace) if due else 0.0
        if agree(now + 1.5 * pace + rounds + self.end_seconds(pace) > self.deadline,
                 args.device):
            control.should_training_stop = self.timed_out = True
            self.log.info("Time budget: step %d is the last that ends in time",
                          state.global_step)
