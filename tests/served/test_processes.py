"""A run on several processes of this machine (backends/processes.py), through the HTTP API of the
app served as its own process: 2 gloo processes train one run (one folder, one metrics
series, samples from the main process only) with the loss of 1 process at the same
effective batch; Stop saves a checkpoint that Resume continues; no process outlives
Stop, the run's end or a kill -9 of the app."""
import os
import signal

import psutil

from sft_ui.backends.processes import launch_command
from sft_ui.config import RunConfig
from sft_ui.plan.hardware import Hardware, unsupported
from sft_ui.runs import latest_checkpoint
from sft_ui.train.events import EventSink, deliver, read_event
from tests.conftest import HANG, HANG_MS, serve, wait_for


def _finished(client, run_id):
    snap = client.predict(run_id, api_name="/run_status")
    return snap if snap["state"] in ("done", "stopped", "failed") else None


def _trainers(run_dir) -> list[psutil.Process]:
    """The processes training the run in run_dir (its launcher and workers)."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if str(run_dir) in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def _told(runs, log, run_id) -> str:
    """The ends of the app's and the run's logs, and the processes left (a failed wait says
    them: a wait that ran out on a loaded machine shows where the run was)."""
    tails = []
    for path in (log, runs / run_id / "train.log"):
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        tails.append(f"--- {path.name}:\n" + "\n".join(lines[-25:]))
    left = [" ".join(p.info["cmdline"] or [])[:160] for p in _trainers(runs / run_id)]
    return "\n".join(tails + ["--- processes:", *left])


def _waited(predicate, runs, log, run_id, **options):
    try:
        return wait_for(predicate, timeout=HANG, **options)
    except AssertionError as e:
        raise AssertionError(f"{e}\n{_told(runs, log, run_id)}") from None


def _losses(snap) -> list[tuple[int, float]]:
    return [(m["step"], m["loss"]) for m in snap["metrics"] if "loss" in m]


def test_two_processes_train_one_run_like_one_process(tmp_path, tiny_cfg):
    runs = tmp_path / "runs"
    exact = {**tiny_cfg, "max_steps": 3, "bf16": False, "logging_steps": 1, "sample_steps": 3}
    with serve(runs, tmp_path / "app.log") as (proc, client):
        two = client.predict({**exact, "num_processes": 2, "per_device_train_batch_size": 2},
                             api_name="/start_run")["run_id"]
        snap = wait_for(lambda: _finished(client, two), timeout=HANG)
        assert snap["state"] == "done", snap["error"]
        assert "on 2 processes" in (runs / two / "train.log").read_text()
        assert (runs / two / "model" / "model.safetensors").exists()
        # Samples from the main process only: one answer per prompt and step.
        pairs = [(s["step"], s["prompt"]) for s in snap["samples"]]
        assert pairs and len(pairs) == len(set(pairs))
        assert {s for s, _ in pairs} == {0, 3}
        assert not _trainers(runs / two)

        one = client.predict({**exact, "num_processes": 1, "per_device_train_batch_size": 4},
                             api_name="/start_run")["run_id"]
        alone = wait_for(lambda: _finished(client, one), timeout=HANG)
        assert alone["state"] == "done", alone["error"]
        assert [s for s, _ in _losses(snap)] == [s for s, _ in _losses(alone)] == [1, 2, 3]
        for (_, a), (_, b) in zip(_losses(snap), _losses(alone)):
            assert abs(a - b) < 1e-3, (_losses(snap), _losses(alone))


def test_stop_resume_and_kill_leave_no_process_behind(tmp_path, tiny_cfg):
    runs, log = tmp_path / "runs", tmp_path / "app.log"
    long = {**tiny_cfg, "max_steps": 5000, "sample_steps": 0, "num_processes": 2}
    with serve(runs, log) as (proc, client):
        run_id = client.predict(long, api_name="/start_run")["run_id"]
        _waited(lambda: client.predict(run_id, api_name="/run_status")["step"] >= 2,
                runs, log, run_id)
        assert len(_trainers(runs / run_id)) >= 3  # the launcher and its 2 processes
        assert client.predict(run_id, api_name="/stop_run")["state"] == "stopping"
        stopped = _waited(lambda: _finished(client, run_id), runs, log, run_id)
        assert stopped["state"] == "stopped", stopped["error"]
        checkpoint = latest_checkpoint(runs / run_id)
        assert checkpoint and int(checkpoint.name.split("-")[-1]) == stopped["step"]
        _waited(lambda: not _trainers(runs / run_id), runs, log, run_id)

        # Resume continues the same series from the checkpoint, on 2 processes again.
        assert client.predict(run_id, api_name="/resume_run") == {"run_id": run_id}
        _waited(lambda: client.predict(run_id, api_name="/run_status")["step"]
                >= stopped["step"] + 2, runs, log, run_id)
        os.killpg(proc.pid, signal.SIGKILL)  # the app dies mid-run, with no chance to clean up
    # Its launcher gets SIGTERM and ends its processes; each process also watches the app.
    _waited(lambda: not _trainers(runs / run_id), runs, log, run_id, interval=0.5)
    with serve(runs, log) as (proc, client):
        after = client.predict(run_id, api_name="/run_status")
        assert after["state"] == "failed"
        steps = [s for s, _ in _losses(after)]
        assert steps == list(range(1, len(steps) + 1)) and len(steps) > stopped["step"]


def test_the_events_carry_a_run_between_processes(tmp_path):
    import io
    out = io.StringIO()
    sink = EventSink(tmp_path, out)
    sink.progress(1, 3)
    sink.fitted(3)
    sink.add_metrics({"step": 1, "loss": 2.5})
    sink.add_samples([{"step": 1, "prompt": "p", "completion": "c"}])
    assert not sink.stop_requested()
    (tmp_path / "stop-requested").touch()
    assert sink.stop_requested()

    class Collect:
        def __init__(self):
            self.calls = []

        def progress(self, step, max_steps):
            self.calls.append(("progress", step, max_steps))

        def fitted(self, steps):
            self.calls.append(("fitted", steps))

        def add_metrics(self, record):
            self.calls.append(("metrics", record))

        def add_samples(self, rows):
            self.calls.append(("samples", rows))

    got = Collect()
    lines = ["plain output\n", *("2026-11-23T10:00:00Z " + line for line in
                                 out.getvalue().splitlines())]  # as a job's log shows them
    for line in lines:
        event = read_event(line)
        if event:
            deliver(event, got)
    assert read_event(lines[0]) is None
    assert got.calls == [("progress", 1, 3), ("fitted", 3), ("metrics", {"step": 1, "loss": 2.5}),
                         ("samples", [{"step": 1, "prompt": "p", "completion": "c"}])]


def test_processes_and_strategy_are_checked_for_the_machine(tmp_path):
    cpu = Hardware("cpu", "CPU", 1, False, 8 << 30, 2)
    gpus = Hardware("cuda", "H100", 4, True, 80 << 30, 16)
    assert not unsupported(RunConfig(num_processes=2), cpu)  # gloo processes on a CPU
    assert any("fsdp strategy" in p for p in unsupported(
        RunConfig(num_processes=2, distributed="fsdp"), cpu))
    assert not unsupported(RunConfig(distributed="fsdp"), gpus)  # auto: the 4 GPUs
    assert any("more than the 4 GPU" in p for p in unsupported(RunConfig(num_processes=8),
                                                               gpus))
    assert RunConfig.from_dict({"num_processes": "auto"}).num_processes is None
    assert RunConfig(num_processes=3, per_device_train_batch_size=2,
                     gradient_accumulation_steps=2).effective_batch(3) == 12
    ddp = launch_command(tmp_path, 2, "ddp")
    assert ddp[ddp.index("--num_processes") + 1] == "2" and "--multi_gpu" in ddp
    assert ddp[-2:] == ["--run-dir", str(tmp_path)]
    fsdp = launch_command(tmp_path, 4, "fsdp", tmp_path / "checkpoint-5")
    assert "--use_fsdp" in fsdp and fsdp[-1] == str(tmp_path / "checkpoint-5")


def test_a_two_process_run_from_the_page(browser, live_app, tiny_cfg):
    from playwright.sync_api import expect

    from tests.conftest import field, set_field
    url, manager = live_app
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.set_default_timeout(HANG_MS)
    page.goto(url)
    set_field(page, "Model", tiny_cfg["model_name_or_path"])
    for label, value in (("Max steps", 3), ("Batch size per device", 2),
                         ("Gradient accumulation steps", 2), ("Max length (tokens)", 64),
                         ("Sample every N steps", 0)):
        set_field(page, label, value)
    processes = field(page, "Processes").first
    processes.fill("2")
    processes.press("Enter")
    # The effective batch counts the processes: 2 x 2 x 2.
    expect(page.locator("#effective-batch")).to_contain_text("Effective batch: 8")
    page.get_by_role("button", name="Start").click()
    run = wait_for(lambda: manager.active(), timeout=HANG)
    wait_for(lambda: run.state in ("done", "failed", "stopped"), timeout=HANG)
    assert run.state == "done", run.error
    assert run.config.num_processes == 2
    assert "effective batch 8 on 2 processes" in (run.dir / "train.log").read_text()
    expect(page.locator("#run-status")).to_contain_text("done", timeout=HANG_MS)
    page.close()


def test_a_process_that_dies_fails_the_run_with_its_last_lines(tmp_path, tiny_cfg):
    runs = tmp_path / "runs"
    with serve(runs, tmp_path / "app.log") as (proc, client):
        run_id = client.predict({**tiny_cfg, "max_steps": 5000, "sample_steps": 0,
                                 "num_processes": 2}, api_name="/start_run")["run_id"]
        wait_for(lambda: client.predict(run_id, api_name="/run_status")["step"] >= 2,
                 timeout=HANG)
        workers = [p for p in _trainers(runs / run_id)
                   if "accelerate.commands.launch" not in " ".join(p.cmdline())]
        assert len(workers) == 2
        workers[1].kill()  # one process dies mid-run
        failed = wait_for(lambda: _finished(client, run_id), timeout=HANG)
        assert failed["state"] == "failed"
        assert "A training process ended with exit status" in failed["error"]
        assert "Its last lines:" in failed["error"] and len(failed["error"]) > 200
        wait_for(lambda: not _trainers(runs / run_id), timeout=HANG, interval=0.5)
        assert client.predict(api_name="/list_runs")  # the app goes on


def test_the_plan_counts_the_processes_and_says_which_strategy():
    from sft_ui.plan.planner import plan
    gpus = Hardware("cuda", "A10G", 4, True, 24 << 30, 16)
    small = plan(RunConfig(per_device_train_batch_size=2, gradient_accumulation_steps=2),
                 gpus, available=24 << 30)
    assert small["processes"] == 4 and small["effective_batch"] == 16
    assert small["strategy"]["choice"] == "ddp"
    big = plan(RunConfig(model_name_or_path="Qwen/Qwen2.5-1.5B-Instruct", max_length=512,
                         per_device_train_batch_size=1, num_processes=4), gpus,
               available=24 << 30)
    assert big["strategy"]["choice"] == "fsdp"
    assert big["strategy"]["fsdp_bytes"] < 24 << 30 < big["strategy"]["ddp_bytes"]
    assert plan(RunConfig(num_processes=1), gpus, available=24 << 30)["strategy"] is None
