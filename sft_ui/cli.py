"""The command line, `python -m sft_ui ...` (prepare-model, serve, train, worker, queue,
sweep; their options: `parser`): the app served, and runs trained, queued and swept
without a browser into the same runs folder.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import traceback
from pathlib import Path

from sft_ui.access import ALLOW_CODE, Access, parse_users
from sft_ui.chat import ChatService
from sft_ui.config import ConfigError, RunConfig
from sft_ui.errors import UserError, said
from sft_ui.evaluate.job import Evaluator
from sft_ui.i18n.message import Message
from sft_ui.limits import Limits, lower_this_thread
from sft_ui.models import prepare_default_model
from sft_ui.runs import ACTIVE_STATES, Run, RunManager, create_run, runs_dir
from sft_ui.runs.run_queue import RunQueue
from sft_ui.runs.start import apply_budget
from sft_ui.sweeps import Scorer, Sweeps, SweepSpec
from sft_ui.sweeps.score import kept_quick_said
from sft_ui.train.events import EventSink, NullSink, TerminalSink


def _users(pairs: list[str]) -> dict[str, str]:
    """USER:PASSWORD pairs from --auth, else SFT_UI_AUTH (separated by commas)."""
    try:
        return parse_users(",".join(pairs) if pairs else os.environ.get("SFT_UI_AUTH", ""))
    except ValueError as e:
        raise SystemExit(str(e)) from None


def parser() -> argparse.ArgumentParser:
    """The commands and their options."""
    parser = argparse.ArgumentParser(prog="python -m sft_ui")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare-model", help="convert the offline default model into the cache")
    worker = sub.add_parser("worker", help="the served app's training process, which the "
                            "app starts and hands one run (backends/worker.py)")
    worker.add_argument("--load-ahead", default=None, metavar="MODEL",
                        help="load this model while waiting (the run most likely trains it)")
    serve = sub.add_parser("serve", help="start the app")
    serve.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    serve.add_argument("--port", type=int,
                       default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    serve.add_argument("--auth", action="append", default=[], metavar="USER:PASSWORD",
                       help="logins for training, deleting and pushing; viewing stays "
                       "open (repeatable; or SFT_UI_AUTH=u1:p1,u2:p2)")
    serve.add_argument("--allow-reward-code", action="store_true", dest="allow_code",
                       help="let reward functions written in the page run on this server "
                       "even with logins or on a Space (SFT_UI_ALLOW_REWARD_CODE=1)")
    serve.add_argument("--private", action="store_true",
                       default=os.environ.get("SFT_UI_PRIVATE", "") not in ("", "0"),
                       help="also require the login to view the page (SFT_UI_PRIVATE=1)")
    train = sub.add_parser("train", help="train a run from a YAML file, without the browser")
    what = train.add_mutually_exclusive_group(required=True)
    what.add_argument("--config", help="a YAML file of run settings (saved by the "
                      "app, or a `trl sft` config); its `stage` (sft, dpo, orpo, kto) "
                      "picks the trainer")
    what.add_argument("--run-dir", help="train the run of this folder for the app that "
                      "started this command and follows it (events on stdout)")
    train.add_argument("--events", action="store_true", help="with --config: also print "
                       "the run's records as @sft_ui event lines (for a follower of the log)")
    train.add_argument("--resume", default=None, help="with --run-dir: the checkpoint "
                       "folder to continue from")
    train.add_argument("--runs-dir", default=None,
                       help="where the run folder goes (default: SFT_UI_RUNS_DIR or ./runs)")
    queue = sub.add_parser("queue", help="queue runs from YAML files: the app serving the "
                           "same runs folder starts each when the runs before it end")
    queue.add_argument("--config", action="append", default=[], metavar="YAML",
                       help="a YAML file of run settings (repeatable: queued in order)")
    queue.add_argument("--run", action="store_true", help="also train the queue here, one "
                       "run after another, until none waits (no app needed)")
    queue.add_argument("--runs-dir", default=None,
                       help="the runs folder (default: SFT_UI_RUNS_DIR or ./runs)")
    sweep = sub.add_parser("sweep", help="run a sweep from a YAML file here, without the "
                           "browser: its trials one after another, ranked at the end")
    sweep.add_argument("--config", required=True, metavar="YAML",
                       help="a sweep file: base (run settings, or a run YAML's path), vary, "
                       "method, budget_minutes, trials, score, eval_file, seed")
    sweep.add_argument("--runs-dir", default=None,
                       help="the runs folder (default: SFT_UI_RUNS_DIR or ./runs)")
    return parser


def main(argv=None) -> None:
    args = parser().parse_args(argv)
    if args.command == "prepare-model":
        print(f"Default model ready in {prepare_default_model()}")
    elif args.command == "worker":
        from sft_ui.backends.worker import serve_one_run  # heavy: torch, TRL
        sys.exit(serve_one_run(args.load_ahead))
    elif args.command == "train":
        if args.run_dir:
            from sft_ui.train.process import train_for_app  # heavy: torch, TRL
            sys.exit(train_for_app(args.run_dir, args.resume))
        sys.exit(train_from_file(args.config, args.runs_dir, args.events))
    elif args.command == "queue":
        sys.exit(queue_files(args.config, args.runs_dir, args.run))
    elif args.command == "sweep":
        sys.exit(sweep_file(args.config, args.runs_dir))
    else:
        if args.allow_code:  # Access.from_env reads it
            os.environ[ALLOW_CODE] = "1"
        serve(args.host, args.port, _users(args.auth), args.private)


def serve(host: str, port: int, users: dict[str, str], private: bool) -> None:
    """Serve the app until Ctrl-C; its runs train in a warm child process."""
    from sft_ui.ui import build_app  # heavy: gradio, not needed to train
    manager = RunManager(in_child=True)  # runs train in a warm child process
    try:
        # TRL (with transformers and accelerate) is imported before the server answers: a
        # request importing them beside this import broke it ("KeyError: 'accelerate'").
        manager.warm_up()
        # With --private the whole page needs gradio's login; else only the actions do.
        access = Access.from_env(users)
        app = build_app(manager, access)
        RunQueue(manager, listen=False).watch()  # runs queued from the command line
        if access.shared:  # (the threads that answer pages, started from here on, yield to
            # the training process, started by the worker's thread, started before)
            lower_this_thread(Limits.from_env().server_nice)
        app.queue().launch(server_name=host, server_port=port,
                           auth=list(users.items()) if private and users else None,
                           prevent_thread_lock=True)
        gc.freeze()  # the page's and the libraries' objects stay: no full GC passes them
        app.block_thread()  # until Ctrl-C; it closes the server
    except KeyboardInterrupt:  # before the server was up
        pass
    finally:
        manager.close()


def train_from_file(config: str | Path, root: str | Path | None = None,
                    events: bool = False) -> int:
    """Train the run described by a YAML file; return the process exit status. The same
    engine and run folder format as the app (its runs appear in the app's history), for
    the file's stage (ORPO too, which `trl` has no command line for), and a time budget
    resolved as the app resolves it. Under `accelerate launch` every process trains one
    shared run and only the main one writes the run folder. `events`: also print the
    run's records as events (train/events.py) for an app that follows this process's
    output (a job's logs)."""
    from sft_ui.train.engine import is_main_process, train  # heavy: torch, TRL
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
    if run:
        print(f"Run {run.id} in {run.dir}", flush=True)
    try:
        if run:
            _apply_budget(run)
        # Every process trains the main process's settings, to its deadline.
        run_id, values, deadline = _shared(
            (run.id, run.config.to_dict(), run.deadline) if run else None)
        cfg = RunConfig.from_dict(values)
        sink = TerminalSink(run, events=EventSink(run.dir) if events else None) if run \
            else NullSink(deadline)
        out = train(cfg, root / run_id, sink)
    except BaseException as e:  # every ending is written down before leaving
        if run:
            message = "Interrupted." if isinstance(e, KeyboardInterrupt) else \
                said(e) if isinstance(e, UserError) else f"{type(e).__name__}: {e}"
            if not isinstance(e, (UserError, KeyboardInterrupt)):
                (run.dir / "error.log").write_text(traceback.format_exc())
            run.set_state("failed", "", message)
            print(f"Run {run.id} failed: {message}", file=sys.stderr)
        return 130 if isinstance(e, KeyboardInterrupt) else 1
    if run:
        run.model_dir = str(out)
        run.set_state("done", Message("Finished {step} steps; the model is saved in {folder}.",
                                      step=run.step, folder=str(out)))
        print(f"Done: {run.step} steps, model in {out}", flush=True)
        if run.stalled:  # its latest steps learnt nothing (its family's rule)
            print(f"Warning: {run.stalled}", flush=True)
    return 0


def queue_files(configs: list[str], root: str | Path | None = None, run: bool = False) -> int:
    """Queue the runs of YAML files (checked as Start checks them); with `run`, train the
    queue (in a warm child process) until none waits. The exit status: 2 when a file was
    refused."""
    # (a run trains in a warm child's main thread, as the app's: PyTorch trains slower in
    # another thread of this process; docs/benchmarks.md#make-bench-the-eight-figures)
    manager = RunManager(Path(root) if root else None, in_child=run)
    try:
        return _queue_files(manager, configs, run)
    finally:
        manager.close()


def _queue_files(manager: RunManager, configs: list[str], run: bool) -> int:
    queue, refused = RunQueue(manager), 0
    for config in configs:
        try:
            queued = queue.add(RunConfig.from_yaml(config))
            print(f"Queued {config} as {queued}", flush=True)
        except (UserError, OSError) as e:
            refused += 1
            problems = getattr(e, "messages", [str(e)])
            print(f"Cannot queue {config}:\n" + "\n".join(f"- {p}" for p in problems),
                  file=sys.stderr)
    waiting = [r for r in queue.rows() if r["state"] == "waiting"]
    print(f"{len(waiting)} runs wait in {queue.path}", flush=True)
    while run:
        active = manager.active()
        if active is not None and active.state in ACTIVE_STATES:
            print(f"Training {active.id}...", flush=True)
            while active.state in ACTIVE_STATES:
                time.sleep(1)
            print(f"Run {active.id} {active.state}. {active.error or active.message}",
                  flush=True)
        elif queue.pump() is None:
            break
    return 2 if refused else 0


def sweep_file(path: str, root: str | Path | None = None) -> int:
    """Run the sweep of a YAML file from this process (its trials through the runs folder's
    queue, each trained in a warm child process), printing each trial as it ends and the
    ranked table at the end. The exit status: 2 when the file was refused, 1 when the
    sweep failed or no trial scored."""
    try:
        spec = SweepSpec.from_yaml(path)
    except (UserError, OSError) as e:
        problems = getattr(e, "messages", [str(e)])
        print(f"Cannot sweep {path}:\n" + "\n".join(f"- {p}" for p in problems),
              file=sys.stderr)
        return 2
    manager = RunManager(Path(root) if root else None, in_child=True)  # (as queue_files)
    try:
        return _sweep(manager, spec, path)
    finally:
        manager.close()


def _sweep(manager: RunManager, spec: SweepSpec, path: str) -> int:
    sweeps = Sweeps(RunQueue(manager), manager,
                    Scorer(Evaluator(ChatService(manager))))
    try:
        sweep = sweeps.start(spec)
    except UserError as e:
        print(f"Cannot sweep {path}: {e}", file=sys.stderr)
        return 2
    print(f"Sweep {sweep.id}: {spec.method}, {spec.budget_minutes:g} min, judged by "
          f"{spec.score}", flush=True)
    shown = set()
    while not sweeps.wait(sweep, 1.0):
        for trial in sweep.trials:
            if trial["seconds"] is not None and trial["number"] not in shown:
                shown.add(trial["number"])
                print(f"  trial {trial['number']} {trial['params']}: {trial['state']}" +
                      (" (pruned)" if trial["pruned"] else f", score {trial['score']}"),
                      flush=True)
    found = sweep.snapshot()
    print(f"Sweep {sweep.id} {found['state']} in {found['seconds']:.0f} s "
          f"({len(found['trials'])} trials). {found['error']}", flush=True)
    if found["kept_quick"]:
        print(kept_quick_said(found["kept_quick"]), flush=True)
    for place, trial in enumerate(found["trials"], 1):
        # (a pruned trial has no score: its last eval loss is said beside "pruned")
        scored = trial["score"] is not None and not trial["pruned"]
        score = f"{trial['score']:.4g}" if scored else "--"
        trained = f"{trial['steps']} steps, {trial.get('epochs') or 0:g} epochs, " \
            f"{trial.get('ended_by', '')}" if trial.get("steps") else "--"
        print(f"  {place}. {score}  {trial['params']}  run {trial['run_id'] or '--'}  "
              f"{trial['state']}" + (f" (pruned, eval loss {trial['pruned_loss']:.4g})"
                                     if trial.get("pruned_loss") is not None else
                                     " (pruned)" if trial["pruned"] else "") +
              f"  ({trained})", flush=True)
    return 0 if found["best"] else 1


def _apply_budget(run: Run) -> None:
    """The run's time budget: the settings it chooses and its deadline, printed."""
    apply_budget(run, time.time())
    for reason in run.budget:
        print(f"  time budget: {reason}", flush=True)
    if run.deadline:
        print(f"  time budget: training ends by "
              f"{time.strftime('%H:%M:%S', time.localtime(run.deadline))}", flush=True)
    run.set_state("running", "Training (command line)...")


def _shared(value):
    """The main process's `value`, known to every process of a distributed run."""
    if int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return value
    import torch  # heavy, and only under accelerate launch
    from accelerate import PartialState
    from accelerate.utils import broadcast_object_list
    PartialState(cpu=not torch.cuda.is_available())  # joins the process group
    box = [value]
    broadcast_object_list(box)
    return box[0]


if __name__ == "__main__":
    main()
