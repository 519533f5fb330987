"""A sweep running: its trials one after another, each an ordinary run that waits its turn
in the run queue (runs/run_queue.py) with the settings the search asks for, judged on
held-out data when it ends (score.py), the search told its score. The time budget holds
for the whole sweep: the planner's estimate of a trial decides how many fit, and each
trial's own time budget is its share of the time left, so the last one ends by the
deadline with its model saved. Optuna's pruner may stop a trial whose eval losses are
clearly worse than the others' at the same step. A sweep's state is kept in
sweeps/<id>.json of the runs folder; one whose app ended while it ran is "interrupted".
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import threading
import time
import uuid
from pathlib import Path

from sft_ui.access import LOCAL_OWNER
from sft_ui.errors import UserError
from sft_ui.runs import RunError
from sft_ui.runs.run_queue import estimate
from sft_ui.sweeps.score import eval_losses, score_seconds
from sft_ui.sweeps.search import search_for
from sft_ui.sweeps.space import MAX_TRIALS, SweepSpec

FOLDER = "sweeps"
ENDED = ("done", "stopped", "failed")
DEFAULT_TRIAL_SECONDS = 180.0  # a trial whose length its time budget sets, planned alone
MIN_TRIAL_SECONDS = 45.0  # less time left than this: no trial is started
HELD_OUT = 0.1  # the held-out fraction a sweep's trials keep when the page gave no eval data
POLL_SECONDS = 0.5


class SweepError(UserError):
    """A sweep that cannot start, or is not there."""


class Sweep:
    def __init__(self, spec: SweepSpec, owner: str, root: Path):
        self.id = time.strftime("sweep-%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
        self.spec, self.owner = spec, owner
        self.path = Path(root) / FOLDER / f"{self.id}.json"
        self.state, self.error = "running", ""
        self.started = time.time()
        self.deadline = self.started + spec.budget_minutes * 60
        self.planned = 0  # trials that fit, as planned at the start
        self.estimate_seconds: float | None = None  # the planner's, for the whole sweep
        self.trial_estimate: float | None = None
        self.finished: float | None = None
        self.trials: list[dict] = []
        self._stop = threading.Event()
        self._done = threading.Event()
        self._closed: threading.Event | None = None  # the manager's: the app is closing

    def _halted(self) -> bool:
        """Stop asked of the sweep, or the app closing."""
        return self._stop.is_set() or bool(self._closed and self._closed.is_set())

    # ---- what the page and the API read ----------------------------------------
    def ranked(self) -> list[dict]:
        """The trials with a score, best first; then those without (pruned, failed)."""
        scored = [t for t in self.trials if t.get("score") is not None and not t["pruned"]]
        scored.sort(key=lambda t: t["score"], reverse=self.spec.higher_is_better)
        return scored + [t for t in self.trials if t not in scored]

    def best(self) -> dict | None:
        ranked = self.ranked()
        return ranked[0] if ranked and ranked[0] in self._scored() else None

    def _scored(self) -> list[dict]:
        return [t for t in self.trials if t.get("score") is not None and not t["pruned"]]

    def snapshot(self) -> dict:
        best = self.best()
        ended = self.finished or time.time()
        return {"id": self.id, "state": self.state, "error": self.error,
                "spec": self.spec.to_dict(), "planned": self.planned,
                "estimate_seconds": self.estimate_seconds,
                "seconds": ended - self.started, "deadline": self.deadline,
                "trials": self.ranked(), "best": best,
                "higher_is_better": self.spec.higher_is_better}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {**self.snapshot(), "owner": self.owner, "started": self.started,
                "finished": self.finished, "trials": self.trials}
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(partial, self.path)

    @classmethod
    def load(cls, path: Path) -> "Sweep":
        data = json.loads(path.read_text(encoding="utf-8"))
        sweep = cls.__new__(cls)
        sweep.id, sweep.path = data["id"], path
        sweep.spec = SweepSpec(**data["spec"])
        sweep.owner = data.get("owner", LOCAL_OWNER)
        sweep.state, sweep.error = data["state"], data.get("error", "")
        if sweep.state == "running":  # its app ended while it ran
            sweep.state = "interrupted"
            sweep.error = "The app stopped while this sweep ran: its trials so far are kept."
        sweep.started, sweep.deadline = data["started"], data["deadline"]
        sweep.planned, sweep.estimate_seconds = data["planned"], data["estimate_seconds"]
        sweep.trial_estimate = None
        sweep.finished, sweep.trials = data.get("finished"), data["trials"]
        sweep._stop, sweep._done, sweep._closed = threading.Event(), threading.Event(), None
        sweep._done.set()
        return sweep

    # ---- running it ------------------------------------------------------------
    def base_config(self):
        """The page's settings every trial starts from: with held-out rows where it has
        no eval data and is judged on them (fixed by the seed: the same rows for all)."""
        cfg = self.spec.config()
        has_eval = cfg.eval_fraction or cfg.eval_dataset_name.strip() or \
            cfg.dataset_test_split.strip()
        if not has_eval and self.spec.score != "reward" and not self.spec.eval_file.strip():
            cfg = dataclasses.replace(cfg, eval_fraction=HELD_OUT)
        return cfg

    def plan_trials(self, size: int | None) -> int:
        """How many trials fit the budget: those run so far, and as many more as fit the
        time left at the mean time the trials so far took (their judging counted), or
        before any ended at the planner's estimate of one (its judging added; a
        trial whose length its time budget sets: DEFAULT_TRIAL_SECONDS); `spec.trials`
        where the person set it; at most the search's size. The first call sets the
        sweep's estimate of its whole time."""
        if self.spec.trials:
            return min(self.spec.trials, size or MAX_TRIALS)
        if self.estimate_seconds is None:
            self.trial_estimate = estimate(self.spec.config())  # (the queue's row says it too)
        taken = [t["seconds"] for t in self.trials if t.get("seconds")]
        per = sum(taken) / len(taken) if taken else \
            (self.trial_estimate or DEFAULT_TRIAL_SECONDS) + score_seconds(self.spec.score)
        left = max(0.0, self.deadline - time.time())
        planned = min(len(self.trials) + math.floor((left + 1) / max(per, 1.0)),
                      size or MAX_TRIALS, MAX_TRIALS)
        if self.estimate_seconds is None:
            self.estimate_seconds = min(max(planned, 1) * per, self.spec.budget_minutes * 60)
        return planned

    def run(self, queue, manager, scorer) -> None:
        """The sweep's thread: each trial queued, followed and judged in turn, until the
        search has no more, or no more fit the time left."""
        self._closed = manager.closed
        try:
            search = search_for(self.spec)
            base = self.base_config()
            self.planned = max(1, self.plan_trials(search.size()))
            self.save()
            while len(self.trials) < self.planned and not self._halted():
                left = self.deadline - time.time()
                share = left / (self.planned - len(self.trials)) - \
                    score_seconds(self.spec.score)
                if share < MIN_TRIAL_SECONDS:
                    break
                params = search.ask()
                if params is None:
                    break
                minutes = share / 60
                if base.time_budget_minutes:
                    minutes = min(minutes, base.time_budget_minutes)
                cfg = dataclasses.replace(base, **params, time_budget_minutes=round(minutes, 2))
                trial = {"number": len(self.trials) + 1, "params": params, "queued_id": "",
                         "run_id": "", "state": "queued", "score": None, "pruned": False,
                         "error": "", "seconds": None, "started": time.time()}
                self.trials.append(trial)
                self._trial(trial, cfg, queue, manager, scorer, search)
                self.planned = max(len(self.trials), self.plan_trials(search.size()))
                self.save()
            self.state = "stopped" if self._halted() else "done"
        except Exception as e:  # the page shows it; the server keeps running
            self.state, self.error = "failed", str(e) if isinstance(e, UserError) else \
                f"{type(e).__name__}: {e}"
        finally:
            self.finished = time.time()
            try:
                self.save()
            finally:
                self._done.set()

    def _trial(self, trial, cfg, queue, manager, scorer, search) -> None:
        try:
            trial["queued_id"] = queue.add(cfg, self.owner, keep=list(trial["params"]))
            run = self._follow(trial, queue, manager, search)
            if run is None:
                return
            trial["state"], trial["error"] = run.state, run.error
            trial["pruned"] = trial["pruned"] and run.state == "stopped"  # (not: it ended)
            if run.state == "failed" or self._halted():  # (stopped: not judged)
                search.tell(None)
                return
            if trial["pruned"]:
                losses = eval_losses(run)
                trial["score"] = losses[-1][1] if losses else None
                search.tell(None, pruned=True)
                return
            trial["state"] = "scoring"
            self.save()
            trial["score"] = scorer(self.spec, run)
            trial["state"] = run.state
            search.tell(trial["score"])
        except UserError as e:  # its settings refused, its judging failed: the next goes on
            trial["state"], trial["error"] = "failed", str(e)
            search.tell(None)
        finally:
            trial["seconds"] = time.time() - trial["started"]

    def _follow(self, trial, queue, manager, search):
        """Wait for the queued trial to start and end; report its eval losses to the
        search, and stop it when the search prunes it or the sweep is stopped."""
        reported, asked_stop = 0, False
        while True:
            if not trial["run_id"]:
                row = next((r for r in queue.rows(self.owner)
                            if r["id"] == trial["queued_id"]), None)
                if row is None or row["state"] == "not started":
                    trial["state"] = "failed"
                    trial["error"] = (row or {}).get("error") or "It left the queue."
                    search.tell(None)
                    return None
                if self._halted() and not row.get("run_id"):
                    queue.remove(trial["queued_id"], self.owner)
                    trial["state"] = "removed"
                    return None
                trial["run_id"] = row.get("run_id") or ""
                if trial["run_id"]:
                    trial["state"] = "running"
                    self.save()
            if trial["run_id"]:
                run = manager.get(trial["run_id"])
                losses = eval_losses(run)
                for step, loss in losses[reported:]:
                    search.report(loss, step)
                reported = len(losses)
                if run.state in ENDED:
                    return run
                if not asked_stop and (self._halted() or search.should_prune()):
                    trial["pruned"] = not self._halted()
                    manager.stop(run.id)
                    asked_stop = True
            time.sleep(POLL_SECONDS)


class Sweeps:
    """The sweeps of a runs folder: one runs at a time on the server."""

    def __init__(self, queue, manager, scorer):
        self.queue, self.manager, self.scorer = queue, manager, scorer
        self.root = Path(manager.root)
        self._live: dict[str, Sweep] = {}
        self._lock = threading.Lock()

    def start(self, spec: SweepSpec, owner: str = LOCAL_OWNER) -> Sweep:
        self.manager.check(spec.base, idle=False)  # its settings, as Start checks them
        with self._lock:
            running = [s for s in self._live.values() if not s._done.is_set()]
            if running:
                raise SweepError(f"Sweep {running[0].id} is running: stop it, or wait until "
                                 "it ends, before starting another.")
            sweep = Sweep(spec, owner, self.root)
            self._live[sweep.id] = sweep
        sweep.save()
        threading.Thread(target=sweep.run, args=(self.queue, self.manager, self.scorer),
                         daemon=True, name=sweep.id).start()
        return sweep

    def get(self, sweep_id: str, owner: str | None = None) -> Sweep:
        sweep_id = str(sweep_id or "").strip()
        sweep = self._live.get(sweep_id)
        path = self.root / FOLDER / f"{sweep_id}.json"
        if sweep is None and "/" not in sweep_id and path.exists():
            try:
                sweep = Sweep.load(path)
            except (ValueError, KeyError, TypeError, OSError):
                sweep = None
        if sweep is None or (owner is not None and sweep.owner != owner):
            raise SweepError(f"No sweep {sweep_id[:40]} of yours: the sweep panel lists "
                             "yours.")
        return sweep

    def ids(self, owner: str | None = None) -> list[str]:
        """The sweeps of the folder (`owner`'s only), newest first."""
        folder = self.root / FOLDER
        found = {p.stem for p in folder.glob("sweep-*.json")} if folder.exists() else set()
        out = []
        for sweep_id in sorted(found | set(self._live), reverse=True):
            try:
                self.get(sweep_id, owner)
            except SweepError:
                continue
            out.append(sweep_id)
        return out

    def stop(self, sweep_id: str, owner: str | None = None) -> Sweep:
        """Stop the sweep: its running trial stops and saves, a queued one leaves."""
        sweep = self.get(sweep_id, owner)
        sweep._stop.set()
        return sweep

    def wait(self, sweep: Sweep, timeout: float | None = None) -> bool:
        return sweep._done.wait(timeout)

    def close(self) -> None:
        for sweep in list(self._live.values()):
            sweep._stop.set()
        for sweep in list(self._live.values()):
            if not sweep._done.wait(60):
                raise RunError(f"Sweep {sweep.id} did not stop within 60 s.")
