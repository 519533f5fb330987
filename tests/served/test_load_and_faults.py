"""Reliability under load and faults: many clients polling while starts race during a run
of the app in its own process, a full disk while saving a checkpoint, a checkpoint cut
short; and two refusals said as they should be (the shared server's path check, the plan's
refusal said once)."""
from __future__ import annotations

import errno
import os
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from gradio_client import Client

from sft_ui.runs import RunManager, is_complete, latest_checkpoint
from tests.conftest import HANG, serve, wait_for
from tests.served.test_reliability import FINAL, _hashes, assert_readable


@pytest.mark.parametrize("value", ["/data\x00.jsonl", "rows\x00.jsonl", "m" * 300,
                                   "/" + "m" * 300, ["a list"], 42])
def test_the_shared_server_path_check_takes_any_setting(tmp_path, value):
    """With logins on, local paths in the settings are checked before anything else:
    that check says yes or refuses with its message, whatever it is given."""
    from sft_ui.access import Access, AccessError, Who
    access = Access(users={"ann": "pw"})
    try:
        access.check_config(tmp_path, Who("session", "ann"), {"dataset_name": value})
    except AccessError as e:
        assert_readable(str(e), r"on a shared server files come from your own uploads")


def test_a_refusal_the_plan_shows_is_said_once(tmp_path):
    """max_length far too long: the plan line says it; Start says it again in its notice,
    and the plan line steps aside (one error, said once). Start's own handler, called as
    the page calls it (a browser's late re-plan could race the check)."""
    from sft_ui.access import Access
    from sft_ui.actions import Actions
    from sft_ui.config import RunConfig
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app
    from sft_ui.ui.plan_panel import show_plan
    from sft_ui.ui.widgets import widget_value
    manager = RunManager(tmp_path / "runs")
    app = build_app(manager)
    start = next(f for f in app.fns.values() if f.api_name == "ui_start")
    names = [c.elem_id[4:] for c in start.inputs[2:]]
    cfg = RunConfig(max_length=10**12)
    values = [widget_value(n, getattr(cfg, n)) for n in names]
    _, line = show_plan(Actions(manager, Access.from_env()), None, dict(zip(names, values)))
    assert "must be at most 131072" in line
    _, notice, _, plan_line = start.fn(None, "", line, *values)
    assert "Cannot start" in notice and "must be at most 131072" in notice
    assert plan_line == ""  # said once, by Start
    _, _, _, kept = start.fn(None, "", "**Plan:** something else", *values)
    assert not isinstance(kept, str)  # a plan line that says something else stays


# ---- load: many pollers, racing starts, one run ---------------------------------
POLLERS, STARTERS, POLL_EVERY, LOAD_SECONDS = 20, 3, 1.0, 8.0  # the page polls each second


def test_polls_and_racing_starts_while_a_run_trains(tmp_path, tiny_cfg):
    """The app in its own process on loopback: 20 clients poll the run's status and the
    run list over plain HTTP (as a page or a dashboard does; gradio_client itself costs
    some 55 ms of the caller's CPU a call, which would measure the test, not the app)
    while 3 others race to start runs and keep trying while one trains."""
    import httpx
    runs = tmp_path / "runs"
    cfg = {**tiny_cfg, "max_steps": 100_000, "sample_steps": 0, "logging_steps": 5}
    with serve(runs, tmp_path / "app.log") as (proc, watcher):
        with ThreadPoolExecutor(8) as pool:
            clients = list(pool.map(lambda _: Client(watcher.src, verbose=False),
                                    range(STARTERS)))
        http = httpx.Client(base_url=watcher.src, timeout=HANG,
                            limits=httpx.Limits(max_connections=POLLERS))

        def call(api_name, *args):
            answer = http.post(f"gradio_api/run/{api_name}", json={"data": list(args)})
            assert answer.status_code == 200, answer.text[:200]
            return answer.json()["data"][0]
        barrier = threading.Barrier(POLLERS + STARTERS + 1)
        done, lock = threading.Event(), threading.Lock()
        started, refused, latencies, failures = [], [], [], []

        def poll(n):
            barrier.wait()
            while not done.is_set():
                run_id = started[0] if started else None
                begin = time.perf_counter()
                try:
                    if run_id and n % 2:
                        assert call("run_status", run_id)["run_id"] == run_id
                    else:
                        assert isinstance(call("list_runs"), list)
                except Exception as e:  # every poll must be answered
                    failures.append(f"{type(e).__name__}: {e}")
                else:
                    with lock:
                        latencies.append(time.perf_counter() - begin)
                time.sleep(POLL_EVERY)

        def start(c):
            barrier.wait()
            while not done.is_set():
                try:
                    started.append(c.predict(cfg, api_name="/start_run")["run_id"])
                except Exception as e:
                    refused.append(str(e))
                time.sleep(1.0)

        threads = [threading.Thread(target=poll, args=(n,)) for n in range(POLLERS)]
        threads += [threading.Thread(target=start, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        barrier.wait()
        try:
            status = lambda: watcher.predict(started[0], api_name="/run_status")  # noqa: E731
            first = wait_for(lambda: started and status()["step"] >= 1 and status(),
                             timeout=HANG)
            time.sleep(LOAD_SECONDS)  # polls and refused starts while the run trains
            last = status()
            assert last["state"] == "running" and last["step"] > first["step"]
        finally:
            done.set()
            for t in threads:
                t.join(timeout=HANG)
            for c in clients:
                c.close()
        alone = []  # for comparison: one client polling the same training run
        for _ in range(10):
            begin = time.perf_counter()
            call("run_status", started[0])
            alone.append(time.perf_counter() - begin)
        http.close()
        watcher.predict(started[0], api_name="/stop_run")
        assert len(started) == 1, started
        assert len(refused) >= 2 * STARTERS - 1  # the race, then a retry each or more
        assert all("is still training" in r for r in refused), refused[:3]
        assert os.listdir(runs) == started
        assert failures == [], failures[:3]
        assert not [t for t in threads if t.is_alive()]
        p95 = statistics.quantiles(latencies, n=20)[-1]
        print(f"\n{len(latencies)} polls by {POLLERS} clients, all answered; latency median "
              f"{statistics.median(latencies) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms; "
              f"{len(refused)} starts refused, 1 run trained; one client alone: median "
              f"{statistics.median(alone) * 1000:.0f} ms")
        wait_for(lambda: status()["state"] in FINAL, timeout=HANG)


# ---- faults ---------------------------------------------------------------------------
def test_a_full_disk_while_saving_a_checkpoint(tmp_path, tiny_cfg, monkeypatch):
    """The second checkpoint's weights hit a full disk half-way: the first checkpoint stays
    as it was, the half-written one is not taken for a checkpoint, the run says what
    happened, and resuming from the good checkpoint finishes the run."""
    import transformers.modeling_utils as modeling_utils
    manager = RunManager(tmp_path / "runs")
    real_save = modeling_utils.safe_save_file
    kept = {}

    def full_disk(tensors, filename, *args, **kwargs):
        if "checkpoint-4" not in str(filename):
            return real_save(tensors, filename, *args, **kwargs)
        first = Path(filename).parents[0].with_name("checkpoint-2")
        kept.update(_hashes(first))  # the previous checkpoint, complete at this moment
        with open(filename, "wb") as f:
            f.write(b"\0" * 4096)  # some bytes went out before the disk filled up
        raise OSError(errno.ENOSPC, "No space left on device", str(filename))
    monkeypatch.setattr(modeling_utils, "safe_save_file", full_disk)
    cfg = {**tiny_cfg, "max_steps": 6, "save_steps": 2, "sample_steps": 0}
    run_id = manager.start(cfg)
    run = manager.get(run_id)
    wait_for(lambda: run.state in FINAL, timeout=HANG)
    monkeypatch.undo()

    snap = run.snapshot()
    assert snap["state"] == "failed" and snap["step"] == 4, snap
    assert "The disk is full" in snap["error"] and "checkpoint-2, is intact" in snap["error"]
    assert "unfinished checkpoint-4 was removed" in snap["error"]
    assert_readable(snap["error"], "free some space, then Resume")
    folder = tmp_path / "runs" / run_id
    assert sorted(p.name for p in (folder / "checkpoints").iterdir() if p.is_dir()) == \
        ["checkpoint-2"]
    assert kept and _hashes(folder / "checkpoints" / "checkpoint-2") == kept
    assert latest_checkpoint(folder).name == "checkpoint-2"
    # The trainer writes trainer_state.json last: is_complete relies on that order.
    files = list((folder / "checkpoints" / "checkpoint-2").iterdir())
    assert max(files, key=lambda p: p.stat().st_mtime_ns).name == "trainer_state.json"

    assert manager.resume(run_id) == run_id  # the app takes the next run, from checkpoint-2
    wait_for(lambda: run.state in FINAL, timeout=HANG)
    snap = run.snapshot()
    assert snap["state"] == "done" and snap["step"] == 6, snap["error"]
    steps = [m["step"] for m in snap["metrics"] if "loss" in m]
    assert steps == list(range(1, 7))


def test_a_checkpoint_cut_short_is_not_complete(tmp_path):
    ckpt = tmp_path / "checkpoint-3"
    ckpt.mkdir()
    assert not is_complete(ckpt)  # nothing written yet
    whole = '{\n  "global_step": 3,\n  "log_history": [\n    {\n      "loss": 1.0\n    }\n  ]\n}\n'
    for cut in (1, len(whole) // 2, whole.index("    }") + 5, len(whole) - 1):
        (ckpt / "trainer_state.json").write_text(whole[:cut])
        assert not is_complete(ckpt), cut
    (ckpt / "trainer_state.json").write_text(whole)
    assert is_complete(ckpt)
