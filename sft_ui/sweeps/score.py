"""How a sweep judges a trial on held-out data, never on its training loss: the eval loss
of its saved model (the run's held-out rows), a score the Evaluate tab computes (exact
match, JSON valid, ROUGE-L) of its answers to an eval file or to its held-out rows, or
for a family whose runs have no eval loss its own score on held-out prompts (its "judge"
hook: the rewards' mean). `Scorer(evaluator)` is called with the sweep's spec and the
trial's ended run; None when the run gave nothing to judge.
"""
from __future__ import annotations

import time

from sft_ui.evaluate.testset import RUN_EVAL
from sft_ui.i18n.message import Message
from sft_ui.runs import RunError
from sft_ui.stages import hook
from sft_ui.sweeps.space import SweepSpec

# What judging a trial takes besides its training, in the plan of a sweep: the eval loss
# comes with the run; answers to an eval file are written after it.
SCORE_SECONDS = {"eval_loss": 0.0}
ANSWER_SECONDS = 60.0


def score_seconds(score: str) -> float:
    return SCORE_SECONDS.get(score, ANSWER_SECONDS)


def eval_losses(run) -> list[tuple[int, float]]:
    """The run's eval losses so far, (step, loss), in step order."""
    return [(m["step"], m["eval_loss"]) for m in run.metrics if "eval_loss" in m]


def last_eval_loss(run) -> float | None:
    """The run's latest eval loss (its saved model's, when it ran to its end)."""
    losses = eval_losses(run)
    return losses[-1][1] if losses else None


class Scorer:
    def __init__(self, evaluator=None):
        self.evaluator = evaluator

    def __call__(self, spec: SweepSpec, run) -> float | None:
        if spec.score == "eval_loss":
            return last_eval_loss(run)
        if spec.score == "reward":  # (the check allows it only where the family has one)
            return hook(run.config, "judge")(spec.eval_file, run)
        return self.answers(spec, run)

    def answers(self, spec: SweepSpec, run) -> float | None:
        """The Evaluate tab's score `spec.score` of the trial's answers to the eval file
        (blank: to the rows the run held out), as that tab computes it."""
        test_set = spec.eval_file.strip() or RUN_EVAL + run.id
        while True:  # one evaluation at a time on the server: wait for a person's to end
            try:
                job = self.evaluator.start([run.id], test_set, "test", 0)
                break
            except RunError as e:
                if "running" not in str(e):
                    raise
                current = self.evaluator.current()
                if current is not None:
                    self.evaluator.wait(current, timeout=5)
                else:
                    time.sleep(1)
        done = self.evaluator.wait(job)
        if done["error"]:
            raise RunError(Message("The evaluation of run {id} failed: {error}", id=run.id,
                                   error=done["error"]))
        return (done["scores"] or [{}])[0].get(spec.score)
