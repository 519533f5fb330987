"""A run on several processes of this machine: the app starts `accelerate launch` (DDP or
FSDP, one process per GPU; gloo processes on a CPU) as its child and follows it.

The processes train the run's folder with `python -m sft_ui train --run-dir` (cli.py):
the main one prints events (train/events.py) that the app feeds to the run, so the
folder, the page and the API see one run as they see a run trained in the app. Stop is
the folder's stop file, which the processes agree on at each step's end (callbacks.py),
so all of them save the checkpoint and stop at the same step. No process outlives the
app: the launcher gets SIGTERM when the app dies (it then ends its processes), and each
process also ends itself when the app or its launcher is gone. `follow` and
`child_environment` serve the served app's warm one-process worker too (train/worker.py).
"""
from __future__ import annotations

import collections
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from sft_ui.errors import UserError
from sft_ui.train.events import STOP_FILE, deliver, read_event

APP_PID = "SFT_UI_APP_PID"  # the environment variable naming the app's process
TAIL_LINES = 30  # lines of the processes' output a failure shows
_PR_SET_PDEATHSIG = 1
# How FSDP shards a run: everything split, one unit per transformer layer, the whole
# model gathered in the main process when it is saved.
FSDP_OPTIONS = {"fsdp_sharding_strategy": "FULL_SHARD",
                "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                "fsdp_state_dict_type": "FULL_STATE_DICT"}


class ProcessesFailed(RuntimeError):
    """The processes of a run ended without finishing it; `described` says how."""

    def __init__(self, described: str, trace: str = ""):
        super().__init__(described)
        self.described, self.trace = described, trace


class _Failure(UserError, ProcessesFailed):
    """A failure the processes described for a person (bad data, bad settings)."""


def launch_command(run_dir: Path, processes: int, strategy: str, gpus: bool,
                   resume_from: Path | None = None) -> list[str]:
    """`accelerate launch` of the studio's trainer on `processes` processes of this
    machine for the run in `run_dir`."""
    command = [sys.executable, "-m", "accelerate.commands.launch",
               "--num_processes", str(processes), "--num_machines", "1",
               "--main_process_port", str(_free_port()),
               "--mixed_precision", "no",  # the run's own bf16/fp16 settings decide
               "--dynamo_backend", "no"]
    if strategy == "fsdp":
        command += ["--use_fsdp"]
        for key, value in FSDP_OPTIONS.items():
            command += [f"--{key}", value]
    else:
        command += ["--multi_gpu"]  # DDP; on a machine without GPUs, gloo processes
    command += ["-m", "sft_ui", "train", "--run-dir", str(run_dir)]
    if resume_from is not None:
        command += ["--resume", str(resume_from)]
    return command


def train_in_processes(cfg, run_dir: Path, sink, resume_from: Path | None = None) -> Path:
    """Train the run in `run_dir` (its config.yaml is cfg) on cfg.processes() processes,
    feeding their events to `sink` (the app's Run); return the model folder. A stop
    asked of the sink reaches every process; a failure raises with their last lines."""
    from sft_ui.plan.hardware import detect
    hw, processes = detect(), cfg.processes()
    command = launch_command(run_dir, processes, cfg.distributed, hw.device == "cuda",
                             resume_from)
    env = child_environment(getattr(sink, "started_at", None))
    if hw.device == "cpu":  # the processes share the cores instead of each taking all
        env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // processes)))
    (run_dir / STOP_FILE).unlink(missing_ok=True)
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, text=True, bufsize=1, env=env,
                             start_new_session=True, preexec_fn=end_with_parent)
    return follow(child, run_dir, sink)


def child_environment(started_at: float | None = None) -> dict:
    """The environment of a training process the app starts: the app's pid (watch_app),
    unbuffered output (events arrive as they are printed), this package importable, when
    the (re)start began (the time budget counts from there), and whether bf16 pays on
    this CPU as the app found it (the plan's precision is the run's)."""
    from sft_ui.plan.hardware import CPU_BF16, detect
    env = {**os.environ, APP_PID: str(os.getpid()), "PYTHONUNBUFFERED": "1",
           "SFT_UI_STARTED_AT": str(started_at or time.time())}
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
    from sft_ui.train.engine import MODEL_SUBDIR
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
    lines, status = "\n".join(tail) or "(no output)", child.returncode
    killed = ("It was killed: the system ends a process this way when memory runs out."
              if status == -signal.SIGKILL else "")
    ended = f"A training process ended with exit status {status}. Its last lines:\n{lines}"
    raise ProcessesFailed("\n".join(filter(None, [failed.get("message"), killed, ended])),
                          failed.get("trace", ""))


def _read(child: subprocess.Popen, sink, ending: dict, tail) -> None:
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def end_with_parent() -> None:
    """In a child of the app, before it starts: SIGTERM when the app's thread that started
    it ends, and so when the app dies (Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # elsewhere each process still watches the app (watch_app)


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
