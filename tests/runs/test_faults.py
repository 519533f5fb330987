"""Faults that leave nothing half-done later taken as whole: an export the app dies in
the middle of (a real kill -9 of a process exporting), a state.json or a sweep file cut
short at start, a full disk during an upload; and the page's words for each."""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sft_ui import i18n
from sft_ui.access import Access, Who
from sft_ui.actions import Actions
from sft_ui.data import DataError, store_upload
from sft_ui.runs import RunManager
from sft_ui.share.export import PARTIAL, export_run
from sft_ui.ui.lang import kept
from sft_ui.ui.sweep_handlers import SweepHandlers
from tests.conftest import HANG, trained
from tests.i18n.test_messages_checks import _left

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lora_run(tmp_path_factory, tiny_model_dir):
    manager = RunManager(tmp_path_factory.mktemp("faults") / "runs")
    run = trained(manager, {"model_name_or_path": tiny_model_dir, "max_steps": 1,
                            "per_device_train_batch_size": 2, "max_length": 64,
                            "sample_steps": 0, "use_peft": True, "lora_r": 4})
    return manager, run


def test_an_export_killed_midway_is_never_taken_whole(lora_run):
    """kill -9 of a process while it writes the merged export (its first file written,
    the model not yet): the export's place holds nothing, or the earlier whole export;
    the next export replaces the half-written one."""
    manager, run = lora_run
    merged = export_run(run, merged=True)
    whole = sorted(p.name for p in merged.iterdir())
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from sft_ui.runs import RunManager
        from sft_ui.share import export
        merge = export._merge
        def slow(source, out):
            merge(source, out)
            (out / "model.safetensors").write_bytes(b"half")  # as a cut write leaves it
            print("written", flush=True)
            time.sleep(600)
        export._merge = slow
        run = RunManager(Path({str(manager.root)!r})).get({run.id!r})
        export.export_run(run, merged=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert child.stdout.readline().strip() == "written"
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=HANG)
    assert sorted(p.name for p in merged.iterdir()) == whole  # the earlier one, whole
    assert (merged.parent / f"merged{PARTIAL}" / "model.safetensors").read_bytes() == b"half"
    again = export_run(run, merged=True)
    assert (again / "model.safetensors").stat().st_size > 1000
    assert not (merged.parent / f"merged{PARTIAL}").exists()


def test_a_state_file_cut_short_lists_the_run_as_failed_with_why(lora_run, tmp_path):
    manager, run = lora_run
    import shutil
    folder = tmp_path / "runs" / run.id
    shutil.copytree(run.dir, folder)
    state = (folder / "state.json").read_text()
    (folder / "state.json").write_text(state[: len(state) // 2])
    listed = RunManager(tmp_path / "runs").list_runs()
    assert [r["run_id"] for r in listed] == [run.id]
    assert listed[0]["state"] == "failed"
    said = RunManager(tmp_path / "runs").get(run.id).error
    assert "state.json could not be read" in str(said) and not _left(said)
    assert (folder / "model").exists()  # nothing of the folder removed


def test_a_sweep_file_cut_short_does_not_stop_the_app(tmp_path):
    sweeps = tmp_path / "runs" / "sweeps"
    sweeps.mkdir(parents=True)
    (sweeps / "sweep-20261207-000000-abcdef.json").write_text('{"id": "sweep-2026')
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    assert actions.sweeps.ids() == []
    assert (sweeps / "sweep-20261207-000000-abcdef.json").exists()  # kept as it was
    # the sweep panel says so when the page opens, in both languages
    sweep_id, notice, *_ = SweepHandlers(actions, ["stage"]).opened(None, "")
    said = kept(notice)[0]["text"]
    assert sweep_id == "" and "sweep-20261207-000000-abcdef.json could not be read" in notice
    assert not _left(said), i18n.translate(said, "ja")
    # on a shared server, whose file it was cannot be read: nobody is told
    shared = Actions(RunManager(tmp_path / "runs"), Access(users={"ann": "pw"}))
    assert shared.damaged_sweeps(Who("s", "ann")) == []


def test_an_upload_the_disk_could_not_hold_is_not_kept(tmp_path, monkeypatch):
    import shutil
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"prompt": "a", "completion": "b"}) + "\n")

    def full(src, dst, **kwargs):
        Path(dst).write_text('{"prompt": "a", "comp')  # what fitted before the disk filled
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(shutil, "copyfile", full)
    with pytest.raises(DataError) as e:
        store_upload(source, tmp_path / "uploads")
    said = e.value.messages[0] if getattr(e.value, "messages", None) else e.value.args[0]
    assert "No space left on device" in str(said) and "Free some disk space" in str(said)
    assert not _left(said), i18n.translate(said, "ja")
    assert not [p for p in (tmp_path / "uploads").rglob("*") if p.is_file()]
    monkeypatch.undo()
    kept = store_upload(source, tmp_path / "uploads")  # the disk freed: kept whole
    assert Path(kept).read_text() == source.read_text()


def test_a_full_disk_upload_is_said_in_the_page(tmp_path, monkeypatch):
    """The same refusal through the action the page's upload calls."""
    import shutil
    actions = Actions(RunManager(tmp_path / "runs"), Access())
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({"prompt": "a", "completion": "b"}) + "\n")
    monkeypatch.setattr(shutil, "copyfile", lambda *a, **k: (_ for _ in ()).throw(
        OSError(errno.ENOSPC, "No space left on device")))
    with pytest.raises(DataError, match="No space left on device"):
        actions.upload(Who(), source)
