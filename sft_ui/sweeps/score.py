"""How a sweep judges a trial on held-out data, never on its training loss: the eval loss of its
saved model, an Evaluate score of its answers, or a family's own score on held-out prompts
(its "judge" hook); and the noise under which the quick path's own trial is kept.
"""
from __future__ import annotations

import math
import time

from sft_ui.evaluate.job import EvaluationBusy
from sft_ui.evaluate.testset import RUN_EVAL
from sft_ui.i18n.message import Message
from sft_ui.runs import RunError
from sft_ui.stages import hook
from sft_ui.sweeps.space import SweepSpec

# What judging a trial takes besides its training, in the plan of a sweep: the eval loss
# comes with the run; answers to an eval file are written after it.
SCORE_SECONDS = {"eval_loss": 0.0}
ANSWER_SECONDS = 60.0


# The scores that are the percentage of the rows answered right
SHARE_SCORES = ("exact_match",)


def score_seconds(score: str) -> float:
    return SCORE_SECONDS.get(score, ANSWER_SECONDS)


def noise(score: str, value: float, rows: int | None) -> float:
    """One standard error, in points, of a SHARE_SCORES score `value` (a percentage)
    judged on `rows` rows (20 rows at 90%: 6.7 points; a row is 5); 0 for another score,
    or where the rows are not known."""
    if score not in SHARE_SCORES or not rows:
        return 0.0
    share = min(max(value / 100, 0.0), 1.0)
    return 100 * math.sqrt(share * (1 - share) / rows)


def eval_losses(run) -> list[tuple[int, float]]:
    """The run's eval losses so far, (step, loss), in step order."""
    return [(m["step"], m["eval_loss"]) for m in run.metrics if "eval_loss" in m]


def last_eval_loss(run) -> float | None:
    """The run's latest eval loss (its saved model's, when it ran to its end)."""
    losses = eval_losses(run)
    return losses[-1][1] if losses else None


def kept_quick(scored: list[dict], spec: SweepSpec) -> dict | None:
    """{"trial": the quick path's own trial, "over": the trial scored best, "noise": one
    standard error of the quick trial's score} where the best is better by no more than
    that (`noise`: on 20 rows, 95% against 90% is one row, which judging on other rows
    can turn either way): the sweep keeps the quick path's choice. Else None. `scored`:
    the sweep's trials with a score."""
    quick = next((t for t in scored if t.get("quick")), None)
    if quick is None:
        return None
    top = max(scored, key=lambda t: t["score"] if spec.higher_is_better else -t["score"])
    spread = noise(spec.score, quick["score"], quick.get("rows"))
    if top is quick or abs(top["score"] - quick["score"]) > spread:
        return None
    return {"trial": quick, "over": top, "noise": spread}


def kept_said(kept: dict | None) -> dict | None:
    """kept_quick as a sweep's snapshot carries it (trial numbers and scores)."""
    return kept and {"number": kept["trial"]["number"], "score": kept["trial"]["score"],
                     "over": kept["over"]["number"], "over_score": kept["over"]["score"],
                     "noise": kept["noise"], "rows": kept["trial"].get("rows")}


def kept_quick_said(kept: dict) -> Message:
    """The sentence a sweep that kept the quick path's choice says (kept_said's)."""
    numbers = {"number": kept["number"], "over": kept["over"],
               "score": f"{kept['score']:.4g}", "over_score": f"{kept['over_score']:.4g}"}
    if not kept["noise"]:
        return Message("Kept trial {number}, the quick path's own choice: trial {over} "
                       "scored the same ({score})", **numbers)
    return Message("Kept trial {number}, the quick path's own choice ({score}): trial "
                   "{over}'s {over_score} is within the noise of a score on {rows} rows "
                   "(±{noise})", rows=kept["rows"], noise=f"{kept['noise']:.1f}", **numbers)


class Scorer:
    """`Scorer(evaluator)(spec, run)`: the score of a sweep's ended trial run, by the
    sweep's spec; None when the run gave nothing to judge."""

    def __init__(self, evaluator=None):
        self.evaluator = evaluator
        self.rows: int | None = None  # the rows the latest answers' score was judged on

    def __call__(self, spec: SweepSpec, run) -> float | None:
        self.rows = None
        if spec.score == "eval_loss":
            return last_eval_loss(run)
        judge = hook(run.config, "judge") if spec.score == "reward" else None
        if judge is not None:  # (the check allows "reward" only where the family has one)
            return judge(spec.eval_file, run)
        return self.answers(spec, run)

    def answers(self, spec: SweepSpec, run) -> float | None:
        """The Evaluate tab's score `spec.score` of the trial's answers to the eval file
        (blank: to the rows the run held out), as that tab computes it."""
        test_set = spec.eval_file.strip() or RUN_EVAL + run.id
        while True:  # one evaluation at a time on the server: wait for a person's to end
            try:
                job = self.evaluator.start([run.id], test_set, "test", 0)
                break
            except EvaluationBusy:
                current = self.evaluator.current()
                if current is not None:
                    self.evaluator.wait(current, timeout=5)
                else:
                    time.sleep(1)
        done = self.evaluator.wait(job)
        if done["error"]:
            raise RunError(Message("The evaluation of run {id} failed: {error}", id=run.id,
                                   error=done["error"]))
        self.rows = done["rows_answered"]
        return (done["scores"] or [{}])[0].get(spec.score)
