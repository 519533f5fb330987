"""The entry of a training process the app started and follows (the served app's warm
worker, or each of accelerate's processes: `python -m sft_ui train --run-dir`): train the
run of a folder, report through events (train/events.py), and end when the app is gone.
The app's side of such a process is backends/.
"""
from __future__ import annotations

import os
import threading
import time
import traceback
from pathlib import Path

from sft_ui.config import RunConfig
from sft_ui.errors import UserError, said
from sft_ui.plan.oom import is_out_of_memory
from sft_ui.train.engine import is_main_process, train
from sft_ui.train.events import APP_PID, EventSink, NullSink, said_as_json


def train_for_app(run_dir: str | Path, resume_from: str | None = None) -> int:
    """Train the run in `run_dir` for the app that launched this process and follows its
    events; return the process exit status. The ending is an event too: `done`, or
    `failed` with the message (a person-facing error's Message kept beside its English:
    events.said_as_json; and the trace of an unexpected error)."""
    watch_app()
    run_dir = Path(run_dir)
    main = is_main_process()
    sink: EventSink | NullSink = EventSink(run_dir) if main else NullSink()
    try:
        cfg = RunConfig.from_yaml(run_dir / "config.yaml")
        out = train(cfg, run_dir, sink, Path(resume_from) if resume_from else None)
    except BaseException as e:  # the app says how the run ended
        if isinstance(sink, EventSink):  # (the main process)
            user = isinstance(e, UserError) and not is_out_of_memory(e)
            sink.emit(failed={"message": str(e) if user else f"{type(e).__name__}: {e}",
                              "user": user, "trace": "" if user else traceback.format_exc(),
                              **(said_as_json(said(e)) if user else {})})
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    if isinstance(sink, EventSink):  # (the main process)
        sink.emit(done=str(out))
    return 0


_watching = threading.Event()


def watch_app() -> None:
    """In a training process the app started: end this process when the app or the
    launcher between them is gone (a kill -9 of the app leaves no trainer behind)."""
    app = int(os.environ.get(APP_PID, "0") or 0)
    if not app or _watching.is_set():
        return
    _watching.set()
    launcher = os.getppid()

    def watch():
        while True:
            time.sleep(1)
            if os.getppid() != launcher or not _alive(app):
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="watch-app").start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
