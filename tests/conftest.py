"""Shared fixtures: a tiny random model with the real tokenizer, the suite's own cache, its
tiers (tests/slow.txt) and its isolation (what a test started ends with it); a live app on
a free loopback port and a real browser on it come from tests/app_fixtures.py."""
from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import weakref
from pathlib import Path

import pytest

from scripts.served import (
    ARGS,
    CHROMIUM,
    HANG,
    HANG_MS,
    field,
    free_port,
    open_panels,
    serve,
    set_field,
    wait_for,
)

# What the tests take from here that scripts/served.py holds (the page's tools and benches
# use it too).
__all__ = ["ARGS", "CHROMIUM", "HANG", "HANG_MS", "field", "free_port", "open_panels", "serve",
           "set_field", "wait_for"]

# The fixtures that serve the app and open it in a browser (live_app, browser, page, connect).
pytest_plugins = ["tests.app_fixtures"]

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

ROOT = Path(__file__).resolve().parent.parent


def _suite_cache() -> Path:
    """The suite's own cache (SFT_UI_CACHE), for this process and every app and training
    process a test starts: the speeds and the answers before training that runs remember
    stay out of the person's cache (a plan there said "about 6.0 h" after the suite), and
    one test's served run cannot change what another's plan reads. The prepared default
    model is linked in from the person's cache (`make test` prepares it there)."""
    import tempfile
    real = Path(os.environ.get("SFT_UI_CACHE", Path.home() / ".cache" / "sft_ui"))
    (real / "models").mkdir(parents=True, exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="sft-ui-test-cache-"))
    (cache / "models").symlink_to((real / "models").resolve())
    atexit.register(shutil.rmtree, cache, ignore_errors=True)  # (the link, not the models)
    return cache


os.environ["SFT_UI_CACHE"] = str(_suite_cache())



# Threads of the process rather than of a test: pools (Gradio's server, asyncio, AnyIO)
# waiting for work, and a library's own singleton (tqdm's monitor).
SHARED_THREADS = re.compile(r"ThreadPoolExecutor-|AnyIO worker thread|asyncio_\d|tqdm_monitor")
# Seconds a thread or process a test left (which nothing here can stop) gets to end: it only
# catches a hang. A run a test left is asked to stop and waited for until it has ended.
LEAK_CEILING = float(os.environ.get("SFT_UI_LEAK_CEILING", "120"))
ACTIVE = ("queued", "running", "stopping")  # a run's states while it is going
PROCESS_GRACE = 30.0  # seconds a process the test started gets to end before it is killed
_MANAGERS: weakref.WeakSet = weakref.WeakSet()  # every RunManager the tests create


# ---- tiers (pytest.ini's markers) -------------------------------------------------------
TIERS = {"browser": {"page", "browser"}, "served": {"live_app", "connect"}}
SLOW = ROOT / "tests" / "slow.txt"  # the longest tests, by id: `make test-fast` leaves them


def pytest_collection_modifyitems(items):
    """A test's tier: its folder (tests/browser/, tests/served/), a fixture it takes, or an
    app it serves itself (scripts/served.py's serve); `slow` where tests/slow.txt names
    it (its id without parameters, or its file)."""
    slow = {line.split("#")[0].strip() for line in SLOW.read_text().splitlines()} - {""} \
        if SLOW.exists() else set()
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        folder = Path(str(item.fspath)).parent.name
        source = _source(item)
        for tier, takes in TIERS.items():
            if folder == tier or fixtures & takes or (tier == "served" and "serve(" in source):
                item.add_marker(tier)
        if item.nodeid.split("[")[0] in slow or item.nodeid.split("::")[0] in slow:
            item.add_marker("slow")


def _source(item) -> str:
    import inspect
    try:
        return inspect.getsource(item.function)
    except (AttributeError, OSError, TypeError):
        return ""


@pytest.fixture(scope="session", autouse=True)
def _managers_are_known():
    """Every RunManager made in the session is remembered (weakly), module fixtures'
    too, so that a run one test left going is found when that test ends."""
    from sft_ui.runs import manager
    init = manager.RunManager.__init__

    def remembered(self, *args, **kwargs):
        init(self, *args, **kwargs)
        _MANAGERS.add(self)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manager.RunManager, "__init__", remembered)
        yield


def _descendants() -> dict[int, object]:
    import psutil
    return {p.pid: p for p in psutil.Process().children(recursive=True)}


@pytest.fixture(autouse=True)
def _nothing_left_behind(request):
    """A test ends with nothing of its own still going: no run of any RunManager, no
    thread it started (pools aside), no process it started. What it left is stopped and
    waited for here, so it cannot reach the next test's counters or monkeypatches, and
    the test that left it fails, saying what it was."""
    threads = set(threading.enumerate())
    processes = _descendants()
    yield
    left, stopped = [], set()
    for manager in list(_MANAGERS):
        run = manager.active()
        if run is not None and run.state in ACTIVE:
            left.append(f"run {run.id} ({run.state}, step {run.step})")
            run.request_stop()
            stopped.add(run.id)
    ending = _run_threads_ending(stopped)
    for thread in ending:
        # Until it has ended, however long a loaded machine takes (the first run of a
        # process imports torch on its way out): HANG only turns a run that ignores Stop
        # into a failure.
        thread.join(timeout=HANG)
        if thread.is_alive():
            left.append(f"thread {thread.name!r} (its run did not end within {HANG} s of "
                        "Stop)")
    end = time.time() + LEAK_CEILING
    for thread in set(threading.enumerate()) - threads - set(ending):
        if not SHARED_THREADS.match(thread.name) and thread is not threading.current_thread() \
                and not _closed_clients_heartbeat(thread):
            thread.join(timeout=max(0.0, end - time.time()))
            if thread.is_alive():
                left.append(f"thread {thread.name!r}")
    left += _end_processes(processes, end)
    if left:
        pytest.fail(f"{request.node.nodeid} left behind: {'; '.join(left)} (stopped now)",
                    pytrace=False)


def _closed_clients_heartbeat(thread: threading.Thread) -> bool:
    """Whether `thread` is the heartbeat of a gradio_client Client already closed: it reads
    the app's heartbeat stream and ends at its next line (the app sends one every 15 s),
    having nothing else to do. Waited for, it cost 10-15 s a test that used a Client."""
    args = getattr(thread, "_args", ())
    return thread.name.endswith("(_stream_heartbeat)") and len(args) == 3 and \
        isinstance(args[2], threading.Event) and args[2].is_set()


def _run_threads_ending(stopped: set[str]) -> list[threading.Thread]:
    """The threads of runs (of every RunManager) that end by themselves: those of the runs
    in `stopped`, just asked to stop, and those of runs whose state already says they
    ended (a thread writes the state before it returns)."""
    ending = set(stopped)
    for manager in list(_MANAGERS):
        for run in list(manager._runs.values()):
            if run.state not in ACTIVE:
                ending.add(run.id)
    names = {f"run-{run_id}" for run_id in ending}
    return [t for t in threading.enumerate() if t.name in names and t.is_alive()]


def _end_processes(before: dict, end: float) -> list[str]:
    """The processes started since `before` (a module's browser or app started before
    stays, with what it starts), waited for until `end`, then killed; what was left."""
    import psutil
    new = [p for pid, p in _descendants().items() if pid not in before and not any(
        parent.pid in before for parent in _parents(p))]
    commands = {p.pid: " ".join(_command(p))[:80] for p in new}
    _, alive = psutil.wait_procs(new, timeout=max(0.0, min(PROCESS_GRACE, end - time.time())))
    for process in alive:
        try:
            process.kill()
        except psutil.Error:
            pass
    return [f"process {p.pid} ({commands[p.pid]})" for p in alive]


def _parents(process) -> list:
    import psutil
    try:
        return process.parents()
    except psutil.Error:
        return []


def _command(process) -> list[str]:
    import psutil
    try:
        return process.cmdline()
    except psutil.Error:
        return ["?"]


@pytest.fixture(autouse=True)
def _speeds_of_this_test(tmp_path_factory, monkeypatch):
    """Each test remembers training speeds in a file of its own: a run (which remembers
    its speed) or a measurement in one test must not change the plan another one sees."""
    from sft_ui.plan import speed
    path = tmp_path_factory.mktemp("speeds") / "speed.json"
    monkeypatch.setattr(speed, "speed_file", lambda: path)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """2 layers, width 32, SmolLM2's tokenizer and chat template; trains in a second."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from sft_ui.models import prepare_default_model
    tok = AutoTokenizer.from_pretrained(prepare_default_model())
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=512, tie_word_embeddings=True,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(config)
    # Zero the special tokens' (tied) embeddings so greedy decoding of the random
    # model yields visible text instead of an immediate end-of-turn token.
    with torch.no_grad():
        model.get_input_embeddings().weight[list(tok.added_tokens_decoder)] = 0
    out = tmp_path_factory.mktemp("tiny-model")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


@pytest.fixture
def tiny_cfg(tiny_model_dir):
    """RunConfig fields for a quick run on the tiny model."""
    return {"model_name_or_path": tiny_model_dir, "max_steps": 2,
            "per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
            "max_length": 64, "sample_steps": 1, "sample_max_new_tokens": 8,
            "learning_rate": 1e-3}


def run_group(command: list[str], timeout: float, **options) -> subprocess.CompletedProcess:
    """subprocess.run for a command that starts processes of its own (a launcher): in a
    session of its own, killed whole when it outlasts `timeout` (subprocess.run would
    kill the launcher alone, and its processes would outlive the test)."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True, **options) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def fresh(page, url: str | None = None):
    """The page opened again as on a person's first visit: the settings its browser kept
    (ui/kept_settings.py) forgotten, every field at its default (a page that has not opened
    the app yet has nothing kept)."""
    if page.url.startswith("http"):
        page.evaluate("localStorage.clear()")
    if url:
        page.goto(url)
    else:
        page.reload()


def newest_ended(manager, count):
    """The newest run once `count` runs exist and it ended (None before)."""
    runs = manager.all_runs()
    return runs[0] if len(runs) == count and runs[0].state in ("done", "stopped",
                                                               "failed") else None


def trained(manager, cfg: dict):
    """The run of `cfg` started on `manager`, once it ended; it must have finished."""
    run_id = manager.start(cfg)
    run = wait_for(lambda: (lambda r: r if r.state not in ("queued", "running") else None)(
        manager.get(run_id)), timeout=HANG)
    assert run.state == "done", (cfg.get("stage", "sft"), run.error)
    return run


def start_refused(notice):
    """What the page's Start notice says when it did not start the run (False: nothing)."""
    text = notice.inner_text()
    return ("Cannot start" in text or "Start failed" in text) and text
