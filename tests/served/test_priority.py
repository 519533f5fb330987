"""A shared server's page yields the cores to training: served with a login, the threads that
answer pages run at SFT_UI_SERVER_NICE, the training worker at the app's own priority
(read from Linux's /proc while the app answers)."""
from __future__ import annotations

import os
import sys

import pytest

from tests.conftest import serve, wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a thread's own priority is Linux's")


def _nices(pid: int) -> dict[int, int]:
    """Each thread of the process `pid`: its nice."""
    import psutil
    return {t.id: psutil.Process(t.id).nice() for t in psutil.Process(pid).threads()}


def _worker(pid: int):
    import psutil
    return next((p for p in psutil.Process(pid).children()
                 if "worker" in p.cmdline()), None)


def test_a_shared_servers_page_threads_yield_to_its_training_process(tmp_path, monkeypatch):
    monkeypatch.setenv("SFT_UI_AUTH", "ann:a long secret")
    monkeypatch.setenv("SFT_UI_SERVER_NICE", "7")
    with serve(tmp_path / "runs", tmp_path / "app.log") as (proc, client):
        assert client.predict(api_name="/list_runs") == []  # (it answers, lowered)
        worker = wait_for(lambda: _worker(proc.pid))  # the spare, started at the app's start
        mine, server = os.nice(0), _nices(proc.pid)
        assert server[proc.pid] == max(mine, 7), server  # it started the page's threads
        lowered = [tid for tid, nice in server.items() if nice == max(mine, 7)]
        assert len(lowered) > len(server) / 2, server  # (the web server's and its workers')
        assert set(_nices(worker.pid).values()) == {mine}
