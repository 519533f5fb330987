"""Command line:
  python -m sft_ui prepare-model            convert the offline default model once
  python -m sft_ui serve [--host H] [--port P] [--auth USER:PASSWORD] [--private]
  python -m sft_ui train --config FILE [--runs-dir DIR]                 train headless
  python -m sft_ui train --run-dir DIR [--resume CHECKPOINT]     a run the app follows
  python -m sft_ui worker [--load-ahead MODEL]    the app's warm training process (the app
                                                  starts it)
"""
from __future__ import annotations

import argparse
import gc
import os
import sys


def _users(pairs: list[str]) -> dict[str, str]:
    """USER:PASSWORD pairs from --auth, else SFT_UI_AUTH (separated by commas)."""
    from sft_ui.access import parse_users
    try:
        return parse_users(",".join(pairs) if pairs else os.environ.get("SFT_UI_AUTH", ""))
    except ValueError as e:
        raise SystemExit(str(e)) from None


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sft_ui")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare-model", help="convert the offline default model into the cache")
    worker = sub.add_parser("worker", help="the served app's training process, which the "
                            "app starts and hands one run (train/worker.py)")
    worker.add_argument("--load-ahead", default=None, metavar="MODEL",
                        help="load this model while waiting (the run most likely trains it)")
    serve = sub.add_parser("serve", help="start the app")
    serve.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    serve.add_argument("--port", type=int,
                       default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    serve.add_argument("--auth", action="append", default=[], metavar="USER:PASSWORD",
                       help="logins for training, deleting and pushing; viewing stays "
                       "open (repeatable; or SFT_UI_AUTH=u1:p1,u2:p2)")
    serve.add_argument("--private", action="store_true",
                       default=os.environ.get("SFT_UI_PRIVATE", "") not in ("", "0"),
                       help="also require the login to view the page (SFT_UI_PRIVATE=1)")
    train = sub.add_parser("train", help="train a run from a YAML file, without the browser")
    what = train.add_mutually_exclusive_group(required=True)
    what.add_argument("--config", help="a YAML file of run settings "
                      "(saved by the app, or a `trl sft` config)")
    what.add_argument("--run-dir", help="train the run of this folder for the app that "
                      "started this command and follows it (events on stdout)")
    train.add_argument("--events", action="store_true", help="with --config: also print "
                       "the run's records as @sft_ui event lines (for a follower of the log)")
    train.add_argument("--resume", default=None, help="with --run-dir: the checkpoint "
                       "folder to continue from")
    train.add_argument("--runs-dir", default=None,
                       help="where the run folder goes (default: SFT_UI_RUNS_DIR or ./runs)")
    args = parser.parse_args(argv)
    if args.command == "prepare-model":
        from sft_ui.models import prepare_default_model
        print(f"Default model ready in {prepare_default_model()}")
    elif args.command == "worker":
        from sft_ui.train.worker import serve_one_run
        sys.exit(serve_one_run(args.load_ahead))
    elif args.command == "train":
        from sft_ui.cli import train_for_app, train_from_file
        if args.run_dir:
            sys.exit(train_for_app(args.run_dir, args.resume))
        sys.exit(train_from_file(args.config, args.runs_dir, args.events))
    else:
        from sft_ui.access import Access
        from sft_ui.runs import RunManager
        from sft_ui.ui import build_app
        users = _users(args.auth)
        manager = RunManager(in_child=True)  # runs train in a warm child process
        # With --private the whole page needs gradio's login; else only the actions do.
        app = build_app(manager, Access.from_env(users))
        app.queue().launch(server_name=args.host, server_port=args.port,
                           auth=list(users.items()) if args.private and users else None,
                           prevent_thread_lock=True)
        try:
            manager.warm_up()
            gc.freeze()  # the page's and the libraries' objects stay: no full GC passes them
            app.block_thread()  # until Ctrl-C; it closes the server
        except KeyboardInterrupt:  # while warming up
            app.close()
        finally:
            manager.close()


if __name__ == "__main__":
    main()
