"""Runs: a background training thread, its run folder and a snapshot for the UI.

A run folder `<runs_dir>/<run_id>/` holds config.yaml, state.json,
metrics.jsonl, samples.jsonl, checkpoints/ and model/; everything the UI
shows can be rebuilt from it after a restart. One active run per process.
Knows nothing of Gradio: the UI and the API call `RunManager`.
"""
from __future__ import annotations

import errno
import json
import os
import queue
import re
import shutil
import threading
import time
import traceback
import unicodedata
import uuid
from pathlib import Path

from . import runlog
from .access import AccessError
from .config import ConfigError, RunConfig, shorten
from .data import DataError
from .hardware import release_memory
from .hub import HubError
from .models import ModelError
from .memory import is_out_of_memory, memory_problem, out_of_memory_advice

ACTIVE_STATES = ("queued", "running", "stopping")
STATES = ACTIVE_STATES + ("stopped", "done", "failed")
# What state.json keeps of a run (besides config.yaml and the jsonl files).
STATE_KEYS = ("name", "state", "step", "max_steps", "error", "message", "created",
              "train_started", "finished", "model_dir", "resumed", "suggestion")
# A run id is a plain folder name: no separators, no leading dot, no control characters.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
NAME_MAX = 80


class RunError(RuntimeError):
    """A request about runs that cannot be honoured; the message says why."""


# Errors whose message is meant for the person: shown as they are, never as a trace.
USER_ERRORS = (ConfigError, DataError, ModelError, RunError, HubError, AccessError)


def runs_dir() -> Path:
    """SFT_UI_RUNS_DIR; on a Hugging Face Space with persistent storage /data/runs;
    else ./runs."""
    if os.environ.get("SFT_UI_RUNS_DIR"):
        return Path(os.environ["SFT_UI_RUNS_DIR"]).expanduser().resolve()
    data = Path("/data")
    if os.environ.get("SPACE_ID") and data.is_dir() and os.access(data, os.W_OK):
        return data / "runs"
    return Path("runs").resolve()


def clean_name(name) -> str:
    """A display name: whitespace collapsed, control characters dropped, at most 80 chars."""
    text = " ".join(str(name or "").split())
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    return text[:NAME_MAX].strip()


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line cut short by a crash
    return rows


def _checkpoint_folders(folder: Path) -> list[Path]:
    return [p for p in (folder / "checkpoints").glob("checkpoint-*")
            if p.name.split("-")[-1].isdigit()]


def is_complete(checkpoint: Path) -> bool:
    """Whether a checkpoint was written to the end. The trainer writes trainer_state.json
    last (after the weights, optimizer, scheduler and RNG state), in one piece that ends
    with the top-level object's closing brace alone on its line: a save cut short (full
    disk, killed process) has no such file, or only a part of it."""
    try:
        with open(checkpoint / "trainer_state.json", "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 3))
            return f.read() == b"\n}\n"
    except OSError:
        return False


def checkpoints(folder: Path) -> list[Path]:
    """A run folder's complete `checkpoints/checkpoint-N` folders, newest (highest N) first."""
    found = [p for p in _checkpoint_folders(folder) if is_complete(p)]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]), reverse=True)


def discard_partial_checkpoints(folder: Path) -> list[str]:
    """Remove the checkpoints of a run that were not written to the end (they can never be
    resumed from, and a full disk wants the space back); return their names."""
    partial = sorted(p.name for p in _checkpoint_folders(folder) if not is_complete(p))
    for name in partial:
        shutil.rmtree(folder / "checkpoints" / name, ignore_errors=True)
    return partial


def is_disk_full(error: BaseException) -> bool:
    """A write that failed for want of space, however a library wrapped the OSError
    (safetensors and torch.save re-raise it as their own errors)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(text in str(error) for text in ("No space left on device", "StorageFull",
                                                "Disk quota exceeded")):
            return True
        error = error.__cause__ or error.__context__
    return False


def disk_full_message(run: "Run", removed: list[str]) -> str:
    """What a run that ran out of disk space says: where it stopped, what is intact."""
    last = latest_checkpoint(run.dir)
    text = f"The disk is full (no space left on device): the run stopped at step {run.step}."
    if removed:
        text += f" The unfinished {', '.join(removed)} was removed."
    if last is not None:
        return text + (f" The last complete checkpoint, {last.name}, is intact: free some "
                       "space, then Resume continues from it.")
    return text + " No checkpoint had been saved yet: free some space and start the run again."


def checkpoint_folder(run: "Run", name: str) -> Path:
    """One named checkpoint of a run (a plain `checkpoint-N` name), or RunError."""
    path = run.dir / "checkpoints" / name
    if not name.startswith("checkpoint-") or "/" in name or "\\" in name or not path.is_dir():
        raise RunError(f"Run {run.id} has no checkpoint '{name}'.")
    return path


def latest_checkpoint(folder: Path) -> Path | None:
    found = checkpoints(folder)
    return found[0] if found else None


class Run:
    """One run: its folder, live state, and the sink the training callbacks feed."""

    def __init__(self, run_id: str, folder: Path, config: RunConfig):
        self.id, self.dir, self.config = run_id, folder, config
        self.name = run_id  # a label the person may change; the id and folder never do
        self.state, self.step, self.max_steps = "queued", 0, config.max_steps
        self.error = self.message = ""
        self.metrics: list[dict] = []
        self.samples: list[dict] = []
        self.created = time.time()
        self.resumed = 0
        self.suggestion: dict = {}  # RunConfig changes that may make a failed run fit
        self.train_started: float | None = None
        self.finished: float | None = None
        self.model_dir: str = ""
        self._stop = threading.Event()
        self._lock = threading.Lock()

    # ---- the sink used by callbacks (training thread) -------------------
    def progress(self, step: int, max_steps: int) -> None:
        with self._lock:
            if self.train_started is None:
                self.train_started = time.time()
            self.step, self.max_steps = step, max_steps or self.max_steps
        self._save_state()

    def add_metrics(self, record: dict) -> None:
        with self._lock:
            self.metrics.append(record)
        self._append("metrics.jsonl", record)

    def add_samples(self, rows: list[dict]) -> None:
        with self._lock:
            self.samples.extend(rows)
        for row in rows:
            self._append("samples.jsonl", row)

    def stop_requested(self) -> bool:
        return self._stop.is_set()

    # ---- lifecycle ---------------------------------------------------------
    def prepare_resume(self, step: int) -> None:
        """Forget records past the checkpoint step (they will be made again) and rearm."""
        with self._lock:
            self.metrics = [m for m in self.metrics if m.get("step", 0) <= step]
            self.samples = [r for r in self.samples if r.get("step", 0) <= step]
            self.error, self.finished, self.train_started = "", None, None
            self.step = step
            self._stop.clear()
            for name, rows in (("metrics.jsonl", self.metrics), ("samples.jsonl", self.samples)):
                (self.dir / name).write_text("".join(json.dumps(r) + "\n" for r in rows))

    def request_stop(self) -> None:
        # Check and change under one lock: a run ending right now must not turn back into
        # "stopping" (it would look active forever and block the next start).
        with self._lock:
            if self.state not in ACTIVE_STATES:
                return
            self._stop.set()
            self.state, self.message = "stopping", "Stopping after the current step..."
        self._save_state()

    def set_state(self, state: str, message: str = "", error: str = "") -> None:
        assert state in STATES
        with self._lock:
            self.state, self.message, self.error = state, message, error
            if state not in ACTIVE_STATES:
                self.finished = time.time()
        self._save_state()

    def rename(self, name: str) -> None:
        with self._lock:
            self.name = name
        self._save_state()

    def eta_seconds(self) -> float | None:
        if not self.train_started or self.step <= 0 or self.state not in ACTIVE_STATES:
            return None
        per_step = (time.time() - self.train_started) / self.step
        return per_step * max(self.max_steps - self.step, 0)

    def snapshot(self, log: bool = True) -> dict:
        """The run as the page and the API show it; `log` adds the log's last lines
        (read after the lock is released, so training never waits on that file)."""
        with self._lock:
            snap = {"run_id": self.id, "name": self.name, "state": self.state, "step": self.step,
                    "max_steps": self.max_steps, "metrics": list(self.metrics),
                    "samples": list(self.samples), "error": self.error,
                    "message": self.message, "eta_seconds": self.eta_seconds(),
                    "elapsed_seconds": (self.finished or time.time()) - self.created,
                    "model_dir": self.model_dir, "run_dir": str(self.dir),
                    "suggestion": dict(self.suggestion),
                    "config": self.config.to_dict()}
        if log:
            snap["log"] = runlog.tail(self.dir)
        return snap

    def summary(self) -> dict:
        """One row of the run history: what ran, how far, how it ended."""
        snap = self.snapshot(log=False)
        losses = [m["loss"] for m in snap["metrics"] if "loss" in m]
        return {"name": snap["name"], "run_id": self.id,
                "model": self.config.model_name_or_path, "dataset": self.config.dataset_name,
                "state": snap["state"], "step": snap["step"], "max_steps": snap["max_steps"],
                "final_loss": losses[-1] if losses else None,
                "duration_seconds": snap["elapsed_seconds"], "created": self.created}

    # ---- files -------------------------------------------------------------
    def _append(self, name: str, record: dict) -> None:
        with open(self.dir / name, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    def _save_state(self) -> None:
        tmp = self.dir / "state.json.tmp"
        with self._lock:  # read and write together: a rename cannot be overwritten by a stale copy
            data = {k: getattr(self, k) for k in STATE_KEYS}
            tmp.write_text(json.dumps(data))
            tmp.replace(self.dir / "state.json")

    @classmethod
    def load(cls, folder: Path) -> "Run":
        """Rebuild a run from its folder (after a restart); a run cut off mid-way is failed."""
        config = RunConfig.from_yaml(folder / "config.yaml")
        run = cls(folder.name, folder, config)
        state = json.loads((folder / "state.json").read_text())
        for key in STATE_KEYS:
            if key in state:
                setattr(run, key, state[key])
        run.metrics = _read_jsonl(folder / "metrics.jsonl")
        run.samples = _read_jsonl(folder / "samples.jsonl")
        run.name = clean_name(run.name) or run.id
        if run.state in ACTIVE_STATES:
            run.state, run.error = "failed", "The app stopped while this run was training."
            run.finished = (folder / "state.json").stat().st_mtime  # its last sign of life
        return run


def _short(snap: dict) -> dict:
    """A snapshot without its metrics, samples and log."""
    return {k: v for k, v in snap.items() if k not in ("metrics", "samples", "log")}


def create_run(root: Path, cfg: RunConfig) -> Run:
    """A new run folder with its settings."""
    run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(cfg.to_yaml(), encoding="utf-8")
    run = Run(run_id, folder, cfg)
    run.set_state("queued", "Loading the model and the dataset...")
    return run


class RunManager:
    """Starts runs (one at a time) and finds earlier ones. A run trains in a thread of its
    own, or in the thread that called `work_here` (the served app's main thread)."""

    def __init__(self, root: Path | None = None, trainer=None, preflight=None,
                 main_thread: bool = False):
        self.root = Path(root) if root else runs_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        # Injectable for tests; default: engine.train and engine.preflight.
        self._train, self._preflight = trainer, preflight
        self._runs: dict[str, Run] = {}
        self._active: Run | None = None
        self._lock = threading.RLock()
        # main_thread: runs wait for the thread that calls work_here (see there)
        self._jobs: queue.Queue | None = queue.Queue() if main_thread else None

    def _launch(self, run: Run, resume_from: Path | None = None) -> None:
        if self._jobs is not None:
            self._jobs.put((run, resume_from))
        else:
            threading.Thread(target=self._work, args=(run, resume_from), name=f"run-{run.id}",
                             daemon=True).start()

    def work_here(self, until=lambda: False) -> None:
        """Train the runs of a RunManager(main_thread=True) in the calling thread, until
        `until()` is true. On a CPU, PyTorch trains about a quarter slower in a thread other than
        the process's main one (measured: fwd/bwd/step of the default model 2.7 s in the
        main thread, 3.6 s in another), so the served app trains in its main thread."""
        assert self._jobs is not None  # only a RunManager(main_thread=True) queues runs
        while not until():
            try:
                run, resume_from = self._jobs.get(timeout=0.2)
            except queue.Empty:
                continue
            self._work(run, resume_from)

    def start(self, values: dict | RunConfig, allow_over_memory: bool = False) -> str:
        """Validate, create the run folder, start training; return the run id. On a CPU a
        run whose memory estimate exceeds the RAM available is refused unless
        `allow_over_memory`."""
        cfg = values if isinstance(values, RunConfig) else RunConfig.from_dict(values)
        problems = cfg.validate()
        if problems:
            raise ConfigError(problems)
        self._check_idle()
        preflight = self._preflight
        if preflight is None:
            from .engine import preflight
        preflight(cfg)
        if self._train is None and not allow_over_memory:  # the estimate is the engine's
            problem = memory_problem(cfg)
            if problem:
                raise RunError(problem)
        with self._lock:
            self._check_idle()
            run = create_run(self.root, cfg)
            self._runs[run.id], self._active = run, run
        self._launch(run)
        return run.id

    def resume(self, run_id: str) -> str:
        """Continue a stopped or failed run from its last checkpoint, under the same id."""
        with self._lock:
            self._check_idle()
            run = self.get(run_id)
            if run.state not in ("stopped", "failed"):
                raise RunError(f"Run {run.id} is {run.state}: only a stopped or failed run "
                               "can be resumed.")
            discard_partial_checkpoints(run.dir)  # e.g. cut short when the app was killed
            checkpoint = latest_checkpoint(run.dir)
            if checkpoint is None:
                raise RunError(f"Run {run.id} has no checkpoint to resume from: set "
                               "'Save every N steps', or stop a run to write one.")
            run.prepare_resume(int(checkpoint.name.split("-")[-1]))
            run.resumed += 1
            run.set_state("queued", f"Resuming from {checkpoint.name}...")
            self._active = run
        self._launch(run, checkpoint)
        return run_id

    def _check_idle(self) -> None:
        if self._active is not None and self._active.state in ACTIVE_STATES:
            raise RunError(f"Run {self._active.id} is still training: stop it or wait "
                           "until it ends before starting another.")

    def _work(self, run: Run, resume_from: Path | None = None) -> None:
        train = self._train
        if train is None:
            from .engine import train
        try:
            run.suggestion = {}
            run.set_state("running", "Training...")
            model_dir = train(run.config, run.dir, run, resume_from=resume_from)
        except USER_ERRORS as e:
            outcome = ("failed", "", str(e))
        except Exception as e:  # keep the server alive and say what happened
            outcome = ("failed", "", self._failure(run, e))
        else:
            run.model_dir = str(model_dir)
            if run.stop_requested():
                outcome = ("stopped", f"Stopped at step {run.step}; the model so far is "
                           f"saved in {model_dir}, with a checkpoint to resume from.")
            else:
                outcome = ("done", f"Finished {run.step} steps; the model is saved in "
                           f"{model_dir}.")
        # Before the state says the run ended (and the next may start), with the error and
        # its frames gone: the next run finds the GPU (or RAM) as this one found it.
        release_memory()
        try:
            run.set_state(*outcome)
        except OSError:  # a full disk: the page shows the state, state.json keeps the last
            pass         # one written; the server (whose main thread may be this) goes on

    @staticmethod
    def _failure(run: Run, e: Exception) -> str:
        """What a run that raised says; its error.log keeps the trace."""
        removed = discard_partial_checkpoints(run.dir)
        try:
            (run.dir / "error.log").write_text(traceback.format_exc())
        except OSError:
            pass  # a full disk: the state still says what happened
        if is_disk_full(e):
            return disk_full_message(run, removed)
        if is_out_of_memory(e):
            advice, run.suggestion = out_of_memory_advice(run.config)
            return f"Out of memory at step {run.step}. {advice}"
        return f"{type(e).__name__}: {e}"

    def get(self, run_id: str) -> Run:
        run_id = str(run_id or "").strip()
        unknown = RunError(f"No run with id {shorten(run_id)}. Choose one from the list of "
                           "runs.")
        if not RUN_ID.fullmatch(run_id):
            raise unknown
        with self._lock:
            if run_id in self._runs:
                return self._runs[run_id]
            folder = self.root / run_id
            if not (folder / "state.json").exists():
                raise unknown
            run = Run.load(folder)
            self._runs[run_id] = run
            return run

    def rename(self, run_id: str, name: str) -> dict:
        """Give a run a display name (a label only: its id and folder stay)."""
        cleaned = clean_name(name)
        with self._lock:  # not while a delete removes the folder
            run = self.get(run_id)
            if not cleaned:
                raise RunError("Type a name for the run (not only spaces).")
            run.rename(cleaned)
            return _short(run.snapshot(log=False))

    def delete(self, run_id: str) -> str:
        """Remove a run that is not training, with its whole folder; return its id."""
        with self._lock:
            run = self.get(run_id)
            if run.state in ACTIVE_STATES:
                raise RunError(f"Run {run.id} is {run.state}: stop it before deleting it.")
            folder = run.dir.resolve()
            if folder.parent != self.root.resolve():
                raise RunError(f"Run {run.id} is not a folder inside {self.root}; "
                               "it was not deleted.")
            try:
                shutil.rmtree(folder)
            except OSError as e:
                raise RunError(f"Could not delete {folder}: {e.strerror or e}.") from None
            self._runs.pop(run.id, None)
            if self._active is run:
                self._active = None
            return run.id

    def stop(self, run_id: str) -> dict:
        run = self.get(run_id)
        run.request_stop()
        return run.snapshot()

    def all_runs(self) -> list[Run]:
        """Every readable run in the folder, newest first (ids of one second do not sort)."""
        out = []
        for folder in self.root.iterdir():
            if (folder / "state.json").exists():
                try:
                    out.append(self.get(folder.name))
                except (RunError, ConfigError, ValueError, OSError):
                    continue
        return sorted(out, key=lambda run: (run.created, run.id), reverse=True)

    def list_runs(self) -> list[dict]:
        """Every run, newest first (short snapshots without metrics and samples)."""
        return [_short(run.snapshot(log=False)) for run in self.all_runs()]

    def history(self) -> list[dict]:
        """`Run.summary` of every run, newest first."""
        return [run.summary() for run in self.all_runs()]

    def active(self) -> Run | None:
        return self._active

    def latest_finished(self) -> Run | None:
        for snap in self.list_runs():
            if snap["model_dir"] and Path(snap["model_dir"]).exists():
                return self.get(snap["run_id"])
        return None
