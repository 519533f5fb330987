"""Sweeps: several runs of one task with some settings varied, judged on held-out data,
ranked, and the best one used. space.py: what a sweep varies and how it judges;
search.py: grid, random and Optuna's search; score.py: the judging; sweep.py: a sweep
running its trials through the run queue, kept on disk."""
from sft_ui.sweeps.score import Scorer
from sft_ui.sweeps.space import METHODS, SCORES, VARIABLE, SweepSpec, parse_vary, vary_text
from sft_ui.sweeps.sweep import Sweep, SweepError, Sweeps

__all__ = ["METHODS", "SCORES", "VARIABLE", "Scorer", "Sweep", "SweepError", "SweepSpec",
           "Sweeps", "parse_vary", "vary_text"]
