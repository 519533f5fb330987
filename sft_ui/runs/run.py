"""One run: its live state, the sink its training callbacks feed, its snapshot for the
page, and its state.json (with config.yaml, metrics.jsonl and samples.jsonl, what a
restart rebuilds it from); what it does now and its ETA are runs/phases.py's. Knows
nothing of the trainer or of Gradio."""
from __future__ import annotations

import dataclasses
import json
import threading
import time
import uuid
from pathlib import Path

from sft_ui.config import RunConfig
from sft_ui.config.length import DEFAULT_EPOCHS
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message, read_messages, saved_messages
from sft_ui.plan.plateau import ending_said
from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.runs.folder import clean_name, read_jsonl
from sft_ui.runs.phases import Phases, phase_message
from sft_ui.stages import hook
from sft_ui.train import log as runlog

ACTIVE_STATES = ("queued", "running", "stopping")
STATES = ACTIVE_STATES + ("stopped", "done", "failed")
# What state.json keeps of a run (besides config.yaml and the jsonl files).
STATE_KEYS = ("name", "state", "step", "max_steps", "error", "message", "created", "budget",
              "train_started", "finished", "model_dir", "resumed", "suggestion", "stalled")
# The newest records a family's rule reads for a run that learns nothing (stages' "stalled"
# hook): its last few training steps, with the eval records between them.
STALL_RECORDS = 50


# Of STATE_KEYS, those whose Messages state.json keeps as values too (beside their English,
# which readers of the file read): a run read back says them in any language as it did
# (`stalled`: its family's rule's Message, train/stalled.py's or rewards/stalled.py's).
SAID_KEYS = ("message", "error", "budget", "stalled")
STOPPING = Message("Stopping after the current step...")  # a run asked to stop, until it ends


class RunError(UserError, RuntimeError):
    """A request about runs that cannot be honoured; the message says why (`messages`:
    it, as it was made: a Message stays one, where str(error) is its English)."""


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
        self.budget: list[str] = []  # what a time budget chose, a sentence a setting
        self.keep: tuple = ()  # settings a time budget leaves as they are (a sweep's trial)
        # While the run's latest steps learn nothing: its family's message saying so and
        # what to do (the live view, the run's summary; the log says it once, _judge)
        self.stalled = ""
        self._stall_said = False
        self.deadline: float | None = None  # a time budget's end for this (re)start (the sink's)
        self.fit_steps = False  # this start's first steps set its length (train/schedule.py)
        self.train_started: float | None = None
        self.finished: float | None = None
        self.model_dir: str = ""
        self._phases = Phases()  # this (re)start's phases and pace, for the ETA
        self._stop = threading.Event()
        self._lock = threading.Lock()

    # ---- the sink used by callbacks (training thread) -------------------
    def progress(self, step: int, max_steps: int) -> None:
        now = time.time()
        with self._lock:
            if self.train_started is None:
                self.train_started = now
            self._phases.reached(step, now)
            self.step, self.max_steps = step, max_steps or self.max_steps
        self._save_state()

    def fitted(self, steps: int) -> None:
        """The run's steps set its length (train/schedule.py: after its first steps, then again
        as their pace settles): its settings and the budget's sentence say so (and a
        resume trains to the same step)."""
        minutes = f"{self.config.time_budget_minutes:g}"
        with self._lock:
            self.fit_steps = False
            self.max_steps = steps
            # (the epochs it started from were the budget's ceiling, not a length given)
            self.config = dataclasses.replace(self.config, train_by="steps", max_steps=steps,
                                              num_train_epochs=DEFAULT_EPOCHS)
            self.budget = self.budget[:-1] + [Message(
                "{steps} steps fit {minutes} min at the run's pace",
                steps=f"{steps:,}", minutes=minutes)]
        (self.dir / "config.yaml").write_text(self.config.to_yaml(), encoding="utf-8")

    def phase(self, name: str, **info) -> None:
        """What the run does now (train/events.py PHASES), with what the rest will take:
        the status message says it (a job's keeps the job's own), and the ETA counts the
        sample rounds and the save left."""
        now = time.time()
        with self._lock:
            self._phases.enter(name, info, self.step, now)
            if self.state == "running" and self.config.run_on != "hf_jobs":
                self.message = phase_message(name, info) or self.message
        self._save_state()

    def add_metrics(self, record: dict) -> None:
        with self._lock:
            self.metrics.append(record)
            recent = self.metrics[-STALL_RECORDS:]
            if "ended_by" in record:  # held-out rows judged it: the budget's last word
                self.budget = list(self.budget) + [ending_said(record)]
        self._append("metrics.jsonl", record)
        self._judge(recent)

    def _judge(self, recent: list[dict]) -> None:
        """Whether the run's latest steps learn nothing, by its family's rule on its
        newest records (here, where every record arrives, whichever process trains the
        run): `stalled` holds its message while the rule holds, and the run's log says it
        the first time it does."""
        rule = hook(self.config, "stalled")
        verdict = (rule(recent, self.config) or "") if rule else ""
        with self._lock:
            changed, self.stalled = verdict != self.stalled, verdict
            first = bool(verdict) and not self._stall_said
            self._stall_said = self._stall_said or first
        if first:  # (at its step: the run may learn again later)
            runlog.warn(self.dir, f"step {recent[-1].get('step', self.step)}: {verdict}")
        if changed:
            self._save_state()

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
            self.step, self._phases, self.stalled = step, Phases(), ""
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
            self.state, self.message = "stopping", STOPPING
        self._save_state()

    def set_state(self, state: str, message: str = "", error: str = "") -> None:
        """The run's state and what it says; a run asked to stop stays "stopping" until it
        ends (a Stop pressed while it was queued is not undone when it starts running)."""
        assert state in STATES
        with self._lock:
            if state == "running" and self._stop.is_set():
                state, message = "stopping", STOPPING
            self.state, self.message, self.error = state, message, error
            if state not in ACTIVE_STATES:
                self.finished = time.time()
        self._save_state()

    def chosen(self, config: RunConfig, reasons: list[str], fit_steps: bool) -> None:
        """Settings chosen for the run where it starts (runs/start.py), with the budget's
        reasons; config.yaml too."""
        with self._lock:
            self.config, self.budget = config, reasons
            self.max_steps = config.max_steps
            self.fit_steps = fit_steps
        (self.dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")
        self._save_state()

    def sized(self, config: RunConfig) -> None:
        """Settings sized to the run's data (runs/start.py); config.yaml too, so that a
        resume trains with them."""
        with self._lock:
            self.config = config
        (self.dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")

    def rename(self, name: str) -> None:
        with self._lock:
            self.name = name
        self._save_state()

    def elapsed_seconds(self) -> float:
        """Seconds from the run's creation to its end (so far, while it has not ended)."""
        return (self.finished or time.time()) - self.created

    def eta_seconds(self) -> float | None:
        """Seconds until the run has its model (Phases.eta), None for a run that is not
        active."""
        if self.state not in ACTIVE_STATES:
            return None
        return self._phases.eta(self.step, self.max_steps, self.deadline, time.time())

    def snapshot(self, log: bool = True) -> RunSnapshot:
        """The run as the page and the API show it; `log` adds the log's last lines
        (read after the lock is released, so training never waits on that file)."""
        with self._lock:
            snap: RunSnapshot = {"run_id": self.id, "name": self.name, "state": self.state, "step": self.step,
                    "max_steps": self.max_steps, "metrics": list(self.metrics),
                    "samples": list(self.samples), "error": self.error,
                    "message": self.message, "eta_seconds": self.eta_seconds(),
                    "elapsed_seconds": self.elapsed_seconds(),
                    "model_dir": self.model_dir, "run_dir": str(self.dir),
                    "suggestion": dict(self.suggestion), "budget": list(self.budget),
                    "stalled": self.stalled, "config": self.config.to_dict()}
        if log:
            snap["log"] = runlog.tail(self.dir)
        return snap

    def summary(self) -> dict:
        """One row of the run history: what ran, how far, how it ended."""
        snap = self.snapshot(log=False)
        losses = [m["loss"] for m in snap["metrics"] if "loss" in m]
        return {"name": snap["name"], "run_id": self.id, "stage": self.config.stage,
                "model": self.config.model_name_or_path, "dataset": self.config.dataset_name,
                "state": snap["state"], "step": snap["step"], "max_steps": snap["max_steps"],
                "final_loss": losses[-1] if losses else None, "stalled": snap["stalled"],
                "duration_seconds": snap["elapsed_seconds"], "created": self.created}

    # ---- files -------------------------------------------------------------
    def _append(self, name: str, record: dict) -> None:
        with open(self.dir / name, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    def _save_state(self) -> None:
        tmp = self.dir / "state.json.tmp"
        with self._lock:  # read and write together: a rename cannot be overwritten by a stale copy
            data = {k: getattr(self, k) for k in STATE_KEYS}
            said = saved_messages(data, SAID_KEYS)
            tmp.write_text(json.dumps({**data, "said": said} if said else data))
            tmp.replace(self.dir / "state.json")

    @classmethod
    def load(cls, folder: Path) -> "Run":
        """Rebuild a run from its folder (after a restart); a run cut off mid-way is failed."""
        config = RunConfig.from_yaml(folder / "config.yaml")
        run = cls(folder.name, folder, config)
        try:
            state = json.loads((folder / "state.json").read_text())
        except (ValueError, OSError) as e:  # (cut by a full disk or a crash of the disk)
            state = {"state": "failed", "error": Message(
                "This run's state.json could not be read (`{error}`), so its state, name "
                "and times are lost. Its folder is kept as it was: its checkpoints and "
                "model, if any, are still there.", error=str(e)[:120])}
        for key in STATE_KEYS:
            if key in state:
                setattr(run, key, state[key])
        for key, value in (state.get("said") or {}).items():  # its Messages, as values
            again = read_messages(value)
            if key in SAID_KEYS and again == getattr(run, key):
                setattr(run, key, again)
        run.metrics = read_jsonl(folder / "metrics.jsonl")
        run.samples = read_jsonl(folder / "samples.jsonl")
        run.name = clean_name(run.name) or run.id
        if run.state in ACTIVE_STATES:
            run.state, run.error = "failed", Message("The app stopped while this run was "
                                                     "training.")
            run.finished = (folder / "state.json").stat().st_mtime  # its last sign of life
        return run


def short_snapshot(snap: RunSnapshot) -> dict:
    """A snapshot without its metrics, samples and log."""
    return {k: v for k, v in snap.items() if k not in ("metrics", "samples", "log")}


def create_run(root: Path, cfg: RunConfig) -> Run:
    """A new run folder with its settings."""
    run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(cfg.to_yaml(), encoding="utf-8")
    run = Run(run_id, folder, cfg)
    run.set_state("queued", Message("Loading the model and the dataset..."))
    return run


def base_model_name(cfg: RunConfig) -> str:
    """The model a run of cfg fine-tunes, as the model card and an exported adapter name
    it: cfg's model, or, when cfg starts from a finished LoRA run's model folder (an
    adapter trained on, or merged: train/policy.py), that run's own base, followed back
    through its config.yaml to the Hub id it named."""
    folder = Path(cfg.model_name_or_path).expanduser()
    adapter = folder / "adapter_config.json"
    if not adapter.exists():
        return cfg.model_name_or_path
    started = folder.parent / "config.yaml"  # the run folder the model folder is in
    if started.exists():
        return base_model_name(RunConfig.from_yaml(started))
    return json.loads(adapter.read_text(encoding="utf-8"))["base_model_name_or_path"]
