"""What following a run in the page costs the run: the same run through the served app
(`python -m sft_ui serve`, a fresh process each time) with no page open and with one
headless Chromium tab following it on the Train tab, interleaved (no page, page, no page,
page, ...). Prints each run's training tokens/s (TRL's train_runtime over the tokens
trained) and the ratio page / no page of each pair.

    .venv/bin/python scripts/bench_follow.py [--pairs 2] [--steps 10]

Needs the test tools (`make test-deps`: Playwright and Debian's Chromium). Run it on an
otherwise quiet machine: it measures the machine's own CPU.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PORT = 7996
RUN = {"use_peft": True, "per_device_train_batch_size": 4, "gradient_accumulation_steps": 1,
       "max_length": 256, "sample_steps": 0, "logging_steps": 1}


def one_run(work: Path, steps: int, follow: bool) -> float:
    """Training tokens/s of one run in a fresh app; `follow`: with a page following it."""
    from gradio_client import Client

    from scripts.served import ARGS, CHROMIUM
    env = {**os.environ, "SFT_UI_RUNS_DIR": str(work / f"runs-{time.time_ns()}"),
           "GRADIO_ANALYTICS_ENABLED": "False"}
    app = subprocess.Popen([sys.executable, "-m", "sft_ui", "serve", "--host", "127.0.0.1",
                            "--port", str(PORT)], cwd=ROOT, env=env,
                           stdout=open(work / "app.log", "ab"), stderr=subprocess.STDOUT,
                           start_new_session=True)
    try:
        client = None
        for _ in range(600):
            try:
                client = Client(f"http://127.0.0.1:{PORT}/", verbose=False)
                break
            except Exception:  # not serving yet
                time.sleep(0.5)
        with _page(follow, ARGS, CHROMIUM) as page:
            if page is not None:
                page.goto(f"http://127.0.0.1:{PORT}/")
                page.locator("#plan-summary").get_by_text("Plan:").wait_for()
            time.sleep(5)  # the warm worker loads the model, as before a person's Start
            run_id = client.predict({**RUN, "max_steps": steps}, api_name="/start_run")["run_id"]
            while True:
                status = client.predict(run_id, api_name="/run_status")
                if status["state"] not in ("queued", "running", "stopping"):
                    break
                time.sleep(2)
        assert status["state"] == "done", status["error"]
        metrics = status["metrics"]
        tokens = max(m.get("num_tokens", 0) for m in metrics)
        runtime = next(m["train_runtime"] for m in metrics if "train_runtime" in m)
        return tokens / runtime
    finally:
        os.killpg(app.pid, signal.SIGKILL)
        app.wait()


class _page:
    """A Chromium tab (the Train tab) while the run trains, or none."""

    def __init__(self, follow: bool, args, chromium):
        self.follow, self.args, self.chromium = follow, args, chromium

    def __enter__(self):
        if not self.follow:
            return None
        from playwright.sync_api import sync_playwright
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=self.chromium,
                                                       args=self.args)
        page = self.browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_default_timeout(600_000)
        return page

    def __exit__(self, *exc):
        if self.follow:
            self.browser.close()
            self.playwright.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-follow-"))
    print(f"LoRA run of {args.steps} steps, batch 4, max_length 256, samples off; "
          f"{os.cpu_count()} CPUs; app log in {work / 'app.log'}")
    ratios = []
    for pair in range(1, args.pairs + 1):
        alone = one_run(work, args.steps, follow=False)
        followed = one_run(work, args.steps, follow=True)
        ratios.append(followed / alone)
        print(f"pair {pair}: no page {alone:.1f} tokens/s, page following {followed:.1f} "
              f"tokens/s: {followed / alone:.2f}x", flush=True)
    print(f"page / no page: {min(ratios):.2f}x to {max(ratios):.2f}x over {len(ratios)} pairs")


if __name__ == "__main__":
    main()
