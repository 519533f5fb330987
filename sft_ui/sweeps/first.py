"""A model-based sweep's first trial: the values the quick path would choose for the
settings the sweep varies (plan/budget.py: the learning rate and LoRA rank it reads from
the data), where the search's space holds them, so that the sweep's best is never a
choice it did not try; the search draws the rest. The one place a sweep asks the
planner.
"""
from __future__ import annotations

import dataclasses

from sft_ui.config import RunConfig
from sft_ui.plan.budget import choose
from sft_ui.plan.sample import quick_data_sample
from sft_ui.plan.shape import model_shape
from sft_ui.sweeps.space import Range, SweepSpec

BUDGET_MINUTES = 5.0  # the quick path's budget asked for, where the page set none


def quick_path_first(spec: SweepSpec, base: RunConfig) -> list[dict]:
    """[the quick path's values of the varied settings] for an Optuna sweep; [] for a grid
    or random search, or where the data or the model cannot be read here (the trials
    will say why)."""
    if spec.method != "optuna":
        return []
    cfg = dataclasses.replace(base, time_budget_minutes=base.time_budget_minutes or
                              BUDGET_MINUTES)
    try:
        chosen = choose(cfg, quick_data_sample(cfg),
                        model_shape(cfg.model_name_or_path).params()).config
    except Exception:  # (data or model unread here: the trials will say why)
        return []
    params = {}
    for name, values in spec.vary.items():
        value = getattr(chosen, name, None)
        if (isinstance(values, Range) and value is not None and
                values.low <= value <= values.high) or \
                (isinstance(values, list) and value in values):
            params[name] = value
    return [params] if params else []
