"""Runs on Hugging Face Jobs (backends/jobs.py) against the stand-in of tests/backends/
conftest.py (HfApi itself, whose job calls really run the submitted command on this
machine), so what the app parses is the studio's real job output: a job followed to its
end and its model brought back, a failed job's last lines, no resume here, a sweep's
trials on jobs, what jobs need, and the page following a job that Stop cancels."""
import filecmp
import json
import os
import re
from pathlib import Path

import pytest

from sft_ui.backends.jobs import JobError, flavors, known_flavors, train_on_jobs
from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.errors import UserError
from sft_ui.models import hub_reachable
from sft_ui.runs import Run, RunManager, create_run
from tests.backends.conftest import REPO, TOKEN
from tests.conftest import HANG, HANG_MS, wait_for


def _job_cfg(tmp_path, **extra):
    data = tmp_path / "chat.jsonl"
    data.write_text("".join(json.dumps({"messages": [
        {"role": "user", "content": f"Say {w}."}, {"role": "assistant", "content": w}]}) + "\n"
        for w in ("red", "green", "blue", "amber")))
    return {"model_name_or_path": DEFAULT_MODEL_ID, "dataset_name": str(data),
            "max_steps": 3, "per_device_train_batch_size": 1, "gradient_accumulation_steps": 1,
            "max_length": 32, "sample_steps": 3, "sample_max_new_tokens": 4,
            "logging_steps": 1, "run_on": "hf_jobs", "jobs_flavor": "t4-small",
            "hub_model_id": REPO, **extra}


def _token_anywhere(*folders) -> list[str]:
    found = []
    for folder in folders:
        for path in Path(folder).rglob("*"):
            if path.is_file() and TOKEN.encode() in path.read_bytes():
                found.append(str(path))
    return found


def test_a_job_is_followed_to_its_end_and_its_model_comes_back(tmp_path, hub):
    # The repo exists already, with a model card: the job fetches only the studio's folder.
    (hub.fake.hub / REPO).mkdir(parents=True)
    (hub.fake.hub / REPO / "README.md").write_text("# My model\n")
    manager = RunManager(tmp_path / "runs", hub=hub)
    run_id = manager.start(_job_cfg(tmp_path), token=TOKEN)
    run = manager.get(run_id)
    wait_for(lambda: run.state not in ("queued", "running"), timeout=HANG, interval=0.5)
    assert run.state == "done", (run.error, run.message)
    # The job's own trainer output, parsed from its logs, is the run's record here.
    assert [m["step"] for m in run.metrics if "loss" in m] == [1, 2, 3]
    assert run.step == 3 and {s["step"] for s in run.samples} == {0, 3}
    assert [json.loads(line)["step"] for line in
            (run.dir / "metrics.jsonl").read_text().splitlines()][:3] == [1, 2, 3]
    # The job pushed the model (to the root and to the run's own folder) and the run's
    # records; the app brought the model back from the run's folder.
    pushed, own = hub.fake.hub / REPO, hub.fake.hub / REPO / ".studio" / run.id
    assert (pushed / "model.safetensors").exists() and (own / "run" / "metrics.jsonl").exists()
    assert (own / "model" / "model.safetensors").exists()
    assert (own / "data" / "chat.jsonl").exists()
    assert (Path(run.model_dir) / "model.safetensors").exists()
    # The repo is created private, before anything is uploaded to it.
    calls = [c[0] for c in hub.mock_calls]
    assert "create_repo" in calls and calls.index("create_repo") < calls.index("upload_folder")
    create = hub.create_repo.call_args
    assert (create.args or [create.kwargs.get("repo_id")])[0] == REPO
    assert create.kwargs["private"] is True and create.kwargs["token"] == TOKEN
    # What travels is what job.sh's --include and follow's ignore_patterns let through:
    # the job fetched the studio's folder alone, pushed only the run's records beside the
    # model, and the model came back without the studio's code or the records.
    assert os.listdir(hub.fake.root / "job1" / "work") == [".studio"]
    records = sorted(p.relative_to(own / "run").as_posix()
                     for p in (own / "run").rglob("*") if p.is_file())
    assert {"metrics.jsonl", "config.yaml"} <= set(records)
    assert all(r.endswith(".jsonl") or r in ("config.yaml", "train.log") for r in records), \
        records
    brought = {p.relative_to(run.model_dir).parts[0] for p in Path(run.model_dir).rglob("*")}
    assert "model.safetensors" in brought and "tokenizer.json" in brought
    assert not brought & {".studio", "run"}, brought
    assert not (run.dir / "fetched").exists()  # the download's own folder, moved and gone
    from sft_ui.chat import ChatService
    assert ChatService(manager).model_path(run_id) == Path(run.model_dir)
    # The token went to the job as a secret, and nowhere else.
    assert hub.fake.secrets == [{"HF_TOKEN": TOKEN}]
    job = hub.run_job.call_args.kwargs
    assert TOKEN not in json.dumps(job["command"]) and job["flavor"] == "t4-small"
    assert not _token_anywhere(tmp_path / "runs", hub.fake.root)


def test_a_failed_job_shows_its_last_lines_in_the_runs_error(tmp_path, hub):
    """A job whose training fails ends in ERROR: the run failed, and its error carries the
    job's last lines, the trainer's own reason among them."""
    data = tmp_path / "numbers.jsonl"  # rows that are no format the studio trains on
    data.write_text("".join(json.dumps({"n": n}) + "\n" for n in (1, 2, 3)))
    manager = RunManager(tmp_path / "runs", hub=hub)
    run_id = manager.start(_job_cfg(tmp_path, dataset_name=str(data)), token=TOKEN)
    run = manager.get(run_id)
    wait_for(lambda: run.state not in ("queued", "running"), timeout=HANG, interval=0.5)
    assert hub.inspect_job(job_id="job1").status.stage == "ERROR"
    assert run.state == "failed", (run.state, run.message)
    assert "The job job1 ended with ERROR. Its last lines:" in run.error
    assert re.search(r"Run \S+ failed: numbers.jsonl line 1 matches no known format",
                     run.error), run.error
    assert "@sft_ui" not in run.error  # the events went to the run, not into its error
    assert TOKEN not in run.error and not _token_anywhere(tmp_path / "runs")
    assert Run.load(run.dir).error == run.error  # kept in the run folder too


def test_a_jobs_run_is_not_resumed_here(tmp_path, hub):
    """A job's checkpoints stay in the job: its trainer refuses to resume, before any job
    is sent."""
    cfg = RunConfig.from_dict(_job_cfg(tmp_path))
    train = train_on_jobs(TOKEN, hub)
    with pytest.raises(JobError, match="Hugging Face Jobs cannot be resumed: start it again"):
        train(cfg, tmp_path / "run", None, resume_from=tmp_path / "run" / "checkpoint-2")
    assert not hub.create_repo.called and not hub.run_job.called


def test_resuming_a_jobs_run_says_why_not(tmp_path, hub):
    """Resume on a failed (or stopped) Jobs run says it trained on Hugging Face Jobs."""
    run = create_run(tmp_path / "runs", RunConfig.from_dict(_job_cfg(tmp_path)))
    run.set_state("failed", "", "The job job1 ended with ERROR.")
    manager = RunManager(tmp_path / "runs", hub=hub)
    with pytest.raises(UserError, match="Hugging Face Jobs: a job cannot be resumed"):
        manager.resume(run.id)
    assert manager.get(run.id).state == "failed" and not hub.run_job.called


def test_a_sweeps_trials_run_on_jobs_several_at_once_and_fill_one_table(tmp_path, hub):
    from sft_ui.runs.run_queue import RunQueue
    from sft_ui.sweeps import Scorer, Sweeps, SweepSpec
    data = tmp_path / "colours.jsonl"
    data.write_text("".join(json.dumps({"messages": [
        {"role": "user", "content": f"Say {w} {n}."}, {"role": "assistant", "content": w}]})
        + "\n" for n in range(5) for w in ("red", "green", "blue", "amber")))
    manager = RunManager(tmp_path / "runs", hub=hub)
    sweeps = Sweeps(RunQueue(manager), manager, Scorer())
    spec = SweepSpec(base=_job_cfg(tmp_path, dataset_name=str(data), sample_steps=0,
                                   max_length=128),
                     vary={"learning_rate": [1e-5, 1e-3]}, at_once=2, budget_minutes=20)
    try:
        sweep = sweeps.start(spec, token=TOKEN)
        assert sweeps.wait(sweep, HANG)
        snap = sweep.snapshot()
        assert snap["state"] == "done", snap["error"]
        runs = [manager.get(t["run_id"]) for t in snap["trials"]]
        assert [r.state for r in runs] == ["done", "done"], [r.error for r in runs]
        # both jobs were submitted before either ended: they trained at once
        assert hub.run_job.call_count == 2
        first, second = sorted(runs, key=lambda r: r.created)
        assert second.created < first.finished
        # each judged on the eval loss its job logged for its saved model (3 steps)
        for t, run in zip(snap["trials"], runs):
            evals = [(m["step"], m["eval_loss"]) for m in run.metrics if "eval_loss" in m]
            assert evals[-1] == (3, t["score"])
        assert snap["best"]["score"] == min(t["score"] for t in snap["trials"])
        # Each job trained its own trial's settings, from its own folder in the shared repo,
        # and its own model came back.
        studio = hub.fake.hub / REPO / ".studio"
        for t, run in zip(snap["trials"], runs):
            trained = RunConfig.from_yaml(studio / run.id / "run" / "config.yaml")
            assert trained.learning_rate == t["params"]["learning_rate"]
            assert filecmp.cmp(Path(run.model_dir) / "adapter_model.safetensors",
                               studio / run.id / "model" / "adapter_model.safetensors",
                               shallow=False)
        assert not filecmp.cmp(*(Path(run.model_dir) / "adapter_model.safetensors"
                                 for run in runs), shallow=False)
        assert not _token_anywhere(tmp_path / "runs", hub.fake.root)
    finally:
        sweeps.close()
        manager.close()


def test_jobs_need_a_repo_a_token_and_the_internet(tmp_path, hub):
    manager = RunManager(tmp_path / "runs", hub=hub)
    with pytest.raises(JobError, match="hub_model_id"):
        manager.start(_job_cfg(tmp_path, hub_model_id=""), token=TOKEN)
    with pytest.raises(JobError, match="needs a token"):
        manager.start(_job_cfg(tmp_path), token="  ")
    with pytest.raises(JobError, match="folder on this machine"):
        manager.start(_job_cfg(tmp_path, model_name_or_path=str(tmp_path)), token=TOKEN)
    with pytest.raises(JobError, match="not one Hugging Face Jobs offers"):
        manager.start(_job_cfg(tmp_path, jobs_flavor="a-supercomputer"), token=TOKEN)
    assert not hub.run_job.called and not list((tmp_path / "runs").iterdir())
    assert "a10g-small" in known_flavors() and flavors(hub) == known_flavors()
    # Without internet, the real HfApi says so at Start (online, it would ask the Hub).
    if hub_reachable(timeout=3):
        pytest.skip("huggingface.co is reachable from this machine: the offline message "
                    "cannot be seen here")
    offline = RunManager(tmp_path / "runs")
    with pytest.raises(JobError, match="this machine is offline"):
        offline.start(_job_cfg(tmp_path), token=TOKEN)


def test_the_page_follows_a_job_and_stop_cancels_it(tmp_path, hub, browser):
    """Run on Hugging Face Jobs from the page: the token typed in its box, the live view
    following the job's steps, Stop cancelling it."""
    from playwright.sync_api import expect

    from sft_ui.ui import build_app
    from tests.conftest import field, free_port, set_field
    manager = RunManager(tmp_path / "runs", hub=hub)
    app = build_app(manager)
    port = free_port()
    app.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                       quiet=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1600})
    page.set_default_timeout(HANG_MS)
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        cfg = _job_cfg(tmp_path, max_steps=500, sample_steps=0)
        set_field(page, "Dataset", cfg["dataset_name"])
        for label, value in (("Max steps", 500), ("Batch size per device", 1),
                             ("Gradient accumulation steps", 1), ("Max length (tokens)", 32),
                             ("Sample every N steps", 0), ("Hub repo for the model", REPO)):
            set_field(page, label, value)
        for label, value in (("Run on", "hf_jobs"), ("Jobs hardware", "t4-small")):
            box = field(page, label).first
            box.click()  # the option clicked, and the box showing it, before Start
            box.fill(value)
            page.get_by_role("option", name=value, exact=True).click()
            expect(box).to_have_value(value)
        field(page, "Hugging Face token").first.fill(TOKEN)
        page.get_by_role("button", name="Start").click()
        run = wait_for(lambda: manager.active(), timeout=HANG)
        assert run.config.run_on == "hf_jobs", run.config.to_dict()  # not trained here
        expect(page.locator("#run-status")).to_contain_text("Hugging Face Jobs",
                                                             timeout=HANG_MS)
        wait_for(lambda: run.step >= 2, timeout=HANG, interval=0.5)
        expect(page.locator("#loss-plot")).to_contain_text("loss", timeout=HANG_MS)
        page.get_by_role("button", name="Stop").click()
        expect(page.locator("#run-status")).to_contain_text("stopped", timeout=HANG_MS)
        assert run.config.run_on == "hf_jobs" and run.state == "stopped"
        assert hub.cancel_job.call_args.kwargs["job_id"] == "job1"
        assert hub.fake.procs["job1"].poll() is not None  # the job's process ended
        assert hub.fake.secrets == [{"HF_TOKEN": TOKEN}]
        assert not _token_anywhere(tmp_path / "runs", hub.fake.root)
    finally:
        page.close()
        app.close()
