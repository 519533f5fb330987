"""When a time-budgeted run's held-out rows say it has learnt what it can (the plateau), what
the run does then, and how its end is recorded and said: the policy train/held_out.py
applies. Pure; knows nothing of torch or the trainer.
"""
from __future__ import annotations

import math

from sft_ui.i18n.message import Message

PATIENCE = 3  # evaluations without a gain: the plateau
MIN_GAIN = 0.01  # a held-out loss this much lower (relative) is a gain,
MIN_ABS_GAIN = 1e-3  # and this much lower at least (a loss near 0 has nothing left)
PLATEAU, BUDGET, LENGTH = "plateau", "budget", "length"  # why a judged run ended
ENDINGS = (PLATEAU, BUDGET, LENGTH)  # coded 1, 2, 3 in the run's records
COOL_SHARE = 0.25  # after a plateau the rate comes down over this share of the steps so far,
MIN_COOL_STEPS = 10  # and over this many steps at least


def cool_steps(step: int, length: int) -> int | None:
    """The steps over which a run at its plateau at `step` brings its learning rate down
    to 0; None where its length (`length`) ends within them: its schedule brings the rate
    down by then. It cools as a run whose schedule ends there would: a model judged at a
    high rate is a noisy one."""
    cool = max(MIN_COOL_STEPS, math.ceil(step * COOL_SHARE))
    return cool if step + cool < length else None


def is_better(loss: float, best: float) -> bool:
    """Whether a held-out loss is lower than the best so far (its model is kept)."""
    return loss < best


def is_gain(loss: float, best: float) -> bool:
    """Whether a held-out loss is a gain over the best so far (worth training on for); a
    reward judged as its negative (train/held_out.py) gains by its size alike."""
    return loss < best - max(abs(best) * MIN_GAIN, MIN_ABS_GAIN)


def ending_record(step: int, kept_step: int, loss: float | None, why: str,
                  plateau_step: int | None = None, key: str = "eval_loss") -> dict:
    """`loss`: the saved model's held-out value of the judge's measure (`key`)."""
    record: dict[str, float] = {"step": step, "kept_step": kept_step,
                                "ended_by": ENDINGS.index(why) + 1}
    if plateau_step is not None and plateau_step < step:
        record["plateau_step"] = plateau_step  # (the rate came down from there)
    if loss is not None:
        record[key] = loss
    return record


def ended_by(metrics: list[dict]) -> tuple[str, int | None] | None:
    """(why a judged run ended, the step whose model it kept) from its records, or None
    for a run no held-out rows judged."""
    for record in reversed(metrics):
        if "ended_by" in record:
            code = int(record["ended_by"])
            why = ENDINGS[code - 1] if 0 < code <= len(ENDINGS) else LENGTH
            return why, record.get("kept_step")
    return None


def plateau_step(metrics: list[dict]) -> int | None:
    """The step of a judged run's plateau, where its rate came down from after it; None
    where the run ended at its plateau or had none."""
    for record in reversed(metrics):
        if "ended_by" in record:
            return record.get("plateau_step")
    return None


ENDING_WORDS = {
    PLATEAU: Message("held-out rows stopped improving"),
    BUDGET: Message("the time budget ended training"),
    LENGTH: Message("trained its whole length"),
}


def ending_said(record: dict) -> Message:
    """The sentence a judged run's budget ends with: why it ended, and which model it
    kept ("held-out rows stopped improving: the model of step 110 of 140, best on
    the held-out rows, is kept"), and where the rate came down after the plateau."""
    ended = ended_by([record])
    assert ended is not None  # (`record` is the run's ending record: it has ended_by)
    why, kept = ended
    if "plateau_step" in record:
        return Message("{ending} at step {at}, and the learning rate came down to 0 over the "
                       "{cool} steps after it: the model of step {kept} of {step}, best on "
                       "the held-out rows, is kept", ending=ENDING_WORDS[why],
                       at=record["plateau_step"], cool=record["step"] - record["plateau_step"],
                       kept=kept, step=record["step"])
    return Message("{ending}: the model of step {kept} of {step}, best on the held-out "
                   "rows, is kept", ending=ENDING_WORDS[why], kept=kept, step=record["step"])
