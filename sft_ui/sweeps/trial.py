"""One trial of a sweep, from its start to its score: queued as an ordinary run, or started at
once on Hugging Face Jobs beside its batch; followed while it trains (reported to the search,
which may prune it); judged when it ends. A trial is a dict the sweep's file keeps.
"""
from __future__ import annotations

import time

from sft_ui.errors import UserError, said
from sft_ui.i18n.message import Message
from sft_ui.plan.plateau import LENGTH, ended_by
from sft_ui.runs.folder import BEST_MARK
from sft_ui.sweeps.score import eval_losses, last_eval_loss

ENDED = ("done", "stopped", "failed")


def new_trial(number: int, params: dict) -> dict:
    return {"number": number, "params": params, "queued_id": "", "run_id": "",
            "state": "queued", "score": None, "pruned": False, "error": "",
            "seconds": None, "started": time.time()}


def trial_name(sweep_id: str, number: int) -> str:
    """A trial's run's name: the sweep's short id and the trial's number."""
    return f"sweep-{sweep_id.rsplit('-', 1)[-1]} #{number}"


def names(manager, sweep_id: str, trials: list[dict], best: dict | None) -> None:
    """The trials' runs named again, the best marked (a run the person renamed keeps the
    name given), so that the Runs tab and the model lists say which is which."""
    for trial in trials:
        if not trial.get("run_id"):
            continue
        own = trial_name(sweep_id, trial["number"])
        try:
            run = manager.get(trial["run_id"])
            if run.name in (run.id, own, own + BEST_MARK):
                manager.rename(run.id, own + (BEST_MARK if trial is best else ""))
        except UserError:  # (a run deleted since)
            continue


class Trials:
    """A sweep's way of running its trials: `queue` and `manager` of the app, `scorer`,
    the sweep's `search`, and `halted()`, true once the sweep is stopped."""

    def __init__(self, sweep, queue, manager, scorer, search, token: str = ""):
        self.sweep, self.queue, self.manager = sweep, queue, manager
        self.scorer, self.search, self.token = scorer, search, token
        self._reported: dict[int, int] = {}
        self._asked_stop: set[int] = set()

    # ---- starting ----------------------------------------------------------------
    def queue_one(self, trial: dict, cfg, keep) -> None:
        """Queue the trial's run (it starts when the runs before it end)."""
        self._guard(trial, lambda: trial.update(
            queued_id=self.queue.add(cfg, self.sweep.owner, keep=keep)))

    def start_on_jobs(self, trial: dict, cfg, keep) -> None:
        """Start the trial's run on Hugging Face Jobs now, beside the others (the queue
        cannot hold a run on Jobs, whose token is kept in memory only)."""
        def start():
            trial["run_id"] = self.manager.start_beside(cfg, self.token, keep)
            names(self.manager, self.sweep.id, [trial], None)
            trial["state"] = "running"
        self._guard(trial, start)

    def _guard(self, trial: dict, start) -> None:
        try:
            start()
        except UserError as e:  # its settings refused: the next trial goes on
            self._failed(trial, said(e))

    def _failed(self, trial: dict, error: str) -> None:
        trial["state"], trial["error"] = "failed", error
        trial["seconds"] = time.time() - trial["started"]
        self.search.tell(None, number=trial["number"])

    # ---- following -----------------------------------------------------------------
    def follow(self, batch: list[dict], poll: float) -> None:
        """Until every trial of the batch has ended: each started from the queue found,
        its eval losses reported, a pruned or halted one stopped; then each judged."""
        waiting = [t for t in batch if t["state"] != "failed"]
        while waiting:
            waiting = [t for t in waiting if not self._looked_at(t)]
            if waiting:
                time.sleep(poll)
        for trial in batch:
            if trial["seconds"] is None:
                self.judge(trial)

    def _looked_at(self, trial: dict) -> bool:
        """One look at a trial; True once it has ended (or left the queue). While it
        waits in the queue behind other runs, the sweep's clock is paused."""
        if not trial["run_id"] and not self._started(trial):
            self.sweep.waiting(trial["state"] == "queued")
            return trial["state"] in ("failed", "removed")
        self.sweep.waiting(False)
        run = self.manager.get(trial["run_id"])
        losses = eval_losses(run)
        number = trial["number"]
        for step, loss in losses[self._reported.get(number, 0):]:
            self.search.report(loss, step, number)
        self._reported[number] = len(losses)
        if run.state in ENDED:
            return True
        halted = self.sweep.halted()
        if number not in self._asked_stop and (halted or self.search.should_prune(number)):
            trial["pruned"] = not halted
            self.manager.stop(run.id)
            self._asked_stop.add(number)
        return False

    def _started(self, trial: dict) -> bool:
        """Whether the queued trial's run has started (its id then on the trial)."""
        row = next((r for r in self.queue.rows(self.sweep.owner)
                    if r["id"] == trial["queued_id"]), None)
        if row is None or row["state"] == "not started":
            self._failed(trial, (row or {}).get("error") or Message("It left the queue."))
            return False
        if self.sweep.halted() and not row.get("run_id"):
            self.queue.remove(trial["queued_id"], self.sweep.owner)
            trial["state"], trial["seconds"] = "removed", time.time() - trial["started"]
            self.search.tell(None, number=trial["number"])
            return False
        trial["run_id"] = row.get("run_id") or ""
        if trial["run_id"]:
            trial["state"] = "running"
            names(self.manager, self.sweep.id, [trial], None)
            self.sweep.save()
        return bool(trial["run_id"])

    # ---- judging -------------------------------------------------------------------
    def judge(self, trial: dict) -> None:
        """The ended trial's score, told to the search: none for a failed or halted one,
        nor for a pruned one (its last eval loss kept as `pruned_loss`, ranked after the
        others)."""
        number = trial["number"]
        try:
            run = self.manager.get(trial["run_id"])
            trial["state"], trial["error"] = run.state, run.error
            trial["pruned"] = trial["pruned"] and run.state == "stopped"  # (not: it ended)
            if run.state == "failed" or self.sweep.halted():  # (stopped: not judged)
                self.search.tell(None, number=number)
            elif trial["pruned"]:  # (its last eval loss apart: not a score of a whole run)
                trial["pruned_loss"] = last_eval_loss(run)
                self.search.tell(None, pruned=True, number=number)
            else:
                trial["state"] = "scoring"
                self.sweep.save()
                began = time.time()
                trial["score"] = self.scorer(self.sweep.spec, run)
                trial["rows"] = getattr(self.scorer, "rows", None)  # (what it was judged on)
                trial["judge_seconds"] = time.time() - began
                trial["state"] = run.state
                self.search.tell(trial["score"], number=number)
        except UserError as e:  # its judging failed: the next trial goes on
            trial["state"], trial["error"] = "failed", said(e)
            self.search.tell(None, number=number)
        finally:
            trial["seconds"] = time.time() - trial["started"]
            self._trained(trial)

    def _trained(self, trial: dict) -> None:
        """What the trial's run trained: its steps, its epochs and why it ended (the
        held-out rows' plateau, the budget's end, its whole length, pruned or stopped)."""
        try:
            run = self.manager.get(trial["run_id"])
        except UserError:
            return
        epochs = [m["epoch"] for m in run.metrics if "epoch" in m]
        judged = ended_by(run.metrics)
        trial["steps"], trial["epochs"] = run.step, round(max(epochs), 2) if epochs else None
        trial["ended_by"] = "pruned" if trial["pruned"] else judged[0] if judged else \
            run.state if run.state in ("stopped", "failed") else LENGTH
