"""A time budget's length set on the run's own first steps (their pace says how many steps end
in time) and the learning rate schedule made to end there, held then decayed, or cooled
after a plateau. Pure arithmetic and the scheduler's own lambdas; the callback times the
steps.
"""
from __future__ import annotations

import functools
import math

FIT_AFTER = 2  # steps timed before the length is set (the first warms up, uncounted)
MARGIN = 0.95  # of the time left: a step slower now and then
# Whole epochs where they keep this share of the steps that fit (1 epoch of 31 steps where
# 54 fit would leave 43% of a budget unused)
WHOLE_EPOCHS = 0.85
# A rate held constant comes down to 0 over this share of the run's length, at its end
# (about the share that a plateau's cool-down takes: plan/plateau.py COOL_SHARE)
DECAY_SHARE = 0.2


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
    from it; a rate coming down (`cool_schedule`) comes down to 0 at `steps` instead. False
    when the schedule does not depend on the length (constant)."""
    changed, at = False, scheduler.last_epoch
    lengths = {"num_training_steps": steps, "num_warmup_steps": args.get_warmup_steps(steps)}
    for i, rule in enumerate(scheduler.lr_lambdas):
        if isinstance(rule, functools.partial) and rule.func is _cooled:
            scheduler.lr_lambdas[i] = _cooling(rule, at, steps)
            changed = True
        elif isinstance(rule, functools.partial) and set(lengths) & set(rule.keywords):
            keywords = {**rule.keywords, **{k: v for k, v in lengths.items()
                                            if k in rule.keywords}}
            scheduler.lr_lambdas[i] = functools.partial(rule.func, *rule.args, **keywords)
            changed = True
    if changed:
        rates = [base * rule(at) for base, rule in zip(scheduler.base_lrs,
                                                         scheduler.lr_lambdas)]
        for group, rate in zip(scheduler.optimizer.param_groups, rates):
            group["lr"] = rate
        scheduler._last_lr = rates
    return changed


def _cooled(step: int, start: int, end: int, factor: float) -> float:
    return factor * max(0.0, (end - step) / max(end - start, 1))


def _cooling(rule, at: int, end: int):
    return functools.partial(_cooled, start=at, end=end, factor=rule(at))


def cool_schedule(scheduler, end: int) -> None:
    """Make `scheduler` (a LambdaLR) bring each group's rate from its value now down to 0,
    linearly, at step `end`, whatever its rule was (a constant one too)."""
    at = scheduler.last_epoch
    scheduler.lr_lambdas = [_cooling(rule, at, end) for rule in scheduler.lr_lambdas]


def holds_rate(scheduler) -> bool:
    """Whether `scheduler`'s rules keep the rate they have now for good (constant, or
    constant after its warmup): nothing brings it down at the run's end."""
    at = scheduler.last_epoch
    return all(rule(at) == rule(at + 10**9) > 0 for rule in scheduler.lr_lambdas)


def decay_start(steps: int) -> int:
    """The step from which a rate held constant comes down, to 0 at `steps`."""
    return steps - max(1, math.ceil(steps * DECAY_SHARE))


def decay(scheduler, step: int, steps: int) -> bool:
    """At `step` of a run `steps` long: a rate held constant (`holds_rate`) from
    `decay_start` on starts down to 0 at `steps` (`cool_schedule`; a length set again
    later moves that end: `fit_schedule`). True when it started now. So a longer budget
    trains as a shorter one would until the shorter one's last DECAY_SHARE (warmup,
    stable, decay)."""
    if scheduler is None or step < decay_start(steps) or not holds_rate(scheduler):
        return False
    cool_schedule(scheduler, steps)
    return True
