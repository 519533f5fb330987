"""Sweeps: several runs of one task with some settings varied, judged on held-out data,
ranked, and the best one used. space.py: what a sweep varies and how it judges;
search.py: grid, random and Optuna's search; score.py: the judging; trial.py: a trial
from its start to its score; sweep.py: a sweep running its trials, kept on disk;
service.py: a runs folder's sweeps."""
from sft_ui.sweeps.score import Scorer
from sft_ui.sweeps.service import Sweeps
from sft_ui.sweeps.space import METHODS, SCORES, VARIABLE, SweepSpec, parse_vary, vary_text
from sft_ui.sweeps.sweep import Sweep, SweepError

__all__ = ["METHODS", "SCORES", "VARIABLE", "Scorer", "Sweep", "SweepError", "SweepSpec",
           "Sweeps", "parse_vary", "vary_text"]
