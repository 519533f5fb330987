"""The event protocol: what a training run reports (a RunSink: progress, records, samples, its
phase; it asks `stop_requested` and reads `deadline`), the sinks that hear it, and the
`@sft_ui {...}` lines by which a run trained in another process looks like one trained in
the app (`read_event`, `deliver`).
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Protocol

from sft_ui.i18n.message import read_messages, saved_messages

PREFIX = "@sft_ui "
STOP_FILE = "stop-requested"  # in the run folder: the app asks the processes to stop
MODEL_SUBDIR = "model"  # in the run folder: the trained model the engine saves
DEADLINE = "SFT_UI_DEADLINE"  # environment: when a time-budgeted run must have its model
FIT_STEPS = "SFT_UI_FIT_STEPS"  # environment: "1": it sets its length on its first steps
APP_PID = "SFT_UI_APP_PID"  # environment: the app's process (train/process.watch_app)


class RunSink(Protocol):
    """What the engine reports to: runs.Run (the app's own record of a run), EventSink (a
    process another follows: the warm worker, accelerate's main process, a Hugging Face
    Job), TerminalSink (the command line) or NullSink (a multi-process run's others)."""

    # Read only (a plain attribute or a property): time.time() by which a time-budgeted
    # run has its model; whether the budget left the length to the run's first steps
    # (train/schedule.py).
    @property
    def deadline(self) -> float | None: ...
    @property
    def fit_steps(self) -> bool: ...

    def progress(self, step: int, max_steps: int) -> None: ...
    def fitted(self, steps: int) -> None: ...  # the length the run's first steps set
    def add_metrics(self, record: dict) -> None: ...
    def add_samples(self, rows: list[dict]) -> None: ...
    def phase(self, name: str, **info) -> None: ...  # what the run does now (PHASES)
    def stop_requested(self) -> bool: ...


# What a training run does, in order, as its `phase` says: "loading" (the model and the
# data), "samples" (a round of sample answers: `step`, `round`, `rounds`), "training"
# (with what the rest will take: `sample_steps` between rounds, 0 without;
# `round_seconds`, a round's measured or remembered time, None when unknown;
# `save_seconds`; `processes`), "saving" (the trained model).
PHASES = ("loading", "samples", "training", "saving")


def announce(sink, name: str, **info) -> None:
    """Tell `sink` the run's phase (a sink of its own without `phase` hears nothing)."""
    told = getattr(sink, "phase", None)
    if told is not None:
        told(name, **info)


def deadline_for_environment(deadline: float | None) -> str:
    """DEADLINE's value for a training process the app starts ('' : no time budget)."""
    return "" if deadline is None else repr(deadline)


def deadline_from_environment() -> float | None:
    """The deadline the app gave a training process it started (None: no time budget)."""
    value = os.environ.get(DEADLINE, "")
    return float(value) if value else None


class NullSink:
    """What the other processes of a multi-process run report to: nothing. They know the
    deadline too: every process decides together whether a step is the last in time."""

    fit_steps = False  # (several processes: the budget chose their length beforehand)

    def __init__(self, deadline: float | None = None):
        self.deadline = deadline if deadline is not None else deadline_from_environment()

    def progress(self, step, max_steps):
        pass

    def fitted(self, steps):
        pass

    def add_metrics(self, record):
        pass

    def add_samples(self, rows):
        pass

    def phase(self, name, **info):
        pass

    def stop_requested(self):
        return False


class EventSink:
    """The RunSink of a run's main process when another process follows the run: events
    on `out`, each a line `@sft_ui {...}` among its other output, which the follower reads
    (a child's stdout, a job's logs); a stop is asked for by the file STOP_FILE in the run
    folder."""

    def __init__(self, run_dir: Path, out=None, deadline: float | None = None):
        self.stop_file = Path(run_dir) / STOP_FILE
        self.out = out or sys.stdout
        self.deadline = deadline if deadline is not None else deadline_from_environment()
        self.fit_steps = os.environ.get(FIT_STEPS) == "1"

    def emit(self, **event) -> None:
        self.out.write(PREFIX + json.dumps(event) + "\n")
        self.out.flush()

    def progress(self, step, max_steps):
        self.emit(progress=[step, max_steps])

    def fitted(self, steps):
        self.emit(fitted=steps)

    def add_metrics(self, record):
        self.emit(metrics=record)

    def add_samples(self, rows):
        self.emit(samples=rows)

    def phase(self, name, **info):
        self.emit(phase={"name": name, **info})

    def stop_requested(self):
        return self.stop_file.exists()


class TerminalSink:
    """The command line's sink: the run's own record (a runs.Run), progress, losses and
    samples printed for a person, and with `events` each record also as an event (a
    Hugging Face Job's log, which the app follows)."""

    def __init__(self, run, out=None, events: EventSink | None = None):
        self.run, self.out, self.start = run, out or sys.stdout, time.time()
        self.events = events

    @property
    def deadline(self) -> float | None:
        return self.run.deadline

    @property
    def fit_steps(self) -> bool:
        return self.run.fit_steps

    def progress(self, step, max_steps):
        self.run.progress(step, max_steps)
        if self.events:
            self.events.progress(step, max_steps)

    def fitted(self, steps):
        self.run.fitted(steps)
        if self.events:
            self.events.fitted(steps)

    def add_metrics(self, record):
        stalled = self.run.stalled
        self.run.add_metrics(record)
        if self.events:
            self.events.add_metrics(record)
        shown = {k: record[k] for k in ("loss", "eval_loss", "learning_rate", "grad_norm",
                                        "tokens_per_second") if k in record}
        if shown:
            text = "  ".join(f"{k} {v:.4g}" for k, v in shown.items())
            eta = self.run.eta_seconds()  # (steps, sample rounds and the save left)
            text += f"  ETA {eta:.0f}s" if eta is not None else ""
            print(f"[{time.time() - self.start:6.0f}s] step {record['step']}/"
                  f"{self.run.max_steps}  {text}", file=self.out, flush=True)
        if self.run.stalled and not stalled:  # the run's latest steps learn nothing
            print(f"Warning: {self.run.stalled}", file=self.out, flush=True)

    def add_samples(self, rows):
        self.run.add_samples(rows)
        if self.events:
            self.events.add_samples(rows)
        for row in rows:
            print(f"  sample @ {row['step']}: {row['prompt']!r} -> {row['completion']!r}",
                  file=self.out, flush=True)

    def phase(self, name, **info):
        said = self.run.message
        self.run.phase(name, **info)
        if self.events:
            self.events.phase(name, **info)
        if self.run.message != said:
            print(f"[{time.time() - self.start:6.0f}s] {self.run.message}", file=self.out,
                  flush=True)

    def stop_requested(self):
        return False


def said_as_json(message) -> dict:
    """What a `failed` event carries of a person-facing error's Message beside its
    English: {"said": its template and values} ({} for plain text, or values JSON cannot
    hold), so that the app says it in the reader's language (read_event)."""
    return saved_messages({"said": message}, ("said",))


def read_event(line: str) -> dict | None:
    """The event a line of output carries (None: an ordinary line). A job's log lines may
    carry a timestamp in front, so the marker is looked for anywhere in the line. A
    failure's message is its Message again where the event kept one (said_as_json) and
    it is the same English."""
    at = line.find(PREFIX)
    if at < 0:
        return None
    try:
        event = json.loads(line[at + len(PREFIX):])
    except ValueError:
        return None
    if not isinstance(event, dict):
        return None
    failed = event.get("failed")
    if isinstance(failed, dict) and "said" in failed:
        again = read_messages(failed.pop("said"))
        if again is not None and again == failed.get("message"):
            failed["message"] = again
    return event


def deliver(event: dict, run: RunSink) -> None:
    """Feed one event to the run (a runs.Run, or any RunSink)."""
    if "progress" in event:
        step, max_steps = event["progress"]
        run.progress(int(step), int(max_steps))
    if "fitted" in event:
        run.fitted(int(event["fitted"]))
    if "metrics" in event:
        run.add_metrics(event["metrics"])
    if "samples" in event:
        run.add_samples(event["samples"])
    if isinstance(event.get("phase"), dict):
        info = dict(event["phase"])
        announce(run, str(info.pop("name", "")), **info)
