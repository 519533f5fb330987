"""GRPO's planned peak memory against the measured one, on a CUDA GPU (or this CPU).

For each case, a listed model's shape with random bf16 weights (scripts/bench_gpu.py's
random_model_folder: nothing downloaded; random weights never end an answer early, so
every answer runs to Max completion length: the plan's upper bound) trains GRPO through
the studio's engine on "demo-grpo" for --steps steps in a process of its own
(scripts/bench_gpu_train.py: the allocator's peak plus the CUDA context); beside it the
plan's peak (plan/memory.py with plan/rollouts.py: the prompt measured in the data, the
longest answer, the answers' KV cache), its parts, and the tokens/s the run logged.

    python scripts/grpo_gpu_plan.py [--steps 3] [--only qwen05-lora-long,...]
        [--tokenizer FOLDER]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.bench_gpu import materialize, measure_system, random_model_folder  # noqa: E402
from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.plan.hardware import detect  # noqa: E402
from sft_ui.plan.memory import size_text  # noqa: E402
from sft_ui.plan.planner import plan_with_data  # noqa: E402

# key: (listed model, LoRA, batch, accumulation, answers per prompt, max completion length)
CASES = {
    "smol-full-short": ("HuggingFaceTB/SmolLM2-135M-Instruct", False, 8, 2, 8, 128),
    # the page's GRPO defaults after a LoRA SFT run, and with full fine-tuning (a CPU's)
    "smol-lora-page": ("HuggingFaceTB/SmolLM2-135M-Instruct", True, 4, 2, 4, 64),
    "smol-full-page": ("HuggingFaceTB/SmolLM2-135M-Instruct", False, 4, 2, 4, 64),
    "smol-full-long": ("HuggingFaceTB/SmolLM2-135M-Instruct", False, 8, 4, 8, 1024),
    "qwen05-lora-long": ("Qwen/Qwen2.5-0.5B-Instruct", True, 8, 8, 8, 1024),
    "qwen05-full-short": ("Qwen/Qwen2.5-0.5B-Instruct", False, 16, 1, 8, 256),
    "qwen15-lora-long": ("Qwen/Qwen2.5-1.5B-Instruct", True, 4, 16, 8, 1024),
}


def settings(model_dir: Path, lora: bool, batch: int, accumulation: int, generations: int,
             completion: int, steps: int) -> RunConfig:
    return RunConfig.from_dict({
        "model_name_or_path": str(model_dir), "stage": "grpo", "dataset_name": "demo-grpo",
        "use_peft": lora, "learning_rate": 5e-5 if lora else 5e-6,
        "per_device_train_batch_size": batch, "gradient_accumulation_steps": accumulation,
        "num_generations": generations, "max_completion_length": completion,
        "max_steps": steps, "logging_steps": 1, "save_strategy": "no",
        "rewards": ["json_answer"], "use_liger_kernel": False})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3)  # (a speed needs 2 logs)
    parser.add_argument("--only", default="", help="case keys, comma-separated")
    parser.add_argument("--tokenizer", default=None,
                        help="a folder with the default model's tokenizer (default: prepared)")
    args = parser.parse_args(argv)
    hw = detect()
    print(f"{hw.name} ({hw.device}), {time.strftime('%Y-%m-%d')}")
    root = Path(tempfile.mkdtemp(prefix="grpo-gpu-plan-"))
    keys = [k for k in args.only.split(",") if k] or list(CASES)
    print("| case | plan | measured | plan / measured | plan's parts | tokens/s |\n"
          "|---|---:|---:|---:|---|---:|")
    for key in keys:
        model, lora, batch, accumulation, generations, completion = CASES[key]
        folder = random_model_folder(model, root, args.tokenizer)
        materialize(folder, hw.device)
        cfg = settings(folder, lora, batch, accumulation, generations, completion, args.steps)
        planned = plan_with_data(cfg)["memory"]
        parts = ", ".join(f"{k} {size_text(v)}" for k, v in planned.items() if k != "total")
        got = measure_system("studio", cfg)
        if "error" in got:
            print(f"| {key} | {size_text(planned['total'])} | {got['error']} | | {parts} | |")
            continue
        print(f"| {key} | {size_text(planned['total'])} | {size_text(got['peak'])} | "
              f"{planned['total'] / got['peak']:.2f} | {parts} | "
              f"{got['tokens_per_second']:,.0f} |", flush=True)
    print(json.dumps({"cases": keys, "steps": args.steps}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
