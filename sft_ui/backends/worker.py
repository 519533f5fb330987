"""The served app's warm training process: a child that imports the training libraries (and
loads the likely next model) before Start, then trains one run and exits. Keeps training
out of the process whose threads answer the page (docs/training.md#the-warm-training-process).
"""
from __future__ import annotations

import gc
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

from sft_ui.backends.child import child_environment, end_with_parent, follow
from sft_ui.lazy import trl
from sft_ui.models import load_ahead
from sft_ui.plan.hardware import detect
from sft_ui.train.events import (
    DEADLINE,
    FIT_STEPS,
    PREFIX,
    STOP_FILE,
    deadline_for_environment,
    read_event,
)


class WarmWorker:
    """The app's spare training process (at most one waits). A process of its own because
    the app's threads answer every open page's polls and, sharing the training's GIL,
    slowed it (docs/benchmarks.md#the-served-app); started early because importing the
    libraries takes seconds on a small CPU. It trains one run and exits, so its memory (a
    GPU's too) goes with it; the next one warms up when the run has ended."""

    def __init__(self, likely_model=None):
        self._likely_model = likely_model  # () -> the model name to load ahead, or None
        self._spare: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._asks: queue.Queue = queue.Queue()
        threading.Thread(target=self._spawner, daemon=True, name="worker-spawner").start()

    def _spawner(self) -> None:
        """Starts every child of the app (start()), from this thread that lives as long as
        the app and was started before the page's threads: a child gets SIGTERM when the
        thread that started it ends (PR_SET_PDEATHSIG), so with the app, at once, not a
        second later (watch_app) with a checkpoint the app never saw; and it trains at the
        app's own priority where a shared server lowers the page's threads
        (limits.lower_this_thread). A worker stays in the app's session: in a session of
        its own (a scheduling group of its own under Linux's autogroup) the served default
        run trained slower, the app's wakeups cutting into it (docs/benchmarks.md, The
        served app)."""
        while True:
            ask = self._asks.get()
            if ask is None:  # close(): the app is closing
                return
            answer, command, options = ask
            try:
                answer.put(subprocess.Popen(command, **options))
            except OSError as e:
                answer.put(e)

    def start(self, command: list[str], **options) -> subprocess.Popen:
        """subprocess.Popen(command, **options), from the thread that starts the app's
        children."""
        answer: queue.Queue = queue.Queue()
        self._asks.put((answer, command, options))
        child = answer.get()
        if isinstance(child, OSError):
            raise child
        return child

    def _spawn(self) -> subprocess.Popen:
        command = [sys.executable, "-m", "sft_ui", "worker"]
        try:
            model = self._likely_model and self._likely_model()
        except Exception:  # (an unreadable runs folder): nothing is loaded ahead
            model = None
        if model:
            command += ["--load-ahead", model]
        return self.start(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, bufsize=1,
                          env=child_environment(), preexec_fn=end_with_parent)

    def warm(self) -> None:
        """Start the spare now unless one waits (the app starting, a run ending)."""
        with self._lock:
            if self._spare is None or self._spare.poll() is not None:
                self._spare = self._spawn()

    def wait_ready(self) -> bool:
        """Wait until the spare has warmed up (a benchmark's Start, like a person's, comes
        after that); False if it ended first."""
        self.warm()
        spare = self._spare
        assert spare is not None and spare.stdout is not None  # warm() started it with PIPEs
        for line in spare.stdout:
            if (read_event(line) or {}).get("ready"):
                return True
        return False

    def _take(self) -> subprocess.Popen:
        with self._lock:
            child, self._spare = self._spare, None
        return child if child is not None and child.poll() is None else self._spawn()

    def close(self) -> None:
        """End the spare and the thread that starts workers (the app is closing); a run's
        worker ends with that thread (or with the app itself)."""
        with self._lock:
            child, self._spare = self._spare, None
        if child is not None and child.poll() is None:
            child.terminate()
            child.wait(timeout=30)
        self._asks.put(None)

    def train(self, cfg, run_dir: Path, sink, resume_from: Path | None = None) -> Path:
        """engine.train's work, done by the spare process: train the run in `run_dir` (its
        config.yaml is cfg), feeding its events to `sink`; return the model folder."""
        (run_dir / STOP_FILE).unlink(missing_ok=True)
        child = self._take()
        job = {"run_dir": str(run_dir), "resume": str(resume_from) if resume_from else None,
               "deadline": getattr(sink, "deadline", None),
               "fit_steps": getattr(sink, "fit_steps", False)}
        assert child.stdin is not None  # _spawn starts every worker with stdin=PIPE
        try:
            child.stdin.write(json.dumps(job) + "\n")
            child.stdin.close()
        except OSError:
            pass  # it died while it waited: follow says how it ended
        try:
            return follow(child, run_dir, sink, alone=True)
        finally:
            self.warm()


def serve_one_run(model: str | None = None) -> int:
    """In the worker (`python -m sft_ui worker`): warm up (loading `model` ahead), wait for
    the app's run, train it; return the exit status (0 when the app closed without handing
    one over)."""
    from sft_ui.train.process import train_for_app, watch_app  # heavy: torch, TRL
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the app's; it ends with the app
    watch_app()
    warm_up(model)
    print(PREFIX + json.dumps({"ready": True}), flush=True)
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    job = json.loads(line)
    os.environ[DEADLINE] = deadline_for_environment(job["deadline"])
    os.environ[FIT_STEPS] = "1" if job.get("fit_steps") else ""
    return train_for_app(job["run_dir"], job["resume"])


def warm_up(model: str | None = None) -> None:
    """What a run needs before its first step that does not depend on the run: the
    libraries, the hardware check (it times a matrix product on a CPU), the default
    model's architecture; and `model` with its weights in memory of their own
    (models.load_ahead), with its answers to the default sample prompts kept for the first
    run (engine.answer_ahead): each a part of Start's wait taken before Start. Then the
    objects made so far are left out of the garbage collector's full passes (gc.freeze):
    accelerate collects at the start of training, a pass over every library's objects."""
    from transformers import AutoModelForCausalLM  # noqa: F401  (heavy: the point here)
    from transformers.models.llama import modeling_llama  # noqa: F401

    from sft_ui.train.engine import answer_ahead  # heavy: torch, TRL
    from sft_ui.train.lean import own_weights  # heavy: torch
    trl()
    detect()
    if model:
        try:
            ahead = load_ahead(model, prepare=own_weights)
            if ahead:
                answer_ahead(model, *ahead)
        except Exception:  # the run loads it (and answers) again and says what is wrong
            pass
    gc.freeze()
