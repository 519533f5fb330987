"""How a sweep judges a trial on held-out data, never on its training loss: the eval loss
of its saved model (the run's held-out rows), a score the Evaluate tab computes (exact
match, JSON valid, ROUGE-L) of its answers to an eval file or to its held-out rows, or
for GRPO its rewards' mean on held-out prompts. `Scorer(evaluator)` is called with the
sweep's spec and the trial's ended run; None when the run gave nothing to judge.
"""
from __future__ import annotations

import dataclasses
import statistics
import time

from sft_ui.evaluate.testset import RUN_EVAL
from sft_ui.runs import RunError
from sft_ui.sweeps.space import SweepSpec

REWARD_PROMPTS = 8  # held-out prompts a GRPO trial answers (Answers per prompt each)
# What judging a trial takes besides its training, in the plan of a sweep: the eval loss
# comes with the run; answers to an eval file are written after it.
SCORE_SECONDS = {"eval_loss": 0.0}
ANSWER_SECONDS = 60.0


def score_seconds(score: str) -> float:
    return SCORE_SECONDS.get(score, ANSWER_SECONDS)


def eval_losses(run) -> list[tuple[int, float]]:
    """The run's eval losses so far, (step, loss), in step order."""
    return [(m["step"], m["eval_loss"]) for m in run.metrics if "eval_loss" in m]


class Scorer:
    def __init__(self, evaluator=None):
        self.evaluator = evaluator

    def __call__(self, spec: SweepSpec, run) -> float | None:
        if spec.score == "eval_loss":
            losses = eval_losses(run)
            return losses[-1][1] if losses else None
        if spec.score == "reward":
            return self.reward_mean(spec, run)
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
            raise RunError(f"The evaluation of run {run.id} failed: {done['error']}")
        return (done["scores"] or [{}])[0].get(spec.score)

    @staticmethod
    def reward_mean(spec: SweepSpec, run) -> float | None:
        """GRPO: the trial's model answers held-out prompts (the eval file's first
        REWARD_PROMPTS), Answers per prompt each, sampled as training samples; the mean of
        the rewards' weighted total."""
        from sft_ui.train.grpo_try import try_rewards  # torch: when a trial is judged
        if not run.model_dir:
            return None
        cfg = dataclasses.replace(run.config, model_name_or_path=run.model_dir,
                                  dataset_name=spec.eval_file.strip())
        rows = try_rewards(cfg, prompts=REWARD_PROMPTS)["rows"]
        totals = [r["total"] for r in rows if r.get("total") is not None]
        return statistics.fmean(totals) if totals else None
