"""What a training process tells the app that follows it, one JSON line at a time.

A run trained away from the app's own process (accelerate's processes on this machine,
a Hugging Face Job elsewhere) reports through an EventSink: its main process prints each
progress step, metrics record, batch of samples and its ending as a line
`@sft_ui {...}` on stdout, among its other output. The app reads those lines (a child's
stdout, a job's logs) with `read_event` and feeds them to the run (`deliver`), so the run
folder, the page and the API see such a run exactly as a run trained in the app.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

PREFIX = "@sft_ui "
STOP_FILE = "stop-requested"  # in the run folder: the app asks the processes to stop


class EventSink:
    """The RunSink of a run's main process when another process follows the run: events
    on `out`; a stop is asked for by the file STOP_FILE in the run folder."""

    def __init__(self, run_dir: Path, out=None):
        self.stop_file = Path(run_dir) / STOP_FILE
        self.out = out or sys.stdout
        started = os.environ.get("SFT_UI_STARTED_AT")  # when the app began this (re)start
        self.started_at = float(started) if started else time.time()

    def emit(self, **event) -> None:
        self.out.write(PREFIX + json.dumps(event) + "\n")
        self.out.flush()

    def progress(self, step, max_steps):
        self.emit(progress=[step, max_steps])

    def add_metrics(self, record):
        self.emit(metrics=record)

    def add_samples(self, rows):
        self.emit(samples=rows)

    def stop_requested(self):
        return self.stop_file.exists()


def read_event(line: str) -> dict | None:
    """The event a line of output carries (None: an ordinary line). A job's log lines may
    carry a timestamp in front, so the marker is looked for anywhere in the line."""
    at = line.find(PREFIX)
    if at < 0:
        return None
    try:
        event = json.loads(line[at + len(PREFIX):])
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def deliver(event: dict, run) -> None:
    """Feed one event to the run (a runs.Run, or any RunSink)."""
    if "progress" in event:
        step, max_steps = event["progress"]
        run.progress(int(step), int(max_steps))
    if "metrics" in event:
        run.add_metrics(event["metrics"])
    if "samples" in event:
        run.add_samples(event["samples"])
