"""Headless training: `python -m sft_ui train --config FILE` runs the same engine
into the same run folder format as the app (its runs appear in the app's history),
printing progress in the terminal. Under `accelerate launch` every process
trains one shared run; only the main process writes the run folder.
`train --run-dir DIR` trains a run the app created and follows (train/launch.py):
the main process reports events on stdout and the app writes the folder's records."""
from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig
from sft_ui.errors import UserError
from sft_ui.runs import Run, create_run, runs_dir


class NullSink:
    """What the other processes of a multi-process run report to: nothing."""

    def progress(self, step, max_steps):
        pass

    def add_metrics(self, record):
        pass

    def add_samples(self, rows):
        pass

    def stop_requested(self):
        return False


class TerminalSink:
    """The run's own sink, also printing progress, losses and samples."""

    def __init__(self, run: Run, out=None, events=None):
        self.run, self.out, self.start = run, out or sys.stdout, time.time()
        self.events = events  # an EventSink also reporting each record (a job's log)

    def progress(self, step, max_steps):
        self.run.progress(step, max_steps)
        if self.events:
            self.events.progress(step, max_steps)

    def add_metrics(self, record):
        self.run.add_metrics(record)
        if self.events:
            self.events.add_metrics(record)
        shown = {k: record[k] for k in ("loss", "eval_loss", "learning_rate", "grad_norm",
                                        "tokens_per_second") if k in record}
        if shown:
            text = "  ".join(f"{k} {v:.4g}" for k, v in shown.items())
            print(f"[{time.time() - self.start:6.0f}s] step {record['step']}/"
                  f"{self.run.max_steps}  {text}", file=self.out, flush=True)

    def add_samples(self, rows):
        self.run.add_samples(rows)
        if self.events:
            self.events.add_samples(rows)
        for row in rows:
            print(f"  sample @ {row['step']}: {row['prompt']!r} -> {row['completion']!r}",
                  file=self.out, flush=True)

    def stop_requested(self):
        return False


def _shared_run_id(run_id: str | None) -> str:
    """The main process's run id, known to every process of a distributed run."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return run_id or ""
    import torch
    from accelerate import PartialState
    from accelerate.utils import broadcast_object_list
    PartialState(cpu=not torch.cuda.is_available())  # joins the process group
    box = [run_id]
    broadcast_object_list(box)
    return box[0]


def train_from_file(config: str | Path, root: str | Path | None = None,
                    events: bool = False) -> int:
    """Train the run described by a YAML file; return the process exit status. `events`:
    also print the run's records as events (train/events.py) for an app that follows
    this process's output (a job's logs)."""
    from sft_ui.train.engine import is_main_process, train
    main = is_main_process()
    try:
        cfg = RunConfig.from_yaml(config)
        problems = cfg.validate()
        if problems:
            raise ConfigError(problems)
    except (ConfigError, OSError) as e:
        if main:
            problems = getattr(e, "messages", [str(e)])
            print(f"Cannot train with {config}:\n" + "\n".join(f"- {p}" for p in problems),
                  file=sys.stderr)
        return 2
    root = Path(root) if root else runs_dir()
    run = create_run(root, cfg) if main else None
    run_id = _shared_run_id(run.id if run else None)
    if run and events:
        from sft_ui.train.events import EventSink
        sink = TerminalSink(run, events=EventSink(run.dir))
    else:
        sink = TerminalSink(run) if run else NullSink()
    if run:
        print(f"Run {run_id} in {run.dir}", flush=True)
        run.set_state("running", "Training (command line)...")
    try:
        out = train(cfg, root / run_id, sink)
    except BaseException as e:  # every ending is written down before leaving
        if run:
            message = "Interrupted." if isinstance(e, KeyboardInterrupt) else \
                str(e) if isinstance(e, UserError) else f"{type(e).__name__}: {e}"
            if not isinstance(e, (UserError, KeyboardInterrupt)):
                (run.dir / "error.log").write_text(traceback.format_exc())
            run.set_state("failed", "", message)
            print(f"Run {run_id} failed: {message}", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    if run:
        run.model_dir = str(out)
        run.set_state("done", f"Finished {run.step} steps; the model is saved in {out}.")
        print(f"Done: {run.step} steps, model in {out}", flush=True)
    return 0


def train_for_app(run_dir: str | Path, resume_from: str | None = None) -> int:
    """Train the run in `run_dir` for the app that launched this process and follows its
    events (train/events.py); return the process exit status. The ending is an event
    too: `done`, or `failed` with the message (and the trace of an unexpected error)."""
    from sft_ui.plan.memory import is_out_of_memory
    from sft_ui.train.engine import is_main_process, train
    from sft_ui.train.events import EventSink
    from sft_ui.train.launch import watch_app
    watch_app()
    run_dir = Path(run_dir)
    main = is_main_process()
    sink = EventSink(run_dir) if main else NullSink()
    try:
        cfg = RunConfig.from_yaml(run_dir / "config.yaml")
        out = train(cfg, run_dir, sink, Path(resume_from) if resume_from else None)
    except BaseException as e:  # the app says how the run ended
        if main:
            user = isinstance(e, UserError) and not is_out_of_memory(e)
            sink.emit(failed={"message": str(e) if user else f"{type(e).__name__}: {e}",
                              "user": user, "trace": "" if user else traceback.format_exc()})
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    if main:
        sink.emit(done=str(out))
    return 0
