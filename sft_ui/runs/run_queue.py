"""The run queue: runs that wait to start, one after another on this machine, first queued
first run, each person seeing and changing only their own. Kept whole in queue.json in the
runs folder, read and written under a lock, so a restart loses nothing and the command line
and the app share one queue.
"""
from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sft_ui.access import LOCAL_OWNER
from sft_ui.config import ConfigError, RunConfig
from sft_ui.errors import UserError, said
from sft_ui.i18n.message import Message, from_json, saved_messages
from sft_ui.plan.planner import plan
from sft_ui.runs.run import RunError

FILE = "queue.json"
STARTED_KEPT = 20  # started runs the queue still lists (their state and error)
WATCH_SECONDS = 5.0  # how often the served app looks for runs queued from elsewhere


class QueueError(UserError):
    """A queued run that is not there, or not the caller's."""


@dataclass
class Queued:
    """One queued run: its settings (RunConfig's fields that differ from the defaults),
    who queued it, when, why it could not start (then it waits no more), and the run it
    became once started (the queue keeps the last STARTED_KEPT of those)."""
    id: str
    config: dict
    owner: str = LOCAL_OWNER
    added: float = field(default_factory=time.time)
    error: str | dict = ""  # its English, or a Message as JSON holds it (as_json)
    run_id: str = ""
    keep: list = field(default_factory=list)  # settings a time budget leaves (Run.keep)

    @property
    def waiting(self) -> bool:
        return not (self.error or self.run_id)

    def row(self) -> dict:
        cfg = RunConfig.from_dict(self.config)
        return {**asdict(self), "changed": changed(cfg), "stage": cfg.stage,
                "seconds": estimate(cfg) if self.waiting else None}


def _kept(error: Exception) -> str | dict:
    """What the queue's file keeps of why a run could not start: its Message as JSON holds
    it (said in the reader's language when listed), else its English."""
    return saved_messages({"error": said(error)}, ("error",)).get("error") or str(error)


def estimate(cfg: RunConfig) -> float | None:
    """The seconds a queued run takes: its time budget, else the planner's estimate where
    a speed was measured for such a run; None when neither says."""
    if cfg.time_budget_minutes:
        return cfg.time_budget_minutes * 60
    try:
        return plan(cfg).get("seconds_total")
    except (UserError, OSError, ValueError):
        return None


def changed(cfg: RunConfig) -> dict:
    """The settings of cfg that differ from the defaults (a row of the queue shows them)."""
    defaults = RunConfig().to_dict()
    return {k: v for k, v in cfg.to_dict().items() if defaults.get(k) != v}


class RunQueue:
    """The file is the truth: every change reads it, changes it and writes it whole under a
    lock (`_locked`). The next waiting run starts when the manager has none training (a
    run that ends, done, stopped or failed, starts the next)."""

    def __init__(self, manager, path: Path | None = None, listen: bool = True):
        """`listen`: start the next run when the manager's run ends (one queue object
        of a manager does; a watcher need not)."""
        self.manager = manager
        self.path = Path(path) if path else manager.root / FILE
        self._lock = threading.RLock()
        if listen:
            manager.when_idle.append(self.pump)

    # ---- the file --------------------------------------------------------------
    @contextmanager
    def _locked(self):
        """The queue's file to this caller alone: this process's threads, its other
        queue objects and other processes (the command line) wait."""
        with self._lock, open(self.path.with_name(self.path.name + ".lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"next": 1, "runs": []}
        except ValueError:
            raise QueueError(Message("The run queue ({path}) is not readable JSON: fix or "
                                     "delete the file; no run was started from it.",
                                     path=str(self.path))) from None
        return {"next": int(data.get("next", 1)),
                "runs": [Queued(**r) for r in data.get("runs", [])]}

    def _write(self, data: dict) -> None:
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps({"next": data["next"],
                                       "runs": [asdict(r) for r in data["runs"]]}, indent=1),
                           encoding="utf-8")
        os.replace(partial, self.path)  # never half a file, even when killed here

    # ---- what a person does ------------------------------------------------------
    def add(self, values: dict | RunConfig, owner: str = LOCAL_OWNER, keep=()) -> str:
        """Check the settings as Start checks them (leaving out the run training now),
        queue them; the queued run's id. Starts it at once when nothing trains. `keep`:
        settings its time budget leaves as they are (a sweep's trial)."""
        cfg = self.manager.check(values, idle=False)
        if cfg.run_on == "hf_jobs":
            raise ConfigError([Message("A run on Hugging Face Jobs cannot wait in the queue: "
                                       "its token is kept in memory only while it starts. "
                                       "Start it when the run training now ends.")])
        with self._locked():
            data = self._read()
            queued = Queued(f"q{data['next']}", changed(cfg), owner, keep=list(keep))
            data["next"] += 1
            data["runs"].append(queued)
            self._write(data)
        self.pump()
        return queued.id

    def rows(self, owner: str | None = None) -> list[dict]:
        """The queue's runs (with `owner`: that person's only): the waiting ones in the
        order they will start, each with its place in the whole queue, then those that
        could not start, then those started from it with their run's state and error.
        `seconds`: what a waiting run will take, what a started one took (so far)."""
        if not self.path.exists():
            return []
        with self._locked():
            runs = self._read()["runs"]
        places = {r.id: n for n, r in enumerate([r for r in runs if r.waiting], 1)}
        out = []
        for r in runs:
            if owner is not None and r.owner != owner:
                continue
            row = {**r.row(), "place": places.get(r.id), "state": "waiting"}
            if r.error:
                row["state"], row["error"] = "not started", from_json(r.error)
            elif r.run_id:
                try:
                    run = self.manager.get(r.run_id)
                    row["state"], row["error"] = run.state, run.error
                    row["seconds"] = run.elapsed_seconds()
                except UserError:
                    row["state"] = "deleted"
            out.append(row)
        order = {"waiting": 0, "not started": 1}
        return sorted(out, key=lambda row: order.get(row["state"], 2))

    def remove(self, queued_id: str, owner: str = LOCAL_OWNER) -> None:
        with self._locked():
            data = self._read()
            data["runs"].remove(self._mine(data, queued_id, owner))
            self._write(data)

    def move(self, queued_id: str, offset: int, owner: str = LOCAL_OWNER) -> None:
        """Move a waiting run `offset` places among its owner's own (another person's
        runs keep their places)."""
        with self._locked():
            data = self._read()
            run = self._mine(data, queued_id, owner)
            spots = [n for n, r in enumerate(data["runs"]) if r.owner == run.owner]
            mine = [data["runs"][n] for n in spots]
            at = mine.index(run)
            to = max(0, min(len(mine) - 1, at + offset))
            mine.insert(to, mine.pop(at))
            for n, r in zip(spots, mine):
                data["runs"][n] = r
            self._write(data)

    def edit(self, queued_id: str, values: dict | RunConfig, owner: str = LOCAL_OWNER) -> None:
        """New settings for a waiting run (checked as add checks them); its place stays,
        and an error it had goes (it waits again)."""
        cfg = self.manager.check(values, idle=False)
        with self._locked():
            data = self._read()
            run = self._mine(data, queued_id, owner)
            run.config, run.error = changed(cfg), ""
            self._write(data)
        self.pump()

    @staticmethod
    def _mine(data: dict, queued_id: str, owner: str) -> Queued:
        run = next((r for r in data["runs"] if r.id == str(queued_id).strip()), None)
        if run is None or run.owner != owner or run.run_id:
            raise QueueError(Message("No queued run {value} of yours: it has started, or was "
                                     "removed. The queue beside the live view lists yours.",
                                     value=str(queued_id)[:40]))
        return run

    # ---- starting them -----------------------------------------------------------
    def pump(self) -> str | None:
        """Start the first waiting run when none trains; its run id. A run that cannot
        start keeps the reason on its row and the next one is tried."""
        if not self.path.exists() or self.manager.busy():
            return None  # (nothing queued here yet: no file is made)
        with self._locked():
            if self.manager.busy():
                return None
            data = self._read()
            started, refused = None, False
            for run in data["runs"]:
                if not run.waiting:
                    continue
                try:
                    started = run.run_id = self.manager.start(run.config, keep=run.keep)
                    break
                except (UserError, RunError) as e:
                    if self.manager.busy():  # someone pressed Start meanwhile: it waits on
                        break
                    run.error, refused = _kept(e), True
            done = [r for r in data["runs"] if r.run_id]
            for old in done[:max(0, len(done) - STARTED_KEPT)]:
                data["runs"].remove(old)
            if started or refused or len(done) > STARTED_KEPT:  # (else nothing changed)
                self._write(data)
            return started

    def watch(self) -> None:
        """Look for runs queued from elsewhere (the command line) every WATCH_SECONDS while
        nothing trains, until the manager closes (the served app calls it)."""
        def loop():
            while not self.manager.closed.wait(WATCH_SECONDS):
                try:
                    self.pump()
                except UserError:
                    pass  # an unreadable queue file: each change of it says so
        threading.Thread(target=loop, name="run-queue", daemon=True).start()
