"""A run's id, name and folder, on a RunManager with a stand-in trainer: path-like ids and
hidden folders are not runs, a rename is only a label (a blank one refused), the history's
rows, and delete removes exactly that folder (never an active run's, nor one linked from
elsewhere)."""
import shutil
import time

import pytest

from sft_ui.runs import NAME_MAX, RunError, RunManager
from tests.conftest import HANG, wait_for
from tests.runs.test_lifecycle import _done_run, _finished, fake_train


@pytest.fixture
def manager(tmp_path):
    return RunManager(tmp_path / "runs", trainer=fake_train, preflight=lambda cfg: None)


# ---- ids, names, delete ----------------------------------------------------------
@pytest.mark.parametrize("bad", ["", "nope", "../x", "/etc", ".", "..", "a/b", "a\\b",
                                 "a\x00b", "..\\..\\x", " / ", "\n", "x" * 200])
def test_path_like_ids_are_refused(manager, bad):
    for call in (manager.get, manager.delete, lambda r: manager.rename(r, "n"),
                 manager.resume, manager.stop):
        with pytest.raises(RunError, match="No run with id"):
            call(bad)


def test_a_folder_with_a_hidden_name_is_not_a_run(manager):
    hidden = manager.root / ".hidden"
    hidden.mkdir()
    (hidden / "state.json").write_text("{}")
    with pytest.raises(RunError):
        manager.get(".hidden")
    assert manager.list_runs() == []


@pytest.mark.parametrize("name, shown", [
    ("  First try  ", "First try"),
    ("../../etc/passwd", "../../etc/passwd"),
    ("/tmp/evil", "/tmp/evil"),
    ("C:\\Windows\\x", "C:\\Windows\\x"),
    ("line\nbreak\ttab", "line break tab"),
    ("nul\x00bell\x07esc\x1b[31m", "nulbellesc[31m"),
    ("rtl\u202eoverride", "rtloverride"),
    ("\u00e9t\u00e9 \u2603 \u6d77\u8cca", "\u00e9t\u00e9 \u2603 \u6d77\u8cca"),
    ("x" * 300, "x" * NAME_MAX),
])
def test_rename_is_only_a_label(manager, name, shown):
    run_id = _done_run(manager)
    before = sorted(p.relative_to(manager.root.parent) for p in manager.root.parent.rglob("*"))
    assert manager.rename(run_id, name)["name"] == shown
    after = sorted(p.relative_to(manager.root.parent) for p in manager.root.parent.rglob("*"))
    assert after == before  # no file or folder appeared or moved
    assert manager.get(run_id).dir == manager.root / run_id
    # Kept in state.json: a fresh manager (a restart) shows the same name.
    again = RunManager(manager.root, trainer=fake_train)
    assert again.get(run_id).snapshot()["name"] == shown
    assert [r["name"] for r in again.list_runs()] == [shown]


def test_rename_refuses_a_blank_name_and_the_default_is_the_id(manager):
    run_id = _done_run(manager)
    assert manager.get(run_id).snapshot()["name"] == run_id
    for blank in ("", "   ", "\n\t\x00"):
        with pytest.raises(RunError, match="Type a name"):
            manager.rename(run_id, blank)
    assert manager.get(run_id).name == run_id


def test_history_rows(manager):
    first = _done_run(manager, steps=4)
    manager.rename(first, "baseline")
    second = _done_run(manager, steps=2)
    rows = manager.history()
    assert [r["run_id"] for r in rows] == [second, first]  # newest first
    row = rows[1]
    assert row["name"] == "baseline" and row["state"] == "done"
    assert (row["step"], row["max_steps"]) == (4, 4)
    assert row["final_loss"] == pytest.approx(0.5)  # the last logged loss, 2.0 / 4
    assert row["model"] == "HuggingFaceTB/SmolLM2-135M-Instruct" and row["dataset"] == "demo"
    assert 0 <= row["duration_seconds"] < 30 and row["created"] <= time.time()


def test_delete_removes_exactly_that_folder(manager):
    keep, drop = _done_run(manager), _done_run(manager)
    (manager.root / "notes.txt").write_text("mine")
    assert manager.delete(drop) == drop
    assert sorted(p.name for p in manager.root.iterdir()) == sorted([keep, "notes.txt"])
    assert [r["run_id"] for r in manager.list_runs()] == [keep]
    with pytest.raises(RunError, match="No run with id"):
        manager.get(drop)
    with pytest.raises(RunError, match="No run with id"):
        manager.delete(drop)


def test_deleting_an_active_run_is_refused(manager):
    run_id = manager.start({"max_steps": 100000, "sample_steps": 0})
    wait_for(lambda: manager.get(run_id).step >= 1, timeout=HANG)
    with pytest.raises(RunError, match="stop it before deleting"):
        manager.delete(run_id)
    assert (manager.root / run_id / "state.json").exists()
    manager.stop(run_id)
    wait_for(lambda: _finished(lambda r: manager.get(r).snapshot(), run_id), timeout=HANG)
    manager.delete(run_id)
    assert list(manager.root.iterdir()) == []


def test_a_run_folder_linked_from_elsewhere_is_not_deleted(manager, tmp_path):
    run_id = _done_run(manager)
    outside = tmp_path / "elsewhere"
    shutil.move(manager.root / run_id, outside)
    (manager.root / run_id).symlink_to(outside, target_is_directory=True)
    fresh = RunManager(manager.root, trainer=fake_train)
    assert fresh.get(run_id).snapshot()["state"] == "done"
    with pytest.raises(RunError, match="not a folder inside"):
        fresh.delete(run_id)
    assert (outside / "state.json").exists() and (manager.root / run_id).is_symlink()
