"""`BENCH_ONLY=load make bench` (or `.venv/bin/python scripts/bench_load.py`): a shared
server under load. The app is served as its own process with a login (SFT_UI_AUTH); its
owner signs in and trains a LoRA run of the default model; the same run trains once alone
and once while 20 visitors, not signed in, chat, compare, poll the run and open the page
for as long as it trains (half of them chat and compare over gradio_client, half over
plain HTTP, as scripts and curl do; the polls and the page over plain HTTP).

A visitor refused waits as long as the refusal says (at most 30 s), then goes on, as a
person would. The visitors' clients run in this process at the lowest CPU priority: they
stand for other machines, and their own CPU (printed) is not the server's.

Prints: the run's tokens/s with visitors against alone (goal >= 0.8x); visitors' time to
the first token of a reply, p50 and p95; requests answered, refused with a message (the
limits of sft_ui/limits.py) and failed otherwise (goal 0); the server's memory at the
end against the start (after the model's first load); the cores each side used while
visited. Rounds alternate (alone, with visitors, ...); `--rounds 2` gives a range.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.served import gradio_events  # noqa: E402  (Gradio's event stream over HTTP)

PORT = 7996
OWNER = ("owner", "a long load-test secret")
RUN = {"dataset_name": "demo", "use_peft": True, "max_steps": 60, "train_by": "steps",
       "per_device_train_batch_size": 4, "gradient_accumulation_steps": 1,
       "sample_steps": 0, "save_strategy": "no", "eval_fraction": 0.0}
REFUSED = ("shared server", "still being written", "Sign in to")  # the limits' messages


def serve(runs: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "SFT_UI_RUNS_DIR": str(runs), "GRADIO_ANALYTICS_ENABLED": "False",
           "SFT_UI_AUTH": ":".join(OWNER)}
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "sft_ui", "serve", "--host",
                                 "127.0.0.1", "--port", str(PORT)], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def client(url: str):
    from gradio_client import Client
    for _ in range(240):
        try:
            return Client(url, verbose=False)
        except Exception:
            time.sleep(0.5)
    raise SystemExit(f"the app did not come up at {url}")


def train(owner) -> float:
    """The run's training tokens per second (its tokens over its training time)."""
    run_id = owner.predict(RUN, "", api_name="/start_run")["run_id"]
    while (status := owner.predict(run_id, api_name="/run_status"))["state"] in (
            "queued", "running"):
        time.sleep(2)
    if status["state"] != "done":
        raise SystemExit(f"the run ended {status['state']}: {status.get('error')}")
    last = [m for m in status["metrics"] if "num_tokens" in m][-1]
    runtime = next(m["train_runtime"] for m in status["metrics"] if "train_runtime" in m)
    return last["num_tokens"] / runtime


class Visitors:
    """20 visitors, each in a thread: chat, compare, poll the run, open the page."""

    def __init__(self, url: str, count: int = 20):
        self.url, self.count = url, count
        self.first_token: list[float] = []
        self.answered = self.refused = 0
        self.errors: list[str] = []
        self.said: set[str] = set()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.visit, args=(i,), daemon=True)
                        for i in range(count)]

    def run(self) -> None:
        for thread in self.threads:
            thread.start()

    def end(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)

    def visit(self, seed: int) -> None:
        """A visitor's loop; half of them ask over gradio_client, half over plain HTTP
        (Gradio's /gradio_api/call/<name> and its event stream), as scripts and curl do."""
        import httpx
        rng, web = random.Random(seed), httpx.Client(timeout=120)
        me = client(self.url) if seed % 2 == 0 else None
        try:
            while not self.stop.is_set():
                action = rng.choice(["chat", "chat", "compare", "poll", "page"])
                try:
                    if action in ("chat", "compare"):
                        api, data = ("/chat", [f"Name a colour, please ({seed}).", None,
                                               "base", "", 24]) if action == "chat" else \
                            ("/compare", ["Say hello.", "base", "base", 16])
                        self.reply(me.submit(*data, api_name=api) if me is not None
                                   else self.streamed(web, api, data))
                    elif action == "poll":
                        web.post(f"{self.url}gradio_api/run/list_runs",
                                 json={"data": []}).raise_for_status()
                        self.count_answer()
                    else:
                        web.get(self.url).raise_for_status()
                        self.count_answer()
                except Exception as e:  # a refusal with a message, or an error
                    text, pause = str(e), None
                    with self.lock:
                        if any(word in text for word in REFUSED):
                            self.refused += 1
                            self.said.add(text[:160])
                            said = re.search(r"about (\d+) s", text)
                            pause = min(30, int(said.group(1))) if said else None
                        else:
                            self.errors.append(f"{action}: {type(e).__name__}: {text[:200]}")
                    if pause:  # a person waits as long as the refusal says
                        self.stop.wait(pause)
                self.stop.wait(rng.uniform(0.5, 2.0))
        finally:
            web.close()
            if me is not None:
                me.close()

    def streamed(self, web, api: str, data: list) -> "HttpJob":
        """A reply asked over plain HTTP (served.gradio_events)."""
        return HttpJob(web, self.url, api.lstrip("/"), data)

    def count_answer(self) -> None:
        with self.lock:
            self.answered += 1

    def reply(self, job) -> None:
        began, first = time.monotonic(), None
        for out in job:  # (blocks until the next output comes)
            if first is None and any(out if isinstance(out, (list, tuple)) else [out]):
                first = time.monotonic() - began
        job.result()  # raises a refusal or an error
        with self.lock:
            self.answered += 1
            self.first_token.append(first if first is not None else time.monotonic() - began)


class HttpJob:
    """gradio_client's job, as far as Visitors.reply reads it, over Gradio's event stream
    (served.gradio_events): iterating yields each output as it comes; result() raises the
    refusal an error event carried."""

    def __init__(self, web, url: str, name: str, data: list):
        self.web, self.url, self.name, self.data, self.error = web, url, name, data, None

    def __iter__(self):
        for event, data in gradio_events(self.web, self.url, self.name, self.data):
            if event == "error":
                self.error = RuntimeError(json.dumps(data, ensure_ascii=False))
                return
            if data:
                yield data

    def result(self):
        if self.error is not None:
            raise self.error


def memory_mb(pid: int) -> float:
    import psutil
    return psutil.Process(pid).memory_info().rss / 2**20


def cpu_seconds(pid: int) -> dict[str, float]:
    """CPU seconds so far of the server and of this process (the visitors' clients, on the
    same machine). The training process is not counted: the run's own process ends with
    the run, and its speed is the figure that counts."""
    import psutil
    return {"server": sum(psutil.Process(pid).cpu_times()[:2]),
            "visitors (this process)": sum(psutil.Process().cpu_times()[:2])}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--visitors", type=int, default=20)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-load-"))
    server = serve(folder / "runs", folder / "server.log")
    url = f"http://127.0.0.1:{PORT}/"
    try:
        owner = client(url)
        owner.predict(*OWNER, api_name="/sign_in")
        list(owner.submit("Hi", None, "base", "", 4, api_name="/chat"))  # the model loaded
        start_mb = memory_mb(server.pid)
        alone, loaded, visitors, niced = [], [], None, False
        for _ in range(args.rounds):
            alone.append(train(owner))
            print(f"alone: {alone[-1]:.0f} tokens/s", flush=True)
            visitors = Visitors(url, args.visitors)
            before, began = cpu_seconds(server.pid), time.monotonic()
            os.nice(19) if not niced else None  # (the visitors stand for other machines)
            niced = True
            visitors.run()
            loaded.append(train(owner))
            visitors.end()
            after, took = cpu_seconds(server.pid), time.monotonic() - began
            cores = {k: round((after[k] - before[k]) / took, 2) for k in after}
            print(f"with {args.visitors} visitors: {loaded[-1]:.0f} tokens/s", flush=True)
        ratios = [b / a for a, b in zip(alone, loaded)]
        waits = sorted(visitors.first_token) or [float("nan")]
        print(json.dumps({
            "tokens_per_s_alone": [round(a) for a in alone],
            "tokens_per_s_with_visitors": [round(b) for b in loaded],
            "ratio": [round(r, 2) for r in ratios],
            "first_token_p50_s": round(statistics.median(waits), 2),
            "first_token_p95_s": round(waits[int(0.95 * (len(waits) - 1))], 2),
            "answered": visitors.answered, "refused_with_a_message": visitors.refused,
            "errors": len(visitors.errors), "error_examples": visitors.errors[:5],
            "refusals_said": sorted(visitors.said)[:4],
            "server_mb_start": round(start_mb), "server_mb_end": round(memory_mb(server.pid)),
            "cores_used_while_visited": cores,
        }, indent=1, ensure_ascii=False))
        owner.close()
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
        tracebacks = (folder / "server.log").read_text(errors="replace").count("Traceback")
        print(f"server log: {tracebacks} tracebacks ({folder / 'server.log'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
