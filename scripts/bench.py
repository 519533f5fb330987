"""`make bench`: side-by-side figures for the studio on this machine, printed as a table.

1. studio engine (callbacks, another process polling /run_status) vs a bare SFTTrainer with the
   same SFTConfig and data: tokens/s ratio (training steps; sampling is figure 5);
2. studio defaults vs TRL's defaults on this hardware: speed-up;
3. model-FLOPs utilisation: 6 x params x tokens/s over measured matmul FLOP/s;
4. planner memory estimate vs measured peak RSS over 6 configurations;
5. sample generation's share of the studio run's wall time;
6. /run_status p95 latency while training (BENCH_POLLERS pages polling once a second);
7. seconds from Start to the first logged loss;
8. the studio's engine against a careful user's bare SFTTrainer script (same SFTConfig,
   data, batch and steps), each in a fresh process: train_runtime ratio and final loss.
One figure alone: BENCH_ONLY=memory | lean | served | page | load | gpu (BENCH_CASE=short|default,
BENCH_ROUNDS, BENCH_STEPS; BENCH_FP32=1 for figure 8 in fp32).
Run it on an otherwise idle machine: every figure is a timing.
"""
from __future__ import annotations

import atexit
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sides import (  # noqa: E402  (the sides of figures 1, 4 and 8, fresh processes)
    LEAN_CASES,
    STEPS,
    chat_file,
    fresh,
    lean_rows,
    measure,
    print_lean,
    side,
)

from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.plan.hardware import detect  # noqa: E402

POLLERS = int(os.environ.get("BENCH_POLLERS", 20))  # pages polling /run_status once a second
MEMORY_CONFIGS = [dict(per_device_train_batch_size=b, max_length=n, use_peft=lora)
                  for b, n, lora in ((1, 128, False), (4, 128, False), (8, 128, True),
                                     (1, 512, False), (4, 512, True), (8, 512, True))]


def tokens_per_second(history: list[dict]) -> float:
    tokens = max(r.get("num_tokens", 0) for r in history)
    runtime = next(r["train_runtime"] for r in history if "train_runtime" in r)
    return tokens / runtime


def bare_trainer(cfg: RunConfig, out: Path, **overrides) -> float:
    """tokens/s of TRL's SFTTrainer alone with SFTConfig(**overrides) (TRL's defaults
    otherwise), on cfg's model and data."""
    from sft_ui.data.tokens import load_training_data
    from sft_ui.lazy import trl
    from sft_ui.models import load_model_and_tokenizer, resolve_model
    SFTConfig, SFTTrainer = trl()
    model, tokenizer = load_model_and_tokenizer(resolve_model(cfg.model_name_or_path))
    train_set, _ = load_training_data(cfg, tokenizer).datasets()
    args = SFTConfig(output_dir=str(out), report_to="none", disable_tqdm=True, **overrides)
    trainer = SFTTrainer(model=model, args=args, train_dataset=train_set,
                         processing_class=tokenizer)
    trainer.train()
    return tokens_per_second(trainer.state.log_history)


def speed(cfg: RunConfig, which: str) -> float:
    """tokens/s of one side (`side`) in a fresh process."""
    run = side(cfg, which)
    return run["tokens"] / run["runtime"]


POLLER = """
import json, sys, threading, time
import httpx
url, run_id, pollers = sys.argv[1], sys.argv[2], int(sys.argv[3])
latencies, first_loss, last = [], [None], [None]
def poll(k):
    time.sleep(k / pollers)  # spread over the second, as pages opened at different times
    with httpx.Client(timeout=60) as http:
        while True:
            t0 = time.perf_counter()
            snap = http.post(url + "gradio_api/run/run_status", json={"data": [run_id]})
            snap = snap.json()["data"][0]
            latencies.append(time.perf_counter() - t0)
            if first_loss[0] is None and any("loss" in m for m in snap["metrics"]):
                first_loss[0] = time.time()
            if snap["state"] not in ("queued", "running", "stopping"):
                last[0] = snap
                break
            time.sleep(max(1.0 - (time.perf_counter() - t0), 0))
threads = [threading.Thread(target=poll, args=(k,)) for k in range(pollers)]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps({"latencies": latencies, "first_loss": first_loss[0], "state": last[0]["state"],
                  "error": last[0]["error"]}))
"""


def studio_run(cfg: RunConfig, root: Path) -> dict:
    """A run through the app (RunManager behind a served page). Another process polls
    /run_status over plain HTTP from POLLERS threads, each once a second as an open page
    does, in a process of its own (a client's own CPU is not the server's). Sampling time
    is what the run's log says of each sampling."""
    from sft_ui.runs import RunManager
    from sft_ui.train.log import LOG_FILE
    from sft_ui.ui import build_app
    manager = RunManager(root, in_child=True)  # as `python -m sft_ui serve` does
    app = build_app(manager)
    _, url, _ = app.queue().launch(server_name="127.0.0.1", server_port=7999,
                                   prevent_thread_lock=True, quiet=True)
    manager.warm_up(wait=True)  # as `serve` does before any Start (a person picks settings)
    gc.freeze()  # as `serve` does
    start = time.time()
    run_id = manager.start(cfg.to_dict())
    poller = subprocess.Popen([sys.executable, "-c", POLLER, url, run_id, str(POLLERS)],
                              text=True, stdout=subprocess.PIPE)
    polled = json.loads(poller.communicate()[0].strip().splitlines()[-1])
    while manager.get(run_id).state in ("queued", "running", "stopping"):
        time.sleep(0.1)
    wall = time.time() - start
    app.close()
    manager.close()
    snap = manager.get(run_id).snapshot(log=False)
    log = (root / run_id / LOG_FILE).read_text(encoding="utf-8")
    sampled = [float(s) for s in re.findall(r"Sample answers at step \d+ in ([\d.]+) s", log)]
    assert snap["state"] == "done", snap["error"]
    runtime = next(m["train_runtime"] for m in snap["metrics"] if "train_runtime" in m)
    latencies = polled["latencies"]
    return {"tokens_per_second": tokens_per_second(snap["metrics"]),
            "tokens": max(m.get("num_tokens", 0) for m in snap["metrics"]),
            "train_runtime": runtime, "sample_seconds": sum(sampled), "wall": wall,
            "samples": len(sampled), "latencies": latencies,
            "first_loss": polled["first_loss"] - start}


def served(cfg: RunConfig) -> dict:
    """studio_run in a fresh process (the app's process as `serve` starts it)."""
    code = (f"import json, sys, tempfile; from pathlib import Path; sys.path.insert(0, "
            f"{str(Path(__file__).resolve().parent)!r}); import bench; "
            f"from sft_ui.config import RunConfig; print(json.dumps(bench.studio_run("
            f"RunConfig.from_dict(json.loads({json.dumps(cfg.to_dict())!r})), "
            f"Path(tempfile.mkdtemp()))))")
    return fresh(code)


def matmul_flops(dtype=None) -> float:
    """FLOP/s of a 2048-square matrix product on the CPU, in the run's precision."""
    import torch
    dtype = dtype or torch.float32
    a, b = torch.randn(2048, 2048, dtype=dtype), torch.randn(2048, 2048, dtype=dtype)
    for _ in range(3):
        a @ b
    start, n = time.perf_counter(), 20
    for _ in range(n):
        a @ b
    return n * 2 * 2048 ** 3 / (time.perf_counter() - start)


def memory_rows() -> list[tuple]:
    """(config, estimate, measured peak) for each memory configuration."""
    from sft_ui.plan.planner import plan
    rows = []
    demo_long = _long_rows_file()
    for extra in MEMORY_CONFIGS:
        cfg = RunConfig.from_dict({"max_steps": 2, "sample_steps": 0, "dataset_name": demo_long,
                                   "gradient_accumulation_steps": 1, **extra})
        rows.append((extra, plan(cfg)["memory"]["total"], measure(cfg)["peak"]))
    return rows


def _long_rows_file() -> str:
    """Rows long enough to fill max_length, so the measured peak is the planned one."""
    path = Path(tempfile.mkdtemp()) / "long.jsonl"
    words = " ".join(f"word{i}" for i in range(600))
    path.write_text("".join(json.dumps({"text": f"{i} {words}"}) + "\n" for i in range(64)))
    return str(path)


def print_memory(mem: list[tuple]) -> None:
    what = "peak GPU memory" if detect().device == "cuda" else "peak RSS"
    print(f"\n| memory config | estimate | measured {what} | error |\n|---|---|---|---|")
    for extra, estimate, measured in mem:
        name = (f"batch {extra['per_device_train_batch_size']}, max_length "
                f"{extra['max_length']}, {'LoRA' if extra['use_peft'] else 'full'}")
        print(f"| {name} | {estimate / 2**30:.2f} GiB | {measured / 2**30:.2f} GiB | "
              f"{(estimate - measured) / measured:+.0%} |")


def print_served() -> None:
    """The served studio (pollers on /run_status) against a bare SFTTrainer with the same
    SFTConfig (goal: >= 0.97) and against its own engine alone (engine.train without app
    or pollers: what the app, the run folder and the polls cost), each in a fresh process,
    interleaved bare, alone, served, bare, ..., on BENCH_CASE's settings (default: the
    default run)."""
    name = os.environ.get("BENCH_CASE", "default")
    cfg = RunConfig.from_dict({"dataset_name": chat_file() if name == "short" else "demo",
                               **LEAN_CASES[name],
                               **({"max_steps": STEPS} if name == "default" else {})})
    bare, alone, studio = [], [], []
    for k in range(int(os.environ.get("BENCH_ROUNDS", 2))):
        bare.append(speed(cfg, "bare"))
        alone.append(speed(cfg, "studio"))
        studio.append(served(cfg))
        print(f"bare SFTTrainer {bare[-1]:.0f} tokens/s, engine alone {alone[-1]:.0f}, served "
              f"{studio[-1]['tokens_per_second']:.0f}, first loss "
              f"{studio[-1]['first_loss']:.1f} s", flush=True)

    def ratios(base):
        r = [s["tokens_per_second"] / b for b, s in zip(base, studio)]
        return f"{min(r):.2f}-{max(r):.2f} (median {statistics.median(r):.2f})"
    latencies = [x for run in studio for x in run["latencies"]]
    print(f"\n{name}, {POLLERS} pollers at 1 Hz: served studio / bare SFTTrainer tokens/s "
          f"{ratios(bare)}; served / its engine alone {ratios(alone)}; /run_status p95 "
          f"{1000 * statistics.quantiles(latencies, n=20)[-1]:.0f} ms over {len(latencies)} "
          f"polls; first loss {min(r['first_loss'] for r in studio):.1f}-"
          f"{max(r['first_loss'] for r in studio):.1f} s after Start")


def scratch() -> Path:
    """One temporary folder for everything the bench and its processes write (run folders,
    models: a gigabyte a run), removed when it ends."""
    work = Path(tempfile.mkdtemp(prefix="sft-bench-"))
    os.environ["TMPDIR"] = tempfile.tempdir = str(work)  # the fresh processes' too
    atexit.register(shutil.rmtree, work, True)
    return work


def main() -> None:
    work = scratch()
    if os.environ.get("BENCH_ONLY") == "memory":  # figure 4 alone
        return print_memory(memory_rows())
    if os.environ.get("BENCH_ONLY") == "lean":  # the lean step vs a bare SFTTrainer alone
        return print_lean(lean_rows(int(os.environ.get("BENCH_ROUNDS", 2))))
    if os.environ.get("BENCH_ONLY") == "served":  # figures 1, 6 and 7 alone
        return print_served()
    if os.environ.get("BENCH_ONLY") == "page":  # the app in a real browser (bench_page.py)
        from bench_page import print_page
        return print_page()
    if os.environ.get("BENCH_ONLY") == "load":  # a shared server's visitors (bench_load.py)
        from bench_load import main as load
        return load()
    if os.environ.get("BENCH_ONLY") == "gpu":  # the CUDA speed-ups alone
        from bench_gpu import speedups
        return speedups(measure, _long_rows_file())
    hw = detect()
    cfg = RunConfig(max_steps=STEPS)
    print(f"Machine: {hw.describe()}; default model, demo set, {STEPS} steps, "
          f"batch {cfg.per_device_train_batch_size} x {cfg.gradient_accumulation_steps}, "
          f"max_length {cfg.max_length}", flush=True)
    # Side by side in the order bare, studio, studio, bare, each in a fresh process: a drift
    # of the machine's speed over the minutes the bench takes weighs on both alike.
    bare_runs = [speed(cfg, "bare")]
    studios = [served(cfg), served(cfg)]
    bare_runs.append(speed(cfg, "bare"))
    bare = statistics.mean(bare_runs)
    studio = studios[0]
    latencies = [x for run in studios for x in run["latencies"]]
    trl_steps = 4
    # TRL's defaults (batch 8, bf16, activation checkpointing, fused AdamW...); use_cpu is
    # needed for them to start at all on a machine without a GPU.
    trl_default = bare_trainer(cfg, work / "trl", max_steps=trl_steps,
                               use_cpu=hw.device == "cpu")
    from sft_ui.plan.planner import plan
    params = plan(cfg)["params"]
    from sft_ui.plan.loading import half_dtype
    peak = matmul_flops(half_dtype(cfg))  # the precision the studio trains in here
    # Training steps only: the time inside generate_batch is figure 5.
    training = statistics.mean(run["tokens"] / (run["train_runtime"] - run["sample_seconds"])
                               for run in studios)
    with_sampling = statistics.mean(run["tokens_per_second"] for run in studios)
    sample_seconds = sum(run["sample_seconds"] for run in studios)
    wall = sum(run["wall"] for run in studios)
    mfu = 6 * params * training / peak
    mem = memory_rows()
    worst = max(abs(e - m) / m for _, e, m in mem)
    lean = lean_rows(int(os.environ.get("BENCH_ROUNDS", 2)))
    rows = [
        ("1. studio / bare SFTTrainer tokens/s", f"{training / bare:.3f}", ">= 0.97",
         f"{training:.0f} vs {bare:.0f} tokens/s in training steps (2 runs each, "
         f"bare {', '.join(f'{b:.0f}' for b in bare_runs)}); with sampling "
         f"{with_sampling:.0f} ({with_sampling / bare:.3f})"),
        ("2. studio defaults / TRL defaults speed", f"{training / trl_default:.1f}x",
         ">= 10x", f"TRL defaults: {trl_default:.1f} tokens/s over {trl_steps} steps"),
        ("3. model-FLOPs utilisation", f"{mfu:.2f}", ">= 0.5",
         f"6 x {params / 1e6:.0f}M params x tokens/s over {peak / 1e9:.0f} GFLOP/s "
         f"{plan(cfg)['precision']} matmul"),
        ("4. planner memory, worst error", f"{worst:.0%}", "<= 20%",
         f"{len(mem)} configurations (below)"),
        ("5. sample generation share of wall time",
         f"{sample_seconds / wall:.1%}", "<= 5%",
         f"{sample_seconds:.1f} s of {wall:.0f} s in 2 runs, every {cfg.sample_steps} "
         f"steps ({sum(run['samples'] for run in studios)} generations)"),
        ("6. /run_status p95 latency",
         f"{1000 * statistics.quantiles(latencies, n=20)[-1]:.0f} ms", "<= 250 ms",
         f"{len(latencies)} polls while training, {POLLERS} pollers at 1 Hz from another "
         "process"),
        ("7. Start to first logged loss", f"{studio['first_loss']:.1f} s", "<= 5 s",
         f"{POLLERS} pollers"),
        *[(f"8. careful SFTTrainer script / studio runtime ({name})",
           "-".join(f"{f(r):.2f}" for f in (min, max)) + "x", ">= 1.3x",
           "train_runtime, same data, batch and steps (table below)")
          for name, runs in lean
          for r in [[c["runtime"] / s["runtime"] for c, s in zip(runs["careful"],
                                                                  runs["studio"])]]],
    ]
    print("\n| figure | measured | target | detail |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print_memory(mem)
    print_lean(lean)


if __name__ == "__main__":
    main()
