"""A time budget's length set on the run's own first steps: they train, and their pace is
what the rest of the budget buys. The run starts from its longest length (plan/budget.py:
at most MAX_EPOCHS epochs); after FIT_AFTER steps, `steps_that_fit` says how many steps
end in time (whole epochs where they keep most of them), and `fit_schedule` gives the learning
rate schedule that length (its warmup and its decay end there); `cool_schedule` brings the
rate from where it is down to 0 at a new, earlier end (after a plateau of the held-out rows:
plan/plateau.py). Pure arithmetic and the
scheduler's own lambdas; the callback (train/callbacks.py) times the steps.
"""
from __future__ import annotations

import functools
import math

FIT_AFTER = 2  # steps timed before the length is set (the first warms up, uncounted)
MARGIN = 0.95  # of the time left: a step slower now and then
# Whole epochs where they keep this share of the steps that fit (1 epoch of 31 steps where
# 54 fit would leave 43% of a budget unused)
WHOLE_EPOCHS = 0.85


def steps_that_fit(step: int, pace: float, seconds_left: float, longest: int,
                   epoch: int | None, round_seconds: float, sample_steps: int) -> int:
    """The run's length (its final step) when it is at `step`, a step takes `pace`
    seconds, `seconds_left` remain until the model must be saved (the final answers and
    the save already counted out), at most `longest` steps. Sample rounds every
    `sample_steps` steps cost `round_seconds` each. Whole epochs of `epoch` steps where
    one or more fit and they keep WHOLE_EPOCHS of the steps; never before the step
    reached."""
    per_step = pace + (round_seconds / sample_steps if sample_steps else 0.0)
    end = step + max(0, math.floor(seconds_left * MARGIN / max(per_step, 1e-6)))
    if epoch and end >= epoch and (end // epoch) * epoch >= WHOLE_EPOCHS * end:
        end = (end // epoch) * epoch  # (else the budget's time goes to the steps that fit)
    return max(step, min(end, longest))


def fit_schedule(scheduler, args, steps: int) -> bool:
    """Make `scheduler` (transformers' LambdaLR) end at `steps`: its warmup and decay as
    if the run had been `steps` long from the start, and the next step's learning rate
    from it. False when the schedule does not depend on the length (constant)."""
    changed = False
    lengths = {"num_training_steps": steps, "num_warmup_steps": args.get_warmup_steps(steps)}
    for i, rule in enumerate(scheduler.lr_lambdas):
        if isinstance(rule, functools.partial) and set(lengths) & set(rule.keywords):
            keywords = {**rule.keywords, **{k: v for k, v in lengths.items()
                                            if k in rule.keywords}}
            scheduler.lr_lambdas[i] = functools.partial(rule.func, *rule.args, **keywords)
            changed = True
    if changed:
        at = scheduler.last_epoch
        rates = [base * rule(at) for base, rule in zip(scheduler.base_lrs,
                                                         scheduler.lr_lambdas)]
        for group, rate in zip(scheduler.optimizer.param_groups, rates):
            group["lr"] = rate
        scheduler._last_lr = rates
    return changed


def _cooled(step: int, start: int, end: int, factor: float) -> float:
    return factor * max(0.0, (end - step) / max(end - start, 1))


def cool_schedule(scheduler, end: int) -> None:
    """Make `scheduler` (a LambdaLR) bring each group's rate from its value now down to 0,
    linearly, at step `end`, whatever its rule was (a constant one too)."""
    at = scheduler.last_epoch
    scheduler.lr_lambdas = [functools.partial(_cooled, start=at, end=end, factor=rule(at))
                            for rule in scheduler.lr_lambdas]
