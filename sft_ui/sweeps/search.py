"""How a sweep picks its next trial's settings: every combination in turn (grid), drawn
at random, or by Optuna's model-based search (TPE, through its ask/tell interface, with
its median pruner stopping a trial whose eval score is clearly worse than the others'
at the same step). One interface for the three: `ask(number)` the settings of trial
`number` (None: the grid is done), `report()` its score so far, `should_prune()`, `tell()`
its end; several trials may be asked before any is told (trials on Hugging Face Jobs).
"""
from __future__ import annotations

import random

from sft_ui.sweeps.space import Range, SweepSpec

PRUNE_AFTER_TRIALS = 2  # the median pruner waits for this many finished trials
PRUNE_AFTER_STEPS = 1


class Search:
    """Grid or random search: the settings to try, in order; no pruning."""

    def __init__(self, spec: SweepSpec):
        self.spec = spec
        self._rng = random.Random(spec.seed)
        self._grid = spec.grid() if spec.method == "grid" else None
        self._asked = 0
        self._tried: set = set()

    def size(self) -> int | None:
        """How many trials the search can give (None: no end)."""
        if self._grid is not None:
            return len(self._grid)
        if any(isinstance(v, Range) for v in self.spec.vary.values()):
            return None
        return len(self.spec.grid())  # random over lists: each combination once

    def ask(self, number: int = 0) -> dict | None:
        if self._grid is not None:
            if self._asked >= len(self._grid):
                return None
            self._asked += 1
            return dict(self._grid[self._asked - 1])
        for _ in range(1000):  # random: a combination not tried yet where one is left
            params = {n: v.draw(self._rng) if isinstance(v, Range) else self._rng.choice(v)
                      for n, v in self.spec.vary.items()}
            key = tuple(sorted(params.items()))
            if key not in self._tried:
                self._tried.add(key)
                return params
        return None

    def report(self, value: float, step: int, number: int = 0) -> None:
        pass

    def should_prune(self, number: int = 0) -> bool:
        return False

    def tell(self, score: float | None, pruned: bool = False, number: int = 0) -> None:
        pass


class OptunaSearch(Search):
    """Optuna's TPE sampler asked for each trial's settings; its median pruner judges a
    trial's eval scores so far against the finished trials' at the same step."""

    def __init__(self, spec: SweepSpec):
        super().__init__(spec)
        import optuna  # loaded when a sweep uses it
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._optuna = optuna
        self.study = optuna.create_study(
            direction="maximize" if spec.higher_is_better else "minimize",
            sampler=optuna.samplers.TPESampler(seed=spec.seed),
            pruner=optuna.pruners.MedianPruner(n_startup_trials=PRUNE_AFTER_TRIALS,
                                               n_warmup_steps=PRUNE_AFTER_STEPS))
        self._asked: dict = {}  # trial number: Optuna's trial, until told

    def size(self) -> int | None:
        return super().size() if self.spec.method == "grid" else None

    def ask(self, number: int = 0) -> dict | None:
        self._asked[number] = trial = self.study.ask()
        params = {}
        for name, values in self.spec.vary.items():
            if isinstance(values, Range) and values.integer:
                params[name] = trial.suggest_int(name, int(values.low), int(values.high),
                                                 log=values.log)
            elif isinstance(values, Range):
                value = trial.suggest_float(name, values.low, values.high, log=values.log)
                params[name] = float(f"{value:.3g}")
            else:
                params[name] = trial.suggest_categorical(name, list(values))
        return params

    def report(self, value: float, step: int, number: int = 0) -> None:
        if number in self._asked:
            self._asked[number].report(float(value), int(step))

    def should_prune(self, number: int = 0) -> bool:
        return number in self._asked and self._asked[number].should_prune()

    def tell(self, score: float | None, pruned: bool = False, number: int = 0) -> None:
        trial = self._asked.pop(number, None)
        if trial is None:
            return
        state = self._optuna.trial.TrialState
        if pruned:
            self.study.tell(trial, state=state.PRUNED)
        elif score is None:
            self.study.tell(trial, state=state.FAIL)
        else:
            self.study.tell(trial, float(score))


def search_for(spec: SweepSpec) -> Search:
    return OptunaSearch(spec) if spec.method == "optuna" else Search(spec)
