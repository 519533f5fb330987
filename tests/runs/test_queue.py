"""The run queue (sft_ui/runs/run_queue.py): runs that wait and start one after another,
first queued first run; a run that fails does not stop it; it is kept on disk, so that a
restart, or a SIGKILL mid-run, loses nothing queued; on a shared server each person sees
and changes only their own; the API and the command line add to it."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest
import yaml

from sft_ui.access import Access, Who
from sft_ui.actions import Actions
from sft_ui.config import ConfigError
from sft_ui.runs import RunManager
from sft_ui.runs.run_queue import FILE, QueueError, RunQueue
from tests.conftest import HANG, ROOT, wait_for

GATES: list = []


@pytest.fixture(autouse=True)
def _gates_open_at_the_end():
    yield
    for gate in GATES:
        gate.open.set()
    GATES.clear()


class Gate:
    """A trainer that holds each run until released, and fails a run whose learning rate
    is 0.5 (a trial that goes wrong)."""

    def __init__(self):
        self.order, self.open = [], threading.Event()
        GATES.append(self)

    def __call__(self, cfg, run_dir, sink, resume_from=None):
        self.order.append(cfg.learning_rate)
        assert self.open.wait(HANG)
        if cfg.learning_rate == 0.5:
            raise RuntimeError("this trial diverged")
        return None


def _ended(manager, run_id):
    run = manager.get(run_id)
    wait_for(lambda: run.state in ("done", "stopped", "failed"))
    return run


def test_queued_runs_start_in_order_and_a_failed_one_does_not_stop_the_queue(tmp_path):
    gate = Gate()
    manager = RunManager(tmp_path / "runs", trainer=gate)
    queue = RunQueue(manager)
    first = queue.add({"learning_rate": 1e-4})  # nothing trains: it starts at once
    assert queue.rows()[0]["state"] in ("queued", "running")
    queue.add({"learning_rate": 0.5})
    third = queue.add({"learning_rate": 3e-4})
    waiting = [r for r in queue.rows() if r["state"] == "waiting"]
    assert [(r["place"], r["changed"]["learning_rate"]) for r in waiting] == [(1, 0.5),
                                                                             (2, 3e-4)]
    queue.move(third, -1)  # the person puts the third first
    assert [r["id"] for r in queue.rows() if r["state"] == "waiting"][0] == third
    gate.open.set()
    wait_for(lambda: len(gate.order) == 3 and not manager.busy())
    assert gate.order == [1e-4, 3e-4, 0.5]
    rows = {r["id"]: r for r in queue.rows()}
    assert all(r["state"] in ("done", "failed") for r in rows.values())
    failed = [r for r in rows.values() if r["state"] == "failed"]
    assert len(failed) == 1 and "this trial diverged" in failed[0]["error"]
    ended = _ended(manager, rows[first]["run_id"])
    assert rows[first]["run_id"] and ended.state == "done"
    # the time it took, where one waiting shows its estimate
    assert rows[first]["seconds"] == ended.finished - ended.created


def test_a_queued_run_is_checked_as_start_checks_it_and_can_be_edited_or_removed(tmp_path):
    gate = Gate()
    manager = RunManager(tmp_path / "runs", trainer=gate)
    queue = RunQueue(manager)
    queue.add({})
    with pytest.raises(ConfigError, match="Max steps"):
        queue.add({"max_steps": 0, "train_by": "steps"})
    queued = queue.add({"learning_rate": 2e-4})
    queue.edit(queued, {"learning_rate": 4e-4})
    assert queue.rows()[0]["changed"]["learning_rate"] == 4e-4
    queue.remove(queued)
    assert [r for r in queue.rows() if r["state"] == "waiting"] == []
    with pytest.raises(QueueError, match="No queued run"):
        queue.remove(queued)
    gate.open.set()
    wait_for(lambda: not manager.busy())


def test_the_queue_outlives_the_app(tmp_path):
    """The app ends while a run trains and two wait: the next app finds the two waiting
    (the interrupted run failed, resumable), and starts them in turn."""
    gate = Gate()
    manager = RunManager(tmp_path / "runs", trainer=gate)
    queue = RunQueue(manager)
    running = queue.add({"learning_rate": 1.5e-4})
    queue.add({"learning_rate": 2e-4})
    queue.add({"learning_rate": 3e-4})
    saved = json.loads((tmp_path / "runs" / FILE).read_text())
    assert [r["config"]["learning_rate"] for r in saved["runs"]] == [1.5e-4, 2e-4, 3e-4]
    # the next app: a fresh manager on the same folder (the first one's run is held, as
    # a killed app's would be: its state.json still says it trains)
    later = Gate()
    later.open.set()
    again = Actions(RunManager(tmp_path / "runs", trainer=later), Access())
    wait_for(lambda: len(later.order) == 2 and not again.manager.busy())
    assert later.order == [2e-4, 3e-4]
    rows = {r["id"]: r for r in again.queued(Who())}
    assert rows[running]["state"] == "failed"
    assert "stopped while this run was training" in rows[running]["error"]
    gate.open.set()  # (the first app's thread ends)
    wait_for(lambda: not manager.busy())


def test_on_a_shared_server_each_person_sees_and_changes_only_their_own(tmp_path):
    gate = Gate()
    actions = Actions(RunManager(tmp_path / "runs", trainer=gate),
                      Access(users={"ann": "a", "bob": "b"}))
    ann, bob, viewer = Who("s1", "ann"), Who("s2", "bob"), Who("s3")
    actions.queue_run(ann, {"learning_rate": 1e-4})  # trains now
    mine = actions.queue_run(ann, {"learning_rate": 2e-4})
    actions.queue_run(bob, {"learning_rate": 3e-4})
    theirs = actions.queue_run(ann, {"learning_rate": 4e-4})
    assert [r["changed"]["learning_rate"] for r in actions.queued(bob)] == [3e-4]
    assert [(r["place"], r["changed"]["learning_rate"]) for r in actions.queued(ann)
            if r["state"] == "waiting"] == [(1, 2e-4), (3, 4e-4)]
    with pytest.raises(QueueError, match="No queued run"):
        actions.unqueue(bob, mine)
    with pytest.raises(Exception, match="Sign in"):
        actions.queue_run(viewer, {})
    actions.move_queued(ann, theirs, -1)  # ann's own order changes, bob keeps place 2
    assert [(r["place"], r["changed"]["learning_rate"]) for r in actions.queued(ann)
            if r["state"] == "waiting"] == [(1, 4e-4), (3, 2e-4)]
    gate.open.set()
    wait_for(lambda: len(gate.order) == 4 and not actions.manager.busy())
    assert gate.order == [1e-4, 4e-4, 3e-4, 2e-4]


def test_the_command_line_queue_survives_a_sigkill_mid_run(tmp_path, tiny_cfg):
    """`python -m sft_ui queue --run` killed with SIGKILL while its first run trains: the
    second stays queued, and the next `queue --run` trains it; the interrupted run is
    failed, with its reason, and can be resumed from a checkpoint."""
    runs = tmp_path / "runs"
    files = []
    for n, steps in enumerate((400, 2)):
        path = tmp_path / f"run{n}.yaml"
        path.write_text(yaml.safe_dump({**tiny_cfg, "max_steps": steps, "sample_steps": 0,
                                        "save_steps": 2, "save_strategy": "steps"}))
        files.append(str(path))
    env = {**os.environ, "SFT_UI_RUNS_DIR": str(runs)}
    command = [sys.executable, "-m", "sft_ui", "queue", "--run"]
    proc = subprocess.Popen(command + sum((["--config", f] for f in files), []), cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        def training():
            for state in runs.glob("*/state.json"):
                if json.loads(state.read_text())["step"] >= 3:
                    return state.parent
            assert proc.poll() is None, proc.stdout.read().decode()
            return None
        first = wait_for(training)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=HANG)
    queued = json.loads((runs / FILE).read_text())["runs"]
    assert [r["run_id"] == first.name for r in queued] == [True, False]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr
    manager = RunManager(runs)
    states = {run.id: run for run in manager.all_runs()}
    assert len(states) == 2
    assert states[first.name].state == "failed"
    assert "stopped while this run was training" in states[first.name].error
    second = next(run for run in states.values() if run.id != first.name)
    assert second.state == "done" and second.step == 2
    assert manager.resume(first.name) == first.name  # a checkpoint was there
    manager.stop(first.name)
    _ended(manager, first.name)


def test_why_a_queued_run_could_not_start_is_kept_as_a_message(tmp_path, monkeypatch):
    """The queue's file keeps a refusal as its template and values, so that the list says
    it in the reader's language after a restart too."""
    from sft_ui import i18n
    from sft_ui.i18n.message import Message
    manager = RunManager(tmp_path / "runs", trainer=Gate())
    refusal = Message("No run with id {run_id}.", run_id="x")

    def refused(*args, **kwargs):
        raise ConfigError([refusal])
    monkeypatch.setattr(manager, "start", refused)
    RunQueue(manager).add({"learning_rate": 1e-4})
    row = RunQueue(manager).rows()[0]  # read again from its file
    assert row["state"] == "not started" and row["error"] == refusal
    assert i18n.translate(row["error"], "ja") == "ID が x の実行はありません。"
