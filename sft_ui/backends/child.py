"""A training process the app started and follows (the warm worker, or accelerate's
launcher and its processes): its environment, its events fed to the run, Stop passed on
as the run folder's stop file, and how it ended. The process's own side is
train/process.py. No child outlives the app: it gets SIGTERM when the app's thread that
started it ends (end_with_parent), and watches the app itself (watch_app).
"""
from __future__ import annotations

import collections
import ctypes
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message, joined
from sft_ui.plan.hardware import CPU_BF16, detect
from sft_ui.train.events import (
    APP_PID,
    DEADLINE,
    MODEL_SUBDIR,
    STOP_FILE,
    deadline_for_environment,
    deliver,
    read_event,
)

TAIL_LINES = 30  # lines of the processes' output a failure shows
_PR_SET_PDEATHSIG = 1


class ProcessesFailed(RuntimeError):
    """The processes of a run ended without finishing it; `described` says how."""

    def __init__(self, described: str, trace: str = ""):
        super().__init__(described)
        self.described, self.trace = described, trace


class _Failure(UserError, ProcessesFailed):
    """A failure the processes described for a person (bad data, bad settings)."""


def child_environment(deadline: float | None = None) -> dict:
    """The environment of a training process the app starts: the app's pid (watch_app),
    unbuffered output (events arrive as they are printed), this package importable, the
    time budget's deadline, and whether bf16 pays on this CPU as the app found it (the
    plan's precision is the run's)."""
    env = {**os.environ, APP_PID: str(os.getpid()), "PYTHONUNBUFFERED": "1",
           DEADLINE: deadline_for_environment(deadline)}
    hw = detect()
    if hw.device == "cpu":
        env[CPU_BF16] = "1" if hw.bf16 else "0"
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    return env


def follow(child: subprocess.Popen, run_dir: Path, sink, alone: bool = False) -> Path:
    """Follow a training child (accelerate's launcher, or a warm worker) to its end: its
    events go to `sink`, a stop asked of the sink becomes the run folder's stop file.
    Returns the model folder; a failure raises with what the child said, and how the
    processes ended with their last lines (`alone`: one process, whose own error, when it
    said one, is enough)."""
    stop_file = run_dir / STOP_FILE
    ending: dict = {}
    tail: collections.deque = collections.deque(maxlen=TAIL_LINES)
    reader = threading.Thread(target=_read, args=(child, sink, ending, tail), daemon=True,
                              name=f"events-{run_dir.name}")
    reader.start()
    try:
        while child.poll() is None:
            if sink.stop_requested() and not stop_file.exists():
                stop_file.touch()
            time.sleep(0.2)
        reader.join(timeout=10)
    finally:
        _end(child)
        stop_file.unlink(missing_ok=True)
    if "done" in ending and child.returncode == 0:
        return run_dir / MODEL_SUBDIR
    failed = ending.get("failed") or {}
    if failed.get("user"):
        raise _Failure(failed["message"])
    if alone and failed.get("message") and child.returncode == 1:  # it said why
        raise ProcessesFailed(failed["message"], failed.get("trace", ""))
    # The main process's own error if it said one (a process that dies takes the others'
    # collective operations down with it), and how the processes ended.
    lines, status = "\n".join(tail) or Message("(no output)"), child.returncode
    killed = (Message("It was killed: the system ends a process this way when memory runs "
                      "out.") if status == -signal.SIGKILL else "")
    ended = Message("A training process ended with exit status {status}. Its last lines:\n"
                    "{lines}", status=status, lines=lines)
    said = [part for part in (failed.get("message"), killed, ended) if part]
    raise ProcessesFailed(said[0] if len(said) == 1 else joined(said, "\n"),
                          failed.get("trace", ""))


def _read(child: subprocess.Popen, sink, ending: dict, tail) -> None:
    assert child.stdout is not None  # every training process starts with stdout=PIPE
    for line in child.stdout:
        event = read_event(line)
        if event is None:
            tail.append(line.rstrip())
        elif "done" in event or "failed" in event:
            ending.update(event)
        else:
            deliver(event, sink)


def _end(child: subprocess.Popen) -> None:
    """End the launcher (it ends its processes on SIGTERM) if it still runs."""
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def end_with_parent() -> None:
    """In a child of the app, before it starts: SIGTERM when the app's thread that started
    it ends, and so when the app dies (Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # elsewhere each process still watches the app (watch_app)
