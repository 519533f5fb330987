"""Two GPU tables, each training in its own process.

`BENCH_ONLY=gpu make bench`: what each precision and speed-up gives on the default model,
side by side, with the planner's memory estimate next to the measured peak (allocator
peak + CUDA context): `speedups` below.

`python scripts/bench_gpu.py` on an H100/H200: real model sizes with random weights built
from the configs the app ships (sft_ui/plan/model_configs, nothing downloaded; the
default model's tokenizer, whose ids fit every vocabulary): Qwen2.5-0.5B full,
Qwen2.5-1.5B LoRA, Llama-3.2-3B LoRA, Llama-3.1-8B QLoRA on rows of 1024 tokens, at the
batch and checkpointing the planner fits to this GPU. For each: the studio's tokens/s
(its engine), a bare TRL script (SFTTrainer from the model folder, bf16, Liger if
installed, the same batch), Unsloth where it imports; peak memory, MFU, and the
planner's estimate against the studio's measured peak. `--only`, `--steps`, `--length`,
`--systems`, `--out` (JSON rows), `--remember` (the studio's speeds into the plan's
speed file, under the Hub id, so a plan for that model on this GPU shows them).
Without CUDA it says so and exits 0.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.plan import catalog  # noqa: E402
from sft_ui.plan.hardware import detect, installed, unsupported  # noqa: E402
from sft_ui.plan.planner import plan  # noqa: E402

BATCH, LENGTH = int(os.environ.get("BENCH_BATCH", 16)), int(os.environ.get("BENCH_LENGTH", 512))
NO_LIGER = dict(use_liger_kernel=False)  # Liger is on by itself where installed: off here
CONFIGS = [
    ("fp32", dict(bf16=False, fp16=False, **NO_LIGER)),
    ("fp16 mixed", dict(bf16=False, fp16=True, **NO_LIGER)),
    ("bf16 mixed (auto)", NO_LIGER),
    ("bf16 + Liger kernels", dict(use_liger_kernel=True)),
    ("bf16 + activation checkpointing", dict(activation_checkpointing=True, **NO_LIGER)),
    ("LoRA r16, bf16 base", dict(use_peft=True, **NO_LIGER)),
    ("QLoRA r16, 4-bit base", dict(use_peft=True, load_in_4bit=True, **NO_LIGER)),
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


# ---- real model sizes ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Case:
    key: str
    model: str   # a listed Hub id: its shipped config.json builds the random model
    mode: str    # "full", "lora" or "qlora"


CASES = (Case("qwen-0.5b-full", "Qwen/Qwen2.5-0.5B-Instruct", "full"),
         Case("qwen-1.5b-lora", "Qwen/Qwen2.5-1.5B-Instruct", "lora"),
         Case("llama-3b-lora", "meta-llama/Llama-3.2-3B-Instruct", "lora"),
         Case("llama-8b-qlora", "meta-llama/Llama-3.1-8B-Instruct", "qlora"))
SYSTEMS = ("studio", "trl", "unsloth")
EFFECTIVE_BATCH = 16
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                   "chat_template.jinja", "vocab.json", "merges.txt")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[2])
    parser.add_argument("--only", default="", help="comma-separated case keys (default all)")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--length", type=int, default=1024)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--out", default="", help="write the rows as JSON here")
    parser.add_argument("--work", default="", help="folder for models and data (default: temp)")
    parser.add_argument("--remember", action="store_true")
    return parser.parse_args(argv)


def selected(args) -> list[Case]:
    keys = [k.strip() for k in args.only.split(",") if k.strip()]
    unknown = set(keys) - {c.key for c in CASES}
    if unknown:
        raise SystemExit(f"Unknown cases: {', '.join(sorted(unknown))}; known: "
                         f"{', '.join(c.key for c in CASES)}")
    return [c for c in CASES if not keys or c.key in keys]


def run_config(case: Case, args, data_file: Path, model_path: str = "") -> RunConfig:
    """The studio's settings of a case (batch and checkpointing before the fit)."""
    return RunConfig.from_dict({
        "model_name_or_path": model_path or case.model, "dataset_name": str(data_file),
        "max_length": args.length, "max_steps": args.steps, "sample_steps": 0,
        "logging_steps": 1, "save_strategy": "no", "per_device_train_batch_size": 4,
        "gradient_accumulation_steps": EFFECTIVE_BATCH // 4,
        "use_peft": case.mode != "full", "load_in_4bit": case.mode == "qlora"})


def random_model_folder(model: str, root: Path, tokenizer_dir: Path | None = None) -> Path:
    """A folder with the listed model's shipped config.json and the default tokenizer;
    `materialize` adds random weights (on the GPU)."""
    folder = Path(root) / model.split("/")[-1]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(catalog.shipped_config(model), indent=2))
    if tokenizer_dir is None:
        from sft_ui.models import prepare_default_model
        tokenizer_dir = prepare_default_model()
    for name in TOKENIZER_FILES:
        if (Path(tokenizer_dir) / name).exists():
            shutil.copy(Path(tokenizer_dir) / name, folder / name)
    return folder


def materialize(folder: Path, device: str = "cuda") -> None:
    """Random bf16 weights, built on the GPU and saved once."""
    if (folder / "model.safetensors").exists() or \
            (folder / "model.safetensors.index.json").exists():
        return
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    config = AutoConfig.from_pretrained(folder)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.save_pretrained(folder)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()


def write_data(path: Path, rows: int, length: int) -> int:
    """Plain-text rows longer than `length` tokens (cut at max_length: every row full)."""
    words = " ".join(f"word{i}" for i in range(length))
    Path(path).write_text("".join(json.dumps({"text": f"{i} {words}"}) + "\n"
                                  for i in range(rows)))
    return rows


def flops_per_token(cfg: RunConfig, length: int) -> float:
    """Training FLOPs per token: 6 x the matmul weights for full fine-tuning, 4 x for
    LoRA (no weight gradients of the frozen base), plus attention's 12 x layers x
    hidden x length."""
    from sft_ui.plan.shape import model_shape
    shape = model_shape(cfg.model_name_or_path)
    weights = shape.params() - (0 if shape.tied else shape.vocab * shape.hidden)
    return (4 if cfg.use_peft else 6) * weights + 12 * shape.layers * shape.hidden * length


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("Skipped: no CUDA GPU on this machine (the real-size table needs one).")
        return 0
    from sft_ui.plan import modes
    from sft_ui.plan.memory import available_memory
    from sft_ui.plan.shape import model_shape
    hw, work = detect(), Path(args.work or tempfile.mkdtemp(prefix="sft-gpu-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    data = work / "rows.jsonl"
    write_data(data, rows=4 * EFFECTIVE_BATCH * args.steps, length=args.length)
    peak_flops = bf16_matmul_flops()
    print(f"Machine: {hw.describe()}; bf16 matmul {peak_flops / 1e12:.0f} TFLOP/s measured; "
          f"rows of {args.length} tokens, {args.steps} steps, effective batch "
          f"{EFFECTIVE_BATCH}; Liger {'installed' if installed('liger_kernel') else 'absent'}",
          flush=True)
    print("\n| case | system | batch x accum, checkpointing | tokens/s | MFU | peak | "
          "estimate (error) |\n|---|---|---|---|---|---|---|")
    rows = []
    for case in selected(args):
        folder = random_model_folder(case.model, work / "models")
        materialize(folder)
        cfg = run_config(case, args, data, str(folder))
        fit = modes.fit_mode(cfg, case.mode, model_shape(str(folder)), hw,
                             available_memory(hw))
        if not fit.fits:
            print(f"| {case.key} | - | not run: {fit.reason} | | | | |", flush=True)
            continue
        cfg = dataclasses.replace(cfg, **fit.changes)
        estimate = plan(cfg)["memory"]["total"]
        for system in [s.strip() for s in args.systems.split(",") if s.strip()]:
            got = measure_system(system, cfg)
            row = {"case": case.key, "model": case.model, "mode": case.mode,
                   "system": system, "batch": cfg.per_device_train_batch_size,
                   "accumulation": cfg.gradient_accumulation_steps,
                   "checkpointing": cfg.activation_checkpointing, **got}
            setup = (f"{row['batch']} x {row['accumulation']}, "
                     f"{'on' if row['checkpointing'] else 'off'}")
            if "error" in got:
                print(f"| {case.key} | {system} | {setup} | not run: {got['error']} | | | |")
                rows.append(row)
                continue
            speed, peak = got["tokens_per_second"], got["peak"]
            row["mfu"] = flops_per_token(cfg, args.length) * speed / peak_flops
            row["estimate"] = estimate if system == "studio" else None
            error = f"{estimate / 2**30:.1f} GiB ({(estimate - peak) / peak:+.0%})" \
                if system == "studio" else ""
            print(f"| {case.key} | {system} | {setup} | {speed:,.0f} | {row['mfu']:.2f} | "
                  f"{peak / 2**30:.1f} GiB | {error} |", flush=True)
            rows.append(row)
            if args.remember and system == "studio":
                from sft_ui.plan.speed import remember, speed_key
                key = speed_key(dataclasses.replace(cfg, model_name_or_path=case.model), hw)
                remember(key, {"tokens_per_second": speed, "measured": time.time(),
                                "from": "bench_gpu"})
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


def measure_system(system: str, cfg: RunConfig) -> dict:
    """One training in a child process: {"tokens_per_second", "peak"} or {"error"}."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("bench_gpu_train.py")),
                           system, json.dumps(cfg.to_dict())], capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"error": tail[0][:300]}
    return json.loads(lines[-1])


if __name__ == "__main__":
    sys.exit(main())
