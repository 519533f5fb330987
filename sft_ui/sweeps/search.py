"""How a sweep picks its next trial's settings (grid, random, or Optuna's TPE with its median
pruner) behind one interface: `ask`, `report`, `should_prune`, `tell`, with several trials
asked before any is told (trials on Hugging Face Jobs).
"""
from __future__ import annotations

import random
from pathlib import Path

from sft_ui.sweeps.space import Range, SweepSpec

PRUNE_AFTER_TRIALS = 2  # the median pruner waits for this many finished trials
PRUNE_AFTER_STEPS = 1
REPEATS = 50  # settings Optuna may suggest again before one not tried is taken


class Search:
    """Grid or random search: the settings to try, in order; no pruning. A search resumed
    after its app stopped asks first, again, the settings of the trials the stop cut off
    (`again`), and runs none of `tried` twice."""

    def __init__(self, spec: SweepSpec, storage: Path | None = None, tried=(), again=()):
        self.spec = spec
        self._rng = random.Random(spec.seed)
        self._grid = spec.grid() if spec.method == "grid" else None
        self._asked = 0
        self._tried: set = set()
        self._again = [dict(p) for p in again]  # cut off by a stop of the app: first
        self._tried.update(_key(p) for p in tried)  # (a resumed sweep's: not run again)
        self._before = 0  # the grid's settings a resumed sweep ran before its stop
        if self._grid is not None:
            skip = self._tried | {_key(p) for p in self._again}  # (those cut off: first)
            self._before = sum(1 for p in self._grid if _key(p) in self._tried)
            self._grid = self._again + [p for p in self._grid if _key(p) not in skip]
            self._again = []

    def size(self) -> int | None:
        """How many trials the search can give in all, those a resumed sweep ran before
        included (None: no end)."""
        if self._grid is not None:
            return self._before + len(self._grid)
        if any(isinstance(v, Range) for v in self.spec.vary.values()):
            return None
        return len(self.spec.grid())  # random over lists: each combination once

    def ask(self, number: int = 0) -> dict | None:
        if self._again:
            return self._again.pop(0)
        if self._grid is not None:
            if self._asked >= len(self._grid):
                return None
            self._asked += 1
            return dict(self._grid[self._asked - 1])
        for _ in range(1000):  # random: a combination not tried yet where one is left
            params = {n: v.draw(self._rng) if isinstance(v, Range) else self._rng.choice(v)
                      for n, v in self.spec.vary.items()}
            key = _key(params)
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
    trial's eval scores so far against the finished trials' at the same step. The study is
    kept on disk in its journal file (`storage`), so trials told before a stop of the app
    still guide it and none is told twice."""

    def __init__(self, spec: SweepSpec, storage: Path | None = None, tried=(), again=()):
        super().__init__(spec)
        import optuna  # loaded when a sweep uses it
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._optuna = optuna
        kept = JournalStorage(JournalFileBackend(str(storage))) if storage else None
        self.study = optuna.create_study(
            storage=kept, study_name=storage.stem if storage else None, load_if_exists=True,
            direction="maximize" if spec.higher_is_better else "minimize",
            sampler=optuna.samplers.TPESampler(seed=spec.seed),
            pruner=optuna.pruners.MedianPruner(n_startup_trials=PRUNE_AFTER_TRIALS,
                                               n_warmup_steps=PRUNE_AFTER_STEPS))
        self._trials: dict = {}  # trial number: Optuna's trial, until told
        state = optuna.trial.TrialState
        for cut in self.study.get_trials(deepcopy=False, states=(state.RUNNING,)):
            self.study.tell(cut.number, state=state.FAIL)  # (the stop cut it off)
        for params in again:
            self.study.enqueue_trial(params)

    def size(self) -> int | None:
        return super().size() if self.spec.method == "grid" else None

    def ask(self, number: int = 0) -> dict | None:
        """The next settings to try; settings tried already are not tried again (Optuna
        is told their score once more and asked again), and none is left once every
        combination of lists has a score."""
        state = self._optuna.trial.TrialState
        scored = {_key(t.params): t.value for t in self.study.get_trials(
            deepcopy=False, states=(state.COMPLETE,))}
        finite = not any(isinstance(v, Range) for v in self.spec.vary.values())
        for _ in range(REPEATS):
            if finite and len(scored) >= len(self.spec.grid()):
                return None
            trial = self.study.ask()  # (an enqueued one: its settings)
            params = {name: self._suggest(trial, name, values)
                      for name, values in self.spec.vary.items()}
            if _key(params) not in scored:
                break
            self.study.tell(trial, scored[_key(params)])
        self._trials[number] = trial
        return params

    @staticmethod
    def _suggest(trial, name: str, values):
        if isinstance(values, Range) and values.integer:
            return trial.suggest_int(name, int(values.low), int(values.high), log=values.log)
        if isinstance(values, Range):
            value = trial.suggest_float(name, values.low, values.high, log=values.log)
            return float(f"{value:.3g}")
        return trial.suggest_categorical(name, list(values))

    def report(self, value: float, step: int, number: int = 0) -> None:
        """A trial's eval loss at `step` (lower is better): told to a study that maximizes
        its score (exact match...) as its negative, so the pruner stops the worse trials,
        not the better."""
        if number in self._trials:
            loss = float(value)
            self._trials[number].report(-loss if self.spec.higher_is_better else loss,
                                        int(step))

    def should_prune(self, number: int = 0) -> bool:
        return number in self._trials and self._trials[number].should_prune()

    def tell(self, score: float | None, pruned: bool = False, number: int = 0) -> None:
        trial = self._trials.pop(number, None)
        if trial is None:
            return
        state = self._optuna.trial.TrialState
        if pruned:
            self.study.tell(trial, state=state.PRUNED)
        elif score is None:
            self.study.tell(trial, state=state.FAIL)
        else:
            self.study.tell(trial, float(score))


def _key(params: dict) -> tuple:
    return tuple(sorted(params.items()))


def search_for(spec: SweepSpec, storage: Path | None = None, tried=(), again=()) -> Search:
    """The sweep's search; `storage`: where Optuna keeps its study (a journal file);
    `tried`, the settings of the trials a resumed sweep ran; `again`, those to ask first."""
    if spec.method == "optuna":
        return OptunaSearch(spec, storage, tried, again)
    return Search(spec, storage, tried, again)
