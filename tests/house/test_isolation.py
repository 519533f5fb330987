"""The suite's isolation (conftest's _nothing_left_behind) holds: a test that leaves a run,
a thread or a process going fails, saying what it left, and what it left is ended before
the next test starts. Checked on small tests of its own, run by pytest in a subprocess."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

LEAKY = '''
import subprocess, sys, threading, time
from sft_ui.runs import RunManager
from tests.conftest import wait_for

def _train_until_stopped(cfg, run_dir, sink, resume_from=None):
    end = time.time() + 600  # a ceiling: Stop ends it long before
    while not sink.stop_requested() and time.time() < end:
        time.sleep(0.05)
    (run_dir / "model").mkdir()
    return run_dir / "model"

def test_leaves_a_run(tmp_path):
    manager = RunManager(tmp_path, trainer=_train_until_stopped, preflight=lambda cfg: None)
    manager.start({"max_steps": 5})

def test_sees_no_run_of_the_test_before():
    import gc
    from tests.conftest import _MANAGERS
    gc.collect()
    assert not any(m.active() and m.active().state in ("queued", "running", "stopping")
                   for m in _MANAGERS)
    assert not [t for t in threading.enumerate() if t.name.startswith("run-")]

def test_leaves_a_thread():
    gate = threading.Event()
    threading.Thread(target=gate.wait, args=(600,), name="waits-forever", daemon=True).start()

def test_leaves_a_process():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

def test_waits_for_what_it_started(tmp_path):
    manager = RunManager(tmp_path, trainer=_train_until_stopped, preflight=lambda cfg: None)
    run_id = manager.start({"max_steps": 5})
    manager.stop(run_id)
    wait_for(lambda: manager.get(run_id).state == "stopped")
    subprocess.run([sys.executable, "-c", "pass"], check=True)
'''


def test_a_test_that_leaves_something_going_fails_and_it_is_ended(tmp_path):
    tests = tmp_path / "test_leaky.py"
    tests.write_text(LEAKY)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-q",
                           "-p", "no:cacheprovider", "-rA", str(tests)], cwd=ROOT,
                          env={**os.environ, "SFT_UI_LEAK_CEILING": "5"},
                          capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "5 passed, 3 errors" in out, out
    lines = [line for line in out.splitlines() if " left behind: " in line]
    assert any("test_leaves_a_run" in line and "left behind: run " in line
               for line in lines), out
    assert any("test_leaves_a_thread" in line and "thread 'waits-forever'" in line
               for line in lines), out
    assert any("test_leaves_a_process" in line and "time.sleep(600)" in line
               for line in lines), out
    assert "PASSED" in out and "test_sees_no_run_of_the_test_before" in out
