"""The HTTP API next to the UI (documented in the README); errors are gr.Error
with the same readable messages the page shows."""
from __future__ import annotations

from typing import Iterator

import gradio as gr

from ..chat import ChatService
from ..runs import USER_ERRORS, RunManager


def _answer(fn, *args):
    """fn(*args), with a person-facing error turned into gr.Error (the client sees its text)."""
    try:
        return fn(*args)
    except USER_ERRORS as e:
        raise gr.Error(" ".join(getattr(e, "messages", [str(e)]))) from None


def build(manager: RunManager, chat: ChatService) -> None:
    def start_run(config: dict) -> dict:
        """Start a run from RunConfig fields (missing ones take the defaults)."""
        return {"run_id": _answer(manager.start, config or {})}

    def run_status(run_id: str) -> dict:
        """State, step, max_steps, metrics, samples and error of a run."""
        return _answer(manager.get, run_id).snapshot()

    def stop_run(run_id: str) -> dict:
        """Ask a run to stop after the current step; it saves its model."""
        return _answer(manager.stop, run_id)

    def resume_run(run_id: str) -> dict:
        """Continue a stopped or failed run from its last checkpoint (same run id)."""
        return {"run_id": _answer(manager.resume, run_id)}

    def list_runs() -> list:
        """Every run in the runs folder, newest first (without metrics and samples)."""
        return manager.list_runs()

    def chat_reply(message: str, history: list | None = None, run_id: str = "") -> Iterator[str]:
        """Stream a reply from a run's model (default: the latest finished run)."""
        try:  # a generator raises while it is iterated, so _answer cannot wrap it
            yield from chat.stream(message, history, run_id or None)
        except USER_ERRORS as e:
            raise gr.Error(str(e)) from None

    for fn, name in ((start_run, "start_run"), (run_status, "run_status"),
                     (stop_run, "stop_run"), (resume_run, "resume_run"),
                     (list_runs, "list_runs"), (chat_reply, "chat")):
        gr.api(fn, api_name=name)
