"""The served app's training process (backends/worker.py) and its cheap reads: a run trains in
a warm child process that reports to the app's run, Stop and a dead worker are handled, no
worker outlives the app, and anonymous polls of the run's state share one session."""
import os
import signal

import httpx
import psutil
import pytest

from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.runs import RunManager, latest_checkpoint
from tests.conftest import HANG, free_port, wait_for


def workers() -> list[psutil.Process]:
    """This process's worker children, alive."""
    return [p for p in psutil.Process().children()
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE
            and "worker" in p.cmdline()]


def ended(manager, run_id):
    run = manager.get(run_id)
    return run if run.state in ("done", "stopped", "failed") else None


@pytest.fixture
def in_child(tmp_path, monkeypatch):
    """A RunManager like `serve`'s, whose runs cannot train in this process."""
    def here(*args, **kwargs):
        raise AssertionError("trained in the app's own process")
    monkeypatch.setattr("sft_ui.train.engine.train", here)
    manager = RunManager(tmp_path / "runs", in_child=True)
    manager.warm_up(wait=True)
    yield manager
    active = manager.active()
    if active and active.state in ("queued", "running", "stopping"):
        active.request_stop()
        wait_for(lambda: ended(manager, active.id), timeout=HANG)
    manager.close()
    wait_for(lambda: not workers(), timeout=HANG)


def test_a_run_trains_in_the_warm_worker_and_another_waits_after_it(in_child, tiny_cfg):
    spare = workers()
    assert len(spare) == 1
    first_command = spare[0].cmdline()
    run_id = in_child.start({**tiny_cfg, "max_steps": 3})
    run = wait_for(lambda: ended(in_child, run_id), timeout=HANG)
    assert run.state == "done", run.error
    assert [m["step"] for m in run.metrics if "loss" in m] == [1, 2, 3]
    assert {s["step"] for s in run.samples} == {0, 1, 2, 3}
    assert (run.dir / "model" / "model.safetensors").exists()
    assert "Saved the model" in (run.dir / "train.log").read_text()
    # The worker that trained ended; a new one waits for the next Start.
    assert not spare[0].is_running() or spare[0].status() == psutil.STATUS_ZOMBIE
    after = wait_for(workers, timeout=HANG)
    assert [p.pid for p in after] != [spare[0].pid]
    # Each spare loads ahead the model the next run most likely trains: the default at
    # first, then the latest run's; the next run takes it.
    assert first_command[-2:] == ["--load-ahead", DEFAULT_MODEL_ID]
    assert after[0].cmdline()[-2:] == ["--load-ahead", tiny_cfg["model_name_or_path"]]
    in_child.warm_up(wait=True)
    again = in_child.start({**tiny_cfg, "max_steps": 2, "sample_steps": 0})
    run = wait_for(lambda: ended(in_child, again), timeout=HANG)
    assert run.state == "done", run.error
    assert [m["step"] for m in run.metrics if "loss" in m] == [1, 2]
    assert "The model was loaded ahead" in (run.dir / "train.log").read_text()
    assert "The model was loaded ahead" not in (in_child.get(run_id).dir / "train.log"
                                                ).read_text()


def test_a_model_loaded_ahead_is_taken_once_and_only_as_asked(tiny_model_dir, monkeypatch):
    import torch

    from sft_ui import models
    from sft_ui.train.lean import own_weights
    ahead = []

    def prepare(model):
        own_weights(model)
        ahead.append(model)
    assert models.load_ahead(tiny_model_dir, prepare)
    model, tokenizer = models.load_model_and_tokenizer(tiny_model_dir)
    assert model is ahead[0] and model.owns_weights and tokenizer.pad_token
    again, _ = models.load_model_and_tokenizer(tiny_model_dir)  # once only
    assert again is not model and not getattr(again, "loaded_ahead", False)
    # Asked with other options, or trusting remote code: loaded as asked, the other dropped.
    assert models.load_ahead(tiny_model_dir, prepare)
    half, _ = models.load_model_and_tokenizer(tiny_model_dir, dtype=torch.bfloat16)
    assert half is not ahead[1] and half.dtype == torch.bfloat16
    plain, _ = models.load_model_and_tokenizer(tiny_model_dir)
    assert plain is not ahead[1]
    # Not loaded ahead: a Hub id (nothing downloads unasked), a model too big for memory.
    assert not models.load_ahead("someone/some-model")
    monkeypatch.setattr("psutil.virtual_memory", lambda: type("M", (), {"available": 2**20}))
    assert not models.load_ahead(tiny_model_dir)


def test_stop_reaches_the_worker_and_a_dead_worker_fails_its_run(in_child, tiny_cfg):
    run_id = in_child.start({**tiny_cfg, "max_steps": 100_000, "sample_steps": 0})
    wait_for(lambda: in_child.get(run_id).step >= 3, timeout=HANG, interval=0.05)
    in_child.stop(run_id)
    run = wait_for(lambda: ended(in_child, run_id), timeout=HANG)
    assert run.state == "stopped", run.error
    stopped_at = run.step
    assert latest_checkpoint(run.dir).name == f"checkpoint-{stopped_at}"

    run_id = in_child.resume(run_id)
    wait_for(lambda: in_child.get(run_id).step >= stopped_at + 2, timeout=HANG, interval=0.05)
    [worker] = workers()  # the one training (the next spare starts after the run)
    os.kill(worker.pid, signal.SIGKILL)  # as the system does when memory runs out
    run = wait_for(lambda: ended(in_child, run_id), timeout=HANG)
    assert run.state == "failed"
    assert "killed" in run.error and "memory" in run.error, run.error

    again = in_child.start({**tiny_cfg, "max_steps": 2, "sample_steps": 0})
    assert wait_for(lambda: ended(in_child, again), timeout=HANG).state == "done"


def test_polls_without_a_session_share_one(tmp_path, tiny_cfg):
    """A poll of /run_status over plain HTTP names no session; Gradio would build one for
    each (the configuration of every component). They share one, and answer as before."""
    from sft_ui.ui import build_app

    def train(cfg, run_dir, sink, resume_from=None):
        sink.progress(1, 1)
        sink.add_metrics({"step": 1, "loss": 1.5})
        return run_dir
    manager = RunManager(tmp_path / "runs", trainer=train, preflight=lambda cfg: None)
    app = build_app(manager)
    server, url, _ = app.queue().launch(server_name="127.0.0.1", server_port=free_port(),
                                        prevent_thread_lock=True, quiet=True)
    try:
        run_id = manager.start(tiny_cfg)
        wait_for(lambda: manager.get(run_id).state == "done")
        sessions = len(server.state_holder.session_data)
        with httpx.Client(timeout=HANG) as http:
            def call(name, data, **extra):
                return http.post(f"{url}gradio_api/run/{name}", json={"data": data, **extra})
            answers = [call("run_status", [run_id]).json()["data"][0] for _ in range(5)]
            named = call("run_status", [run_id], session_hash="mine").json()["data"][0]
            listed = call("list_runs", []).json()["data"][0]
            unknown = call("run_status", ["20990101-000000-abcdef"])
            broken = http.post(f"{url}gradio_api/run/run_status", content=b"{not json")
        assert all(a["metrics"] == [{"step": 1, "loss": 1.5}] for a in answers)
        assert {k: v for k, v in answers[0].items() if k != "elapsed_seconds"} == \
            {k: v for k, v in named.items() if k != "elapsed_seconds"}
        assert [r["run_id"] for r in listed] == [run_id]
        assert "No run with id" in unknown.text
        assert broken.status_code >= 400  # Gradio's own answer to a malformed call
        # One shared session for the anonymous reads, one for "mine".
        assert len(server.state_holder.session_data) == sessions + 2
    finally:
        app.close()


def test_a_training_process_takes_the_apps_answer_on_bf16(monkeypatch):
    """The app measures whether bf16 pays on this CPU (the plan's precision); a training
    process it starts takes that answer instead of measuring again, so the two agree."""
    from sft_ui.backends.child import child_environment
    from sft_ui.plan import hardware
    if hardware.detect().device == "cpu":
        told = child_environment()[hardware.CPU_BF16]
        assert told == ("1" if hardware.detect().bf16 else "0")
    for told in ("0", "1"):
        monkeypatch.setenv(hardware.CPU_BF16, told)
        assert hardware.bf16_pays() is (told == "1")


def test_the_bf16_check_keeps_its_answer_while_the_cpu_is_busy(monkeypatch):
    """The app checks whether bf16 pays while it starts, its training process warming up
    beside it: with both cores busy the check must give the answer it gives on an idle
    machine (a wrong yes trains every run at a fraction of the speed)."""
    import subprocess
    import sys

    from sft_ui.plan import hardware
    monkeypatch.delenv(hardware.CPU_BF16, raising=False)
    idle = hardware.bf16_pays()
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        answers = [hardware.bf16_pays() for _ in range(4)]
    finally:
        for p in busy:
            p.kill()
    assert answers == [idle] * 4, (idle, answers)
