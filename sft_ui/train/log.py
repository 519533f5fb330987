"""The run's log: the trainer's messages and warnings, written to `train.log` in the
run folder while a run trains, for the page's log panel.

Only records made by the training thread are kept, so two things happening in the
app at once never mix their messages. Knows nothing of Gradio.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from pathlib import Path

LOG_FILE = "train.log"
LOGGERS = ("", "transformers", "trl", "peft", "datasets", "accelerate", "py.warnings")
log = logging.getLogger("sft_ui.train")


class _ThreadFilter(logging.Filter):
    def __init__(self, thread_id: int):
        super().__init__()
        self.thread_id = thread_id
        self._last: logging.LogRecord | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        # A record that propagates from one watched logger to another comes twice.
        fresh, self._last = record is not self._last, record
        return fresh and record.thread == self.thread_id


@contextlib.contextmanager
def capture(run_dir: Path):
    """Append this thread's records (the studio's INFO lines, the libraries' warnings)
    to run_dir/train.log; yield the logger the engine writes its own lines to."""
    handler = logging.FileHandler(run_dir / LOG_FILE, encoding="utf-8")
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s",
                                           "%H:%M:%S"))
    handler.addFilter(_ThreadFilter(threading.get_ident()))
    loggers = [logging.getLogger(name) for name in LOGGERS]
    logging.captureWarnings(True)
    for lg in loggers:
        lg.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield log
    except Exception as e:
        # The text, not the exception: a record kept by a handler would keep its frames
        # (the model, its gradients) alive.
        log.error("%s", f"{type(e).__name__}: {e}")
        raise
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
        handler.close()


def warn(run_dir: Path, message: str) -> None:
    """A warning line in the run's log, in the form of capture's lines, written from
    outside the training thread: the app, which hears a run's records from whichever
    process trains it (runs/run.py)."""
    with open(Path(run_dir) / LOG_FILE, "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%H:%M:%S')} WARNING {message}\n")


def tail(run_dir: Path, lines: int = 200) -> str:
    """The last `lines` lines of a run's log ('' when there is none)."""
    path = Path(run_dir) / LOG_FILE
    if not path.exists():
        return ""
    with open(path, "rb") as f:
        f.seek(0, 2)
        f.seek(max(0, f.tell() - 64_000))
        text = f.read().decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])


@contextlib.contextmanager
def quiet():
    """What the other processes of a multi-process run use: no log file of their own."""
    yield log
