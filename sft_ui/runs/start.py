"""A run's settings chosen where it starts (the app, or the command line), before it
trains: sized to its data (data/sized.py), fitted to its time budget (plan/budget.py),
and its family's `signal` hook (GRPO: its rewards tried on a few prompts); the run only
records what they chose (Run.chosen, Run.sized). Knows nothing of the trainer or of
Gradio."""
from __future__ import annotations

import dataclasses

from sft_ui.config import RunConfig
from sft_ui.data.sized import SIZED_SAMPLES, own_data, sized
from sft_ui.i18n.message import Message
from sft_ui.plan import budget
from sft_ui.runs.run import Run
from sft_ui.stages import hook, stage_of
from sft_ui.train import log as runlog


def apply_budget(run: Run, started: float, choose: bool = True) -> None:
    """A time budget, resolved once where the run starts (the app, or the command
    line): with `choose`, the settings it picks replace the run's (config.yaml too;
    it may measure the speed first); and this (re)start's deadline, from `started`,
    which the training process only keeps. Before a first start, the settings the
    person's data sizes come first (size_to_data), and after the budget its family's
    `signal` hook (GRPO: its rewards tried on a few prompts) may choose settings too,
    in the budget, or refuse a run that would learn nothing."""
    person, signal = run.config, hook(run.config, "signal") if choose else None
    rate_said = None  # the budget's sentence of the learning rate it chose
    if choose:
        size_to_data(run)
    if choose and run.config.time_budget_minutes and stage_of(run.config).time_budget:
        run.set_state("running", Message("Choosing settings for the time budget..."))
        held = run.config.eval_fraction
        choice = budget.resolve(run.config, run.keep)
        run.chosen(choice.config, list(choice.reasons), choice.fits_in_run)
        rate_said = choice.said.get("learning_rate")
        if run.config.eval_fraction != held:  # the rows it holds out give the samples
            size_to_data(run, person)
    if signal:
        run.set_state("running", Message("Trying the rewards on a few prompts..."))
        with runlog.capture(run.dir) as log:
            config, reasons = signal(person, run.config, log, run.dir)
        if reasons:
            # the budget's sentence of the steps stays last (`fitted` rewrites it); its
            # learning rate's goes where the rewards chose another
            said = [r for r in run.budget[:-1] if rate_said is None or r != rate_said
                    or config.learning_rate == run.config.learning_rate]
            run.chosen(config, said + reasons + run.budget[-1:], run.fit_steps)
    run.deadline = budget.deadline(run.config, started)


def size_to_data(run: Run, person: RunConfig | None = None) -> None:
    """The settings the run's own data sizes where the person left them at their
    defaults (data/sized.py: the samples' prompts and length, GRPO's answers'), each
    said in the run's log; config.yaml too, so that a resume trains with them. Here,
    not in the training process: once for the run, before a budget plans its steps
    with them; again (`person`: the settings as the person gave them) where the
    budget held rows out, whose questions the samples then ask. Data that cannot be
    read here is left to the run, which reports it."""
    if not own_data(run.config):
        return
    asked = run.config if person is None else dataclasses.replace(
        run.config, **{name: getattr(person, name) for name in SIZED_SAMPLES})
    run.set_state("running", Message("Sizing the settings to the data..."))
    with runlog.capture(run.dir) as log:
        try:
            found = sized(asked)
        except Exception as e:  # the run itself will meet (and report) what failed here
            log.warning("%s", f"The settings could not be sized to the data: "
                        f"{type(e).__name__}: {e}")
            return
        for line in found.reasons + found.notes:
            log.info("Sized to the data: %s", line)
    if found.reasons:
        run.sized(found.config)
