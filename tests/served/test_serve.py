"""`serve`: the order of its start. TRL (with transformers and accelerate) is imported
before the server answers any request: a request importing them beside that import broke
the app's start ("KeyError: 'accelerate'", seen when a client started a run while the
app warmed up)."""
from __future__ import annotations

import pytest

import sft_ui.ui
from sft_ui import cli


@pytest.mark.parametrize("users", [{}, {"ann": "a long secret"}])
def test_the_libraries_are_imported_before_the_server_answers(monkeypatch, users):
    """(On a shared server the page's threads, started by launch, are lowered before it:
    tests/served/test_priority.py reads them.)"""
    calls = []

    class Manager:
        def __init__(self, in_child):
            calls.append("manager")

        def warm_up(self):
            calls.append("warm_up")

        def close(self):
            calls.append("close")

    class App:
        def queue(self):
            return self

        def launch(self, **kwargs):
            calls.append("launch")

        def block_thread(self):
            calls.append("block_thread")

    class Queue:  # the watcher of runs queued from the command line
        def __init__(self, manager, listen=True):
            assert not listen

        def watch(self):
            calls.append("watch_queue")

    monkeypatch.setattr(cli, "RunManager", Manager)
    monkeypatch.setattr(cli, "RunQueue", Queue)
    monkeypatch.setattr(cli.gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(cli, "lower_this_thread", lambda nice: calls.append(f"nice {nice}"))
    monkeypatch.setattr(sft_ui.ui, "build_app", lambda manager, access: App())
    monkeypatch.delenv("SPACE_ID", raising=False)
    cli.serve("127.0.0.1", 0, users, private=False)
    lowered = ["nice 19"] if users else []
    assert calls == ["manager", "warm_up", "watch_queue", *lowered, "launch", "freeze",
                     "block_thread", "close"]
