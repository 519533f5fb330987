"""`BENCH_ONLY=gpu make bench` on a CUDA machine: what each precision and speed-up gives
on the default model, side by side in one run, with the planner's memory estimate next to
the measured peak (allocator peak + CUDA context). Each training runs in its own process."""
from __future__ import annotations

import os
import time

from sft_ui.config import RunConfig
from sft_ui.plan.hardware import detect, unsupported
from sft_ui.plan.planner import plan

BATCH, LENGTH = int(os.environ.get("BENCH_BATCH", 16)), int(os.environ.get("BENCH_LENGTH", 512))
CONFIGS = [
    ("fp32", dict(bf16=False, fp16=False)),
    ("fp16 mixed", dict(bf16=False, fp16=True)),
    ("bf16 mixed (auto)", {}),
    ("bf16 + Liger kernels", dict(use_liger_kernel=True)),
    ("bf16 + activation checkpointing", dict(activation_checkpointing=True)),
    ("LoRA r16, bf16 base", dict(use_peft=True)),
    ("QLoRA r16, 4-bit base", dict(use_peft=True, load_in_4bit=True)),
]


def bf16_matmul_flops(n: int = 8192) -> float:
    import torch
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start, runs = time.perf_counter(), 20
    for _ in range(runs):
        a @ b
    torch.cuda.synchronize()
    return runs * 2 * n ** 3 / (time.perf_counter() - start)


def speedups(measure, data_file: str) -> None:
    hw = detect()
    if hw.device != "cuda":
        print("No CUDA GPU here: the GPU table needs one.")
        return
    peak = bf16_matmul_flops()
    print(f"Machine: {hw.describe()}; default model, {BATCH} x {LENGTH} tokens a step, "
          f"12 steps; bf16 matmul {peak / 1e12:.0f} TFLOP/s")
    print("\n| setting | tokens/s | vs fp32 | MFU | peak GPU memory | estimate | error |"
          "\n|---|---|---|---|---|---|---|")
    base = None
    for name, extra in CONFIGS:
        cfg = RunConfig.from_dict({"max_steps": 12, "sample_steps": 0, "logging_steps": 1,
                                   "dataset_name": data_file, "max_length": LENGTH,
                                   "per_device_train_batch_size": BATCH,
                                   "gradient_accumulation_steps": 1, **extra})
        problems = unsupported(cfg, hw)  # a package missing, or no bf16 on this GPU
        if problems:
            print(f"| {name} | not run: {' '.join(problems)} | | | | | |")
            continue
        estimate = plan(cfg)
        got = measure(cfg)
        speed = got["tokens_per_second"]
        base = base or speed
        mfu = "" if cfg.use_peft else f"{6 * estimate['params'] * speed / peak:.2f}"
        total = estimate["memory"]["total"]
        print(f"| {name} | {speed:,.0f} | {speed / base:.2f}x | {mfu} | "
              f"{got['peak'] / 2**30:.2f} GiB | {total / 2**30:.2f} GiB | "
              f"{(total - got['peak']) / got['peak']:+.0%} |", flush=True)
