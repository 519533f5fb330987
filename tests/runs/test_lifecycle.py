"""Runs across their whole life: a killed app comes back and resumes, two simultaneous
starts make one run (on a manager and through the API), a stop as the run ends or while it
is queued holds, rename and delete through the API, and the Runs tab in a real browser."""
import os
import shutil
import signal
import threading
import time

import pytest
from gradio_client import Client

from sft_ui.runs import RunManager, latest_checkpoint
from tests.conftest import HANG, HANG_MS, serve, wait_for


def fake_train(cfg, run_dir, sink, resume_from=None):
    """Logs a falling loss each step; stops when asked, like the real engine."""
    for step in range(1, cfg.max_steps + 1):
        if sink.stop_requested():
            break
        sink.progress(step, cfg.max_steps)
        sink.add_metrics({"step": step, "loss": 2.0 / step})
        time.sleep(0.01)
    (run_dir / "model").mkdir(exist_ok=True)
    return run_dir / "model"


def _finished(snap_of, run_id):
    snap = snap_of(run_id)
    return snap if snap["state"] in ("done", "stopped", "failed") else None


def _done_run(manager, steps=3):
    run_id = manager.start({"max_steps": steps, "sample_steps": 0})
    wait_for(lambda: _finished(lambda r: manager.get(r).snapshot(), run_id), timeout=HANG)
    return run_id


# ---- restart after a crash ---------------------------------------------------------
@pytest.mark.parametrize("stage", [
    {"max_steps": 30},
    {"max_steps": 12, "stage": "dpo", "dataset_name": "demo-preference", "use_peft": True},
    {"max_steps": 10, "stage": "grpo", "dataset_name": "demo-grpo", "use_peft": True,
     "num_generations": 2, "max_completion_length": 6, "rewards": ["json_answer"]}],
    ids=["sft", "dpo", "grpo"])
def test_a_killed_app_shows_the_run_failed_and_resumes_it(tmp_path, tiny_cfg, stage):
    runs, log = tmp_path / "runs", tmp_path / "app.log"
    cfg = {**tiny_cfg, "save_steps": 1, "sample_steps": 5, **stage}
    last = cfg["max_steps"]
    try:
        with serve(runs, log) as (proc, client):
            run_id = client.predict(cfg, api_name="/start_run")["run_id"]
            client.predict(run_id, "before the crash", api_name="/rename_run")
            wait_for(lambda: latest_checkpoint(runs / run_id), timeout=HANG, interval=0.05)
            before = client.predict(run_id, api_name="/run_status")
            os.killpg(proc.pid, signal.SIGKILL)  # no chance to write anything more
        assert before["state"] == "running" and before["step"] < last, before["state"]

        with serve(runs, log) as (proc, client):
            listed = {r["run_id"]: r for r in client.predict(api_name="/list_runs")}
            assert listed[run_id]["state"] == "failed"
            assert listed[run_id]["name"] == "before the crash"
            assert listed[run_id]["config"] == before["config"]
            after = client.predict(run_id, api_name="/run_status")
            assert "stopped while this run was training" in after["error"]
            assert after["elapsed_seconds"] == listed[run_id]["elapsed_seconds"]  # not ticking
            # Everything written before the kill is still there.
            assert after["metrics"][:len(before["metrics"])] == before["metrics"]
            assert after["samples"][:len(before["samples"])] == before["samples"]
            assert before["samples"] and [m for m in before["metrics"] if "loss" in m]

            checkpoint = int(latest_checkpoint(runs / run_id).name.split("-")[-1])
            assert client.predict(run_id, api_name="/resume_run") == {"run_id": run_id}
            done = wait_for(lambda: _finished(
                lambda r: client.predict(r, api_name="/run_status"), run_id), timeout=HANG)
            assert done["state"] == "done" and done["step"] == last, done["error"]
            losses = [m for m in done["metrics"] if "loss" in m]
            assert [m["step"] for m in losses] == list(range(1, last + 1))  # no gaps
            kept = [m for m in before["metrics"] if "loss" in m and m["step"] <= checkpoint]
            assert losses[:len(kept)] == kept
    finally:
        shutil.rmtree(runs, ignore_errors=True)  # a checkpoint every step adds up


# ---- one run at a time, even when starts race -------------------------------------
def race(calls):
    """Run the calls in threads released at the same moment: (results, error texts)."""
    barrier, results, errors = threading.Barrier(len(calls)), [], []

    def one(call):
        barrier.wait()
        try:
            results.append(call())
        except Exception as e:
            errors.append(str(e))
    threads = [threading.Thread(target=one, args=(call,)) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=HANG)
    return results, errors


def test_simultaneous_starts_make_exactly_one_run(tmp_path):
    root = tmp_path / "runs"
    # A slow preflight (it runs before the lock) lets all four pass the first idle check.
    manager = RunManager(root, trainer=fake_train, preflight=lambda cfg: time.sleep(0.5))
    ids, errors = race([lambda: manager.start({"max_steps": 100000, "sample_steps": 0})] * 4)
    assert len(ids) == 1 and len(errors) == 3, (ids, errors)
    assert all("still training" in e for e in errors)
    assert [p.name for p in root.iterdir()] == ids
    manager.stop(ids[0])
    wait_for(lambda: _finished(lambda r: manager.get(r).snapshot(), ids[0]), timeout=HANG)


def test_a_stop_as_the_run_ends_leaves_it_stopped(tmp_path, monkeypatch):
    """The trainer returns the moment it sees the stop: the run must end, not stay
    'stopping' (which would look active forever and refuse every later start)."""
    def quick_train(cfg, run_dir, sink, resume_from=None):
        while not sink.stop_requested():
            time.sleep(0.005)
        return run_dir
    manager = RunManager(tmp_path / "runs", trainer=quick_train, preflight=lambda cfg: None)
    run = manager.get(manager.start({"sample_steps": 0}))
    wait_for(lambda: run.state == "running", timeout=HANG)
    set_stop = run._stop.set

    def set_then_let_the_run_end():  # widen the gap between the flag and the new state
        set_stop()
        end = time.time() + 1
        while run.state != "stopped" and time.time() < end:
            time.sleep(0.01)
    monkeypatch.setattr(run._stop, "set", set_then_let_the_run_end)
    manager.stop(run.id)
    assert wait_for(lambda: _finished(lambda r: manager.get(r).snapshot(), run.id),
                    timeout=HANG)["state"] == "stopped"
    again = manager.start({"sample_steps": 0})  # not blocked by a run stuck in "stopping"
    manager.stop(again)
    wait_for(lambda: _finished(lambda r: manager.get(r).snapshot(), again))


def test_a_stop_pressed_while_queued_is_not_undone_when_the_run_starts(tmp_path):
    """Stop on a run that waits for its thread: when the thread then says "running" (and
    each phase after), the run stays "stopping" until it ends."""
    from sft_ui.config import RunConfig
    from sft_ui.i18n.message import Message
    from sft_ui.runs.run import create_run
    run = create_run(tmp_path / "runs", RunConfig())
    assert run.state == "queued"
    run.request_stop()
    run.set_state("running", Message("Loading the model and the data..."))
    assert run.state == "stopping" and run.message == "Stopping after the current step..."
    run.set_state("stopped", Message("Stopped at step {step}.", step=0))
    assert run.state == "stopped"


@pytest.fixture(scope="module")
def client(live_app):
    c = Client(live_app[0], verbose=False)
    yield c
    c.close()


def test_simultaneous_starts_through_the_api(client, live_app, tiny_cfg, connect):
    root = live_app[1].root
    folders = set(root.iterdir())
    cfg = {**tiny_cfg, "max_steps": 5000, "sample_steps": 0}
    clients = [connect(live_app[0]) for _ in range(2)]
    ids, errors = race([lambda c=c: c.predict(cfg, api_name="/start_run")["run_id"]
                        for c in clients])
    assert len(ids) == 1 and len(errors) == 1, (ids, errors)
    assert "still training" in errors[0]
    assert {p.name for p in set(root.iterdir()) - folders} == set(ids)
    client.predict(ids[0], api_name="/stop_run")
    wait_for(lambda: _finished(lambda r: client.predict(r, api_name="/run_status"), ids[0]))


def test_rename_and_delete_through_the_api(client, live_app):
    manager = live_app[1]
    run_id = _done_run(RunManager(manager.root, trainer=fake_train,
                                  preflight=lambda cfg: None))
    renamed = client.predict(run_id, "../../outside\x00", api_name="/rename_run")
    assert renamed["name"] == "../../outside" and renamed["run_id"] == run_id
    listed = {r["run_id"]: r["name"] for r in client.predict(api_name="/list_runs")}
    assert listed[run_id] == "../../outside"
    with pytest.raises(Exception, match="Type a name"):
        client.predict(run_id, "  ", api_name="/rename_run")
    with pytest.raises(Exception, match="No run with id"):
        client.predict("../etc", api_name="/delete_run")
    assert client.predict(run_id, api_name="/delete_run") == {"deleted": run_id}
    assert not (manager.root / run_id).exists()
    with pytest.raises(Exception, match="No run with id"):
        client.predict(run_id, api_name="/run_status")


# ---- the Runs tab in a real browser -----------------------------------------------
def test_runs_tab_in_a_browser(live_app, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from tests.conftest import ARGS, CHROMIUM
    url, manager = live_app
    helper = RunManager(manager.root, trainer=fake_train, preflight=lambda cfg: None)
    first, second = _done_run(helper, steps=5), _done_run(helper, steps=3)
    helper.rename(first, "alpha")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.set_default_timeout(HANG_MS)
            page.goto(url)
            page.get_by_role("tab", name="Runs").click()
            table = page.locator("#runs-table")
            expect(table).to_contain_text("alpha")
            expect(table).to_contain_text(second)

            # Lists name a run by its name and date, or (never renamed) its model and data.
            labels = {r["run_id"]: r["label"] for r in manager.history()}
            assert labels[first].startswith("alpha · ") and second not in labels[second]
            for label in (labels[first], labels[second]):
                page.get_by_label("Compare loss curves").click()
                page.locator("#runs-compare").get_by_role("option", name=label).click()
            page.keyboard.press("Escape")
            lines = page.locator("#runs-plot g.mark-line path")
            expect(lines).to_have_count(2)  # one line a run, in two colours
            expect(page.locator("#runs-plot")).to_contain_text(second)
            page.screenshot(path=str(tmp_path / "runs.png"), full_page=True)

            page.get_by_label("Run to rename or delete").click()
            page.locator("#runs-target").get_by_role("option", name=labels[second]).click()
            page.get_by_label("New name").fill("beta <b>bold</b>")
            page.locator("#runs-rename").click()
            expect(page.locator("#runs-notice")).to_contain_text("is now called")
            expect(table).to_contain_text("beta <b>bold</b>")
            expect(page.locator("#runs-plot")).to_contain_text("beta <b>bold</b>")
            expect(lines).to_have_count(2)

            page.locator("#runs-delete").click()
            expect(page.locator("#runs-notice")).to_contain_text("cannot be undone")
            assert (manager.root / second).exists()  # nothing deleted before the confirmation
            page.locator("#runs-delete-confirm").click()
            expect(page.locator("#runs-notice")).to_contain_text(f"Deleted run {second}")
            expect(table).not_to_contain_text(second)
            assert not (manager.root / second).exists() and (manager.root / first).exists()
            expect(page.locator("#runs-delete-confirm")).to_be_hidden()
        finally:
            browser.close()
