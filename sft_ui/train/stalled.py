"""A preference run (DPO, ORPO, KTO) that learns nothing, read from the margins and accuracies
it logged: the preference family's "stalled" hook, called as each record arrives. SFT has no
such rule: its loss moves with each batch, so a flat curve cannot be told from slow learning.
"""
from __future__ import annotations

import math

from sft_ui.i18n.message import Message

STALL_STEPS, FLAT_MARGIN, MOST_ACCURACY = 5, 0.01, 0.5
MARGIN, ACCURACY = "rewards/margins", "rewards/accuracies"


def _number(value) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def preference_stalled(records: list[dict], cfg=None) -> Message | None:
    """The message of a preference run that learns nothing, with what to do; None while it
    learns, or before it has logged STALL_STEPS steps with a margin. The rule: over the
    last STALL_STEPS such steps the mean `rewards/margins` (chosen minus rejected reward:
    against the reference for DPO and KTO, so 0 until the model moves; beta times the
    log-probabilities' difference for ORPO) is within FLAT_MARGIN of 0 and the mean
    `rewards/accuracies` at most MOST_ACCURACY. KTO logs no accuracy: the share of steps
    whose margin is above 0 stands for it (a run that learns slowly has small margins,
    but above 0)."""
    steps = [r for r in records if _number(r.get(MARGIN))][-STALL_STEPS:]
    if len(steps) < STALL_STEPS:
        return None
    margin = sum(r[MARGIN] for r in steps) / len(steps)
    accuracies = [r[ACCURACY] for r in steps if _number(r.get(ACCURACY))]
    paired = bool(accuracies)  # KTO (answers labelled good or bad) logs none
    accuracy = sum(accuracies) / len(accuracies) if paired else \
        sum(r[MARGIN] > 0 for r in steps) / len(steps)
    if abs(margin) >= FLAT_MARGIN or accuracy > MOST_ACCURACY:
        return None
    count, margin = len(steps), f"{margin:+.4f}"
    if not paired:
        above = sum(r[MARGIN] > 0 for r in steps)
        return Message(
            "Nothing learnt from the preferences: over the last {count} logged steps the "
            "margin between the good and the bad answers' rewards averaged {margin} and was "
            "above 0 on {above} of them, so the model does not favour the good answers yet. "
            "Raise the learning rate, check that the good and the bad answers really "
            "differ, or train more steps.", count=count, margin=margin, above=above)
    return Message(
        "Nothing learnt from the preferences: over the last {count} logged steps the margin "
        "between the chosen and the rejected answers averaged {margin} and the reward "
        "accuracy {accuracy}, so the chosen answers are no more preferred than the rejected "
        "ones. Raise the learning rate, check that the chosen and the rejected answers "
        "really differ, or train more steps.", count=count, margin=margin,
        accuracy=f"{accuracy:.2f}")
