"""Faults that leave nothing half-done later taken as whole: a real kill -9 of a process
exporting, converting to GGUF or judging a sweep's trial; a state.json or a sweep file cut
short at start; a full disk during an upload; and the page's words for each."""
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
from tests.conftest import HANG, trained, wait_for
from tests.i18n.test_messages_checks import _left

ROOT = Path(__file__).resolve().parents[2]


def killed_at(script: str, line: str) -> None:
    """Run `script` in a process of its own and kill -9 it (and its children) once it
    prints `line`: the app ended at that point, as a power cut or the OOM killer ends it."""
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                             stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert child.stdout.readline().strip() == line
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=HANG)


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
    killed_at(script, "written")
    assert sorted(p.name for p in merged.iterdir()) == whole  # the earlier one, whole
    assert (merged.parent / f"merged{PARTIAL}" / "model.safetensors").read_bytes() == b"half"
    again = export_run(run, merged=True)
    assert (again / "model.safetensors").stat().st_size > 1000
    assert not (merged.parent / f"merged{PARTIAL}").exists()


def test_a_gguf_conversion_killed_midway_leaves_no_file_taken_whole(lora_run):
    """kill -9 of a process while llama.cpp's converter has written its file but the
    export has not yet put it in place: the folder holds no .gguf and no Modelfile (the
    earlier export's is gone with its file), only the .partial; the next export is
    whole."""
    from sft_ui.share.gguf_export import export_gguf
    manager, run = lora_run
    first, modelfile = export_gguf(run, "", "f16")
    folder = first.parent
    script = textwrap.dedent(f"""
        import subprocess, time
        from pathlib import Path
        from sft_ui.runs import RunManager
        from sft_ui.share import gguf_export
        real = subprocess.run
        def converted_then_hang(*args, **kwargs):
            done = real(*args, **kwargs)  # the real converter, to the .partial file
            print("converted", flush=True)
            time.sleep(600)
            return done
        gguf_export.subprocess.run = converted_then_hang
        run = RunManager(Path({str(manager.root)!r})).get({run.id!r})
        gguf_export.export_gguf(run, "", "f16")
    """)
    killed_at(script, "converted")
    assert sorted(p.name for p in folder.iterdir()) == [first.name + ".partial"]
    again, modelfile = export_gguf(run, "", "f16")
    assert sorted(p.name for p in folder.iterdir()) == sorted([again.name, "Modelfile"])
    assert again.read_bytes()[:4] == b"GGUF" and again.name in modelfile.read_text()


KILLED_IN_JUDGING = """
import sys, time
from pathlib import Path
from sft_ui.runs import RunManager
from sft_ui.runs.run_queue import RunQueue
from sft_ui.sweeps import Scorer, Sweeps, SweepSpec
def trainer(cfg, run_dir, sink, resume_from=None):
    for step in (1, 2):
        sink.progress(step, 2)
        sink.add_metrics({{"step": step, "loss": 1.0, "eval_loss": 2.0}})
class Hangs(Scorer):
    def __call__(self, spec, run):
        print("judging", flush=True)
        time.sleep(600)
manager = RunManager(Path({runs!r}), trainer=trainer)
sweeps = Sweeps(RunQueue(manager), manager, Hangs())
sweeps.start(SweepSpec(vary={{"learning_rate": [1e-4, 1e-3]}}, trials=2, budget_minutes=30))
time.sleep(600)
"""


def test_a_sweep_killed_while_judging_a_trial_never_takes_it_as_judged(tmp_path):
    """kill -9 of the app while a sweep judges its first trial (its run trained): the
    next app reads the trial as cut off, with no score and not the sweep's best; resumed,
    the sweep judges that trial's run, whole, instead of training it again, then runs the
    other (a trial cut off while it trained is asked again:
    tests/sweeps/test_sweep_training.py)."""
    from sft_ui.runs.run_queue import RunQueue
    from sft_ui.sweeps import Scorer, Sweeps
    runs = tmp_path / "runs"
    killed_at(KILLED_IN_JUDGING.format(runs=str(runs)), "judging")
    saved = json.loads(next((runs / "sweeps").glob("sweep-*.json")).read_text())
    assert [t["state"] for t in saved["trials"]] == ["scoring"]  # as the kill left it
    trained = []

    def trainer(cfg, run_dir, sink, resume_from=None):
        trained.append(cfg.learning_rate)
        for step in (1, 2):
            sink.progress(step, 2)
            sink.add_metrics({"step": step, "loss": 1.0, "eval_loss": 3.0})
    manager = RunManager(runs, trainer=trainer)
    found = Sweeps(RunQueue(manager), manager, Scorer())
    try:
        sweep = found.get(saved["id"])
        snap = sweep.snapshot()
        assert snap["state"] == "interrupted"
        assert [(t["state"], t["score"]) for t in snap["trials"]] == [("interrupted", None)]
        assert sweep.best() is None
        found.resume(sweep.id)
        done = wait_for(lambda: (lambda s: s if s["state"] not in ("running", "paused")
                                 else None)(found.get(sweep.id).snapshot()), timeout=HANG)
        assert done["state"] == "done", done.get("error")
        first, second = done["trials"]
        assert (first["state"], first["run_id"]) == ("done", saved["trials"][0]["run_id"])
        assert first["score"] is not None and second["score"] is not None
        assert trained == [second["params"]["learning_rate"]]  # the first: judged only
        assert len(manager.all_runs()) == 2
    finally:
        found.close()
        manager.close()


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
