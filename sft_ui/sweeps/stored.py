"""A sweep kept on disk (sweeps/<id>.json of the runs folder, written whole) and read back
by the next app: one whose app ended while it ran is "interrupted", its unfinished trials
too (`settle`), and can be resumed (`resume`). Knows the sweep's record, nothing of how it
runs.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Self, TypedDict

from sft_ui.access import LOCAL_OWNER
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.sweeps.space import SweepSpec


class SweepSnapshot(TypedDict):
    """A sweep as the page, the API and the command line read it (Sweep.snapshot)."""
    id: str
    state: str  # running, paused, done, stopped, failed or interrupted
    error: str  # why it ended early ("": it did not); a Message where the studio said it
    spec: dict  # what it varies and how it judges (SweepSpec.to_dict)
    planned: int  # the trials that fit its budget
    first_planned: int  # the trials planned when it started
    length: dict | None  # the one length every trial trains, where one was set
    estimate_seconds: float | None  # the whole sweep's, once planned
    seconds: float  # its time so far, pauses and the app's down time left out
    paused: float
    deadline: float
    trials: list[dict]  # each trial's record (trial.new_trial's keys), best first
    best: dict | None
    kept_quick: dict | None  # the quick path's trial kept over a better score in noise
    higher_is_better: bool


FOLDER = "sweeps"
INTERRUPTED = Message("The app stopped while this sweep ran: its trials so far are kept.")
TRIAL_INTERRUPTED = Message("The app stopped while this trial ran.")


def _alive(pid) -> bool:
    """Whether the process that saved a sweep still runs (another server on the folder)."""
    if not pid or pid == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError):
        return False
    return True


class StoredSweep:
    """A sweep's record (sweeps/sweep.py's Sweep fills it in and runs it) and its saving,
    reading back, settling and resuming."""

    id: str
    path: Path
    spec: SweepSpec
    owner: str
    state: str
    error: str | Message
    started: float
    deadline: float
    planned: int  # trials that fit, planned again as trials end
    estimate_seconds: float | None  # the planner's, for the whole sweep
    trial_estimate: float | None
    first_planned: int  # the trials that fit, as planned before the first
    length: dict | None  # the steps every trial trains (Sweep._set_length)
    finished: float | None
    trials: list[dict]
    offline: float  # seconds its app was down before the sweep was resumed
    interrupted_at: float | None  # when its app stopped while it ran
    _again: list[dict]  # the settings of trials a stop cut off (resume)
    cut: bool  # read back as running by another app: its app stopped (settle)
    paused: float  # seconds its trials waited in the queue behind other runs
    _waiting_since: float | None
    _stop: threading.Event
    _done: threading.Event
    _closed: threading.Event | None  # the manager's: the app is closing

    def snapshot(self) -> SweepSnapshot:
        raise NotImplementedError  # (Sweep's: what the page and the API read)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {**self.snapshot(), "owner": self.owner, "started": self.started,
                "finished": self.finished, "trials": self.trials, "offline": self.offline,
                "interrupted_at": self.interrupted_at, "pid": os.getpid()}
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(partial, self.path)

    @classmethod
    def load(cls, path: Path) -> Self:
        data = json.loads(path.read_text(encoding="utf-8"))
        sweep = cls.__new__(cls)
        sweep.id, sweep.path = data["id"], path
        sweep.spec = SweepSpec(**data["spec"])
        sweep.owner = data.get("owner", LOCAL_OWNER)
        sweep.state, sweep.error = data["state"], data.get("error", "")
        sweep.offline = data.get("offline", 0.0)
        sweep.interrupted_at = data.get("interrupted_at")
        sweep.paused, sweep._waiting_since = data.get("paused", 0.0), None
        sweep._again, sweep.cut = [], sweep.state == "running" and not _alive(data.get("pid"))
        if sweep.state == "running":  # its app ended while it ran (or runs it elsewhere)
            sweep.state = "interrupted"
            sweep.error = INTERRUPTED
        sweep.started, sweep.deadline = data["started"], data["deadline"]
        sweep.planned, sweep.estimate_seconds = data["planned"], data["estimate_seconds"]
        sweep.trial_estimate = None
        sweep.first_planned, sweep.length = data.get("first_planned", 0), data.get("length")
        sweep.finished, sweep.trials = data.get("finished"), data["trials"]
        sweep._stop, sweep._done, sweep._closed = threading.Event(), threading.Event(), None
        sweep._done.set()
        return sweep

    # ---- after its app stopped ---------------------------------------------------
    def settle(self, queue) -> None:
        """A sweep whose app stopped while it ran, read by the next: its unfinished trials
        are "interrupted" (a queued one leaves the queue, which would otherwise start it
        as a run of no sweep), and so is the sweep, until it is resumed."""
        self.interrupted_at = self.interrupted_at or self.path.stat().st_mtime
        for trial in self.trials:
            if trial["seconds"] is not None:
                continue
            if trial["queued_id"] and not trial["run_id"]:
                try:
                    queue.remove(trial["queued_id"], self.owner)
                except UserError:  # (it had left the queue)
                    pass
            if trial["state"] == "scoring":  # (its run whole: judged when resumed, not run)
                trial["judge_again"] = True
            trial["state"], trial["error"] = "interrupted", TRIAL_INTERRUPTED
            trial["seconds"] = max(0.0, self.interrupted_at - trial["started"])
        self.cut = False
        self.save()

    def resume(self) -> None:
        """Go on after a stop of its app: the time it was down is not counted (the budget
        left is what was left then), and the trials the stop cut off are asked again first
        (one cut off while it was judged is judged: Sweep.run); the finished ones are kept
        and never run again."""
        now = time.time()
        down = max(0.0, now - (self.interrupted_at or now))
        self.offline += down
        self.deadline += down
        cut = [t for t in self.trials if t["state"] == "interrupted" and not t.get("retried")]
        self._again = [dict(t["params"]) for t in cut if not t.get("judge_again")]
        for trial in cut:
            trial["retried"] = True
        self.state, self.error, self.finished, self.interrupted_at = "running", "", None, None
        self._stop, self._done = threading.Event(), threading.Event()
