"""Command line: `python -m sft_ui prepare-model` converts the offline default
model once; `python -m sft_ui serve [--host H] [--port P]` starts the app."""
from __future__ import annotations

import argparse
import os


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sft_ui")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare-model", help="convert the offline default model into the cache")
    serve = sub.add_parser("serve", help="start the app")
    serve.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    serve.add_argument("--port", type=int,
                       default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    args = parser.parse_args(argv)
    if args.command == "prepare-model":
        from .models import prepare_default_model
        print(f"Default model ready in {prepare_default_model()}")
    else:
        from .ui import build_app
        build_app().queue().launch(server_name=args.host, server_port=args.port)


if __name__ == "__main__":
    main()
