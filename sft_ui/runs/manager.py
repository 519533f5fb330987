"""RunManager: starts runs (one at a time; where each trains is backends/'s choice),
resolves a time budget into settings once, as a run starts, resumes, renames, deletes
and finds runs, and says how a failed run ended (its message, error.log, advice after
running out of memory or disk). Knows nothing of Gradio: the actions (sft_ui/actions.py)
call it.
"""
from __future__ import annotations

import shutil
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from sft_ui import backends
from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.backends import jobs
from sft_ui.backends.worker import WarmWorker
from sft_ui.config import DEFAULT_MODEL_ID, ConfigError, RunConfig, shorten
from sft_ui.errors import UserError, said
from sft_ui.i18n.message import Message
from sft_ui.lazy import trl
from sft_ui.plan.hardware import detect, release_memory
from sft_ui.plan.memory import memory_problem
from sft_ui.plan.oom import is_out_of_memory, out_of_memory_advice
from sft_ui.plan.plateau import PLATEAU, ended_by, plateau_step
from sft_ui.runs.checkpoints import (discard_partial_checkpoints, disk_full_message,
                                     is_disk_full, latest_checkpoint)
from sft_ui.runs.folder import RUN_ID, clean_name, display_name, gone_is_deleted, runs_dir
from sft_ui.runs.run import ACTIVE_STATES, Run, RunError, create_run, short_snapshot
from sft_ui.runs.start import apply_budget


class RunManager:
    """Starts runs (one at a time) and finds earlier ones. A run trains in a thread of its
    own, or with `in_child` in a child process started before it is needed
    (backends/worker.py: the served app, whose threads then answer the page without
    taking the training's GIL); a thread of the app follows it."""

    def __init__(self, root: Path | None = None, trainer=None, preflight=None,
                 in_child: bool = False, hub=None):
        self.root = Path(root) if root else runs_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        # Injectable for tests; default: backends.trainer_for's and backends.preflight.
        self._train, self._preflight = trainer, preflight
        self.hub = hub  # the HfApi runs on Hugging Face Jobs use (None: a new HfApi)
        self._trainers: dict[str, Callable] = {}  # run id -> its own trainer (a job's)
        self._runs: dict[str, Run] = {}
        self._active: Run | None = None
        self._lock = threading.RLock()
        self._worker = None
        self.when_idle: list = []  # called when a run ends (the queue starts the next)
        self.closed = threading.Event()
        if in_child:  # (a worker trains in its main thread: on a CPU, PyTorch trained a
            # quarter slower in another thread, 3.6 s against 2.7 s a default step)
            self._worker = WarmWorker(self.likely_model)

    def _launch(self, run: Run, resume_from: Path | None = None) -> None:
        threading.Thread(target=self._work, args=(run, resume_from), name=f"run-{run.id}",
                         daemon=True).start()

    def warm_up(self, wait: bool = False) -> None:
        """Start the warm worker and import the engine and TRL here (seconds on a CPU)
        now, not after the first Start: the first loss then follows Start by a model load
        and a step. `wait`: until the worker is ready too."""
        if self._train is None:
            if self._worker:
                self._worker.warm()
            trl()
            if self._worker and wait:
                self._worker.wait_ready()

    def close(self) -> None:
        """End the waiting worker (the app is closing)."""
        self.closed.set()
        if self._worker:
            self._worker.close()

    def start(self, values: dict | RunConfig, allow_over_memory: bool = False,
              token: str = "", keep=()) -> str:
        """Validate, create the run folder, start training; return the run id. A run whose
        memory estimate exceeds the RAM available (on a CPU) or clearly exceeds the free GPU
        memory is refused, with the fixes, unless `allow_over_memory`. A run on Hugging Face
        Jobs uses `token` (kept in memory only, while the job is followed). `keep`: settings
        a time budget leaves as they are (Run.keep)."""
        cfg = self.check(values, allow_over_memory, token)
        trainer = None
        if cfg.run_on == "hf_jobs":
            trainer = backends.trainer_for(cfg, token=token, hub=self.hub)
        with self._lock:
            self._check_idle()
            run = create_run(self.root, cfg)
            run.keep = tuple(keep)
            self._runs[run.id], self._active = run, run
            if trainer:
                self._trainers[run.id] = trainer
        self._launch(run)
        return run.id

    def start_beside(self, values: dict | RunConfig, token: str, keep=()) -> str:
        """A run on Hugging Face Jobs started now, beside whatever trains (a sweep's trials
        there, several at once): it uses no hardware of this machine, and the live view
        keeps showing the run it showed. Its id."""
        cfg = self.check(values, token=token, idle=False)
        if cfg.run_on != "hf_jobs":
            raise RunError(Message("Only a run on Hugging Face Jobs starts beside another: one "
                                   "run trains on this machine at a time."))
        trainer = backends.trainer_for(cfg, token=token, hub=self.hub)
        with self._lock:
            run = create_run(self.root, cfg)
            run.keep = tuple(keep)
            self._runs[run.id], self._trainers[run.id] = run, trainer
        self._launch(run)
        return run.id

    def check(self, values: dict | RunConfig, allow_over_memory: bool = False,
              token: str = "", idle: bool = True) -> RunConfig:
        """Why `values` cannot start a run now, raised as start raises it, without starting
        one (the page asks again whether a refusal still holds; `idle` False: whatever run
        trains now); else their RunConfig."""
        cfg = values if isinstance(values, RunConfig) else RunConfig.from_dict(values)
        problems = cfg.validate()
        if problems:
            raise ConfigError(problems)
        if idle:
            self._check_idle()
        if cfg.run_on == "hf_jobs":
            jobs.check(cfg, token, self.hub)
        else:
            self._check_here(cfg, allow_over_memory)
        return cfg

    def _check_here(self, cfg: RunConfig, allow_over_memory: bool) -> None:
        """Why cfg cannot train on this machine (raises), before a run folder exists."""
        (self._preflight or backends.preflight)(cfg)
        if self._train is None and not allow_over_memory:  # the estimate is the engine's
            problem = memory_problem(cfg)
            if problem:
                raise RunError(problem)

    def resume(self, run_id: str) -> str:
        """Continue a stopped or failed run from its last checkpoint, under the same id."""
        with self._lock:
            self._check_idle()
            run = self.get(run_id)
            if run.state not in ("stopped", "failed"):
                raise RunError(Message("Run {run_id} is {state}: only a stopped or failed run "
                                       "can be resumed.", run_id=run.id,
                                       state=Message(run.state)))
            if run.config.run_on == "hf_jobs":  # its checkpoints stayed in the job
                raise RunError(Message("Run {run_id} trained on Hugging Face Jobs: a job cannot "
                                       "be resumed (its checkpoints stay in the job). Start it "
                                       "again.", run_id=run.id))
            discard_partial_checkpoints(run.dir)  # e.g. cut short when the app was killed
            checkpoint = latest_checkpoint(run.dir)
            if checkpoint is None:
                raise RunError(Message("Run {run_id} has no checkpoint to resume from: set 'Save "
                                       "every N steps', or stop a run to write one.",
                                       run_id=run.id))
            run.prepare_resume(int(checkpoint.name.split("-")[-1]))
            run.resumed += 1
            run.set_state("queued", Message("Resuming from {checkpoint}...",
                                            checkpoint=checkpoint.name))
            self._active = run
        self._launch(run, checkpoint)
        return run_id

    def _check_idle(self) -> None:
        if self.busy():
            raise RunError(self.busy())

    def busy(self) -> Message | str:
        """Why no run can start now (one is training), or ""."""
        active = self._active
        if active is not None and active.state in ACTIVE_STATES:
            return Message("Run {run_id} is still training: stop it or wait until it ends "
                           "before starting another.", run_id=active.id)
        return ""

    def _work(self, run: Run, resume_from: Path | None = None) -> None:
        train = self._train or self._trainers.pop(run.id, None)
        outcome: tuple[str, ...]  # (state, message[, error])
        try:
            run.suggestion, started = {}, time.time()
            if run.config.run_on != "hf_jobs":  # a job resolves it where it trains
                apply_budget(run, started, choose=resume_from is None)
            if train is None:
                train = backends.trainer_for(run.config, self._worker)
            processes = run.config.processes(detect().devices)
            # (then the training process says what it does: Run.phase)
            run.set_state("running", Message("Loading the model and the data...")
                          if processes == 1 else
                          Message("Training on {processes} processes...", processes=processes))
            model_dir = train(run.config, run.dir, run, resume_from=resume_from)
        except UserError as e:
            outcome = ("failed", "", said(e))
        except Exception as e:  # keep the server alive and say what happened
            outcome = ("failed", "", self._failure(run, e))
        else:
            run.model_dir = str(model_dir or "")
            if run.stop_requested() and not model_dir:
                outcome = ("stopped", Message("Stopped at step {step}: the job was cancelled "
                                              "before it saved a model.", step=run.step))
            elif run.stop_requested():
                outcome = ("stopped", Message("Stopped at step {step}; the model so far is "
                                              "saved in {folder}, with a checkpoint to resume "
                                              "from.", step=run.step, folder=str(model_dir)))
            elif (judged := ended_by(run.metrics)) and judged[0] == PLATEAU and \
                    (at := plateau_step(run.metrics)):
                outcome = ("done", Message(
                    "Stopped {cool} steps after the held-out rows stopped improving (step "
                    "{at}), the learning rate brought down to 0 over them; the model of step "
                    "{kept}, the best on the held-out rows, is saved in {folder}.",
                    cool=run.step - at, at=at, kept=judged[1], folder=str(model_dir)))
            elif judged and judged[0] == PLATEAU:
                outcome = ("done", Message(
                    "Stopped where the held-out rows stopped improving, after {step} of {steps} "
                    "steps; the model of step {kept}, the best on the held-out rows, is saved "
                    "in {folder}.", step=run.step, steps=run.max_steps, kept=judged[1],
                    folder=str(model_dir)))
            elif run.deadline is not None and run.step < run.max_steps:
                outcome = ("done", Message("Stopped at the time budget after {step} of {steps} "
                                           "steps; the model is saved in {folder}.",
                                           step=run.step, steps=run.max_steps,
                                           folder=str(model_dir)))
            else:
                outcome = ("done", Message("Finished {step} steps; the model is saved in "
                                           "{folder}.", step=run.step, folder=str(model_dir)))
        # Before the state says the run ended (and the next may start), with the error and
        # its frames gone: the next run finds the GPU (or RAM) as this one found it.
        release_memory()
        try:
            run.set_state(*outcome)
        except OSError:  # a full disk: the page shows the state, state.json keeps the last
            pass         # one written; the server (whose main thread may be this) goes on
        for then in list(self.when_idle):
            try:
                then()
            except Exception:  # the next run's own trouble is on its row, not this run's
                traceback.print_exc()

    @staticmethod
    def _failure(run: Run, e: Exception) -> Message | str:
        """What a run that raised says; its error.log keeps the trace."""
        removed = discard_partial_checkpoints(run.dir)
        try:
            (run.dir / "error.log").write_text(getattr(e, "trace", "") or
                                               traceback.format_exc())
        except OSError:
            pass  # a full disk: the state still says what happened
        if is_disk_full(e):
            return disk_full_message(run, removed)
        if is_out_of_memory(e):
            advice, run.suggestion = out_of_memory_advice(run.config)
            return Message("Out of memory at step {step}. {advice}", step=run.step,
                           advice=advice)
        return getattr(e, "described", "") or f"{type(e).__name__}: {e}"

    def get(self, run_id: str) -> Run:
        run_id = str(run_id or "").strip()
        unknown = RunError(Message("No run with id {run_id}. Choose one from the list of runs.",
                                   run_id=shorten(run_id)))
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
                raise RunError(Message("Type a name for the run (not only spaces)."))
            run.rename(cleaned)
            return short_snapshot(run.snapshot(log=False))

    def delete(self, run_id: str) -> str:
        """Remove a run that is not training, with its whole folder; return its id."""
        with self._lock:
            run = self.get(run_id)
            if run.state in ACTIVE_STATES:
                raise RunError(Message("Run {run_id} is {state}: stop it before deleting it.",
                                       run_id=run.id, state=Message(run.state)))
            folder = run.dir.resolve()
            if folder.parent != self.root.resolve():
                raise RunError(Message("Run {run_id} is not a folder inside {root}; it was not "
                                       "deleted.", run_id=run.id, root=str(self.root)))
            for attempt in range(3):  # a run's last write may land while it goes
                try:
                    shutil.rmtree(folder, onerror=gone_is_deleted)
                    break
                except OSError as e:
                    if attempt == 2 and folder.exists():
                        raise RunError(Message("Could not delete {folder}: {error}.",
                                               folder=str(folder),
                                               error=str(e.strerror or e))) from None
            self._runs.pop(run.id, None)
            if self._active is run:
                self._active = None
            return run.id

    def stop(self, run_id: str) -> RunSnapshot:
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
        return [short_snapshot(run.snapshot(log=False)) for run in self.all_runs()]

    def history(self) -> list[dict]:
        """`Run.summary` of every run with its display name (`label`), newest first."""
        return [{**run.summary(), "label": display_name(run)} for run in self.all_runs()]

    def likely_model(self) -> str:
        """The model the next run most likely trains: the latest run's, else the default
        (the warm worker loads it ahead)."""
        runs = self.all_runs()
        return runs[0].config.model_name_or_path if runs else DEFAULT_MODEL_ID

    def active(self) -> Run | None:
        return self._active

    def latest_finished(self) -> Run | None:
        for snap in self.list_runs():
            if snap["model_dir"] and Path(snap["model_dir"]).exists():
                return self.get(snap["run_id"])
        return None
