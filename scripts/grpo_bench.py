"""GRPO on the default model, offline: does the built-in arithmetic set teach the JSON
answer form, and how far does correctness go?

1. On 50 held-out problems (data/grpo_demo.py's held_out_problems: no training row asks
   one), the base model's greedy replies: the format reward (json_answer's mean) and the
   exact-match share;
2. GRPO through the studio's engine on "demo-grpo" with the settings given (default:
   json_answer + exact_match, 8 answers per prompt, answers of up to 32 tokens, full
   fine-tuning at 1e-5, --steps steps), the logged reward per step;
3. the same held-out figures for the trained model, and the wall time of training.

Prints the machine, its load average, the reward curve, the table and the times. Every
figure but the times is the same run to run for a seed on one machine.

    .venv/bin/python scripts/grpo_bench.py [--steps 40] [--lr 1e-5] [--lora]
        [--generations 8] [--max-completion 32] [--batch N] [--accumulation 1] [--keep]

(--batch: Batch size per device, by default the generations: one prompt's answers a
step; the page's GRPO defaults are --lora --lr 5e-5 --generations 4 --max-completion 64
--batch 4 --accumulation 2, what Continue fills in after an SFT run with LoRA.)
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.data.grpo_demo import held_out_problems  # noqa: E402
from sft_ui.models import resolve_model  # noqa: E402
from sft_ui.plan.hardware import detect  # noqa: E402
from sft_ui.rewards.builtin import make_reward  # noqa: E402
from sft_ui.train.engine import train  # noqa: E402
from sft_ui.train.events import NullSink  # noqa: E402


class Curve(NullSink):
    def __init__(self):
        super().__init__()
        self.rows = []

    def add_metrics(self, record):
        if "reward" in record:
            self.rows.append(record)
            print(f"  step {record['step']:3d}  reward {record['reward']:.3f}  "
                  f"json {record.get('rewards/json_answer/mean', float('nan')):.3f}  "
                  f"exact {record.get('rewards/exact_match/mean', float('nan')):.3f}  "
                  f"no-spread {record.get('frac_reward_zero_std', float('nan')):.2f}",
                  flush=True)


def held_out_scores(model_path: str, problems: list[dict], max_new_tokens: int) -> dict:
    """Greedy replies to the held-out problems: the format reward's mean and the
    exact-match share."""
    import torch

    from sft_ui.models import load_model_and_tokenizer
    model, tokenizer = load_model_and_tokenizer(model_path, False)
    model.eval()
    tokenizer.padding_side = "left"
    texts = [tokenizer.apply_chat_template(p["prompt"], tokenize=False,
                                           add_generation_prompt=True) for p in problems]
    enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    with torch.no_grad():
        out = model.generate(**enc, do_sample=False, max_new_tokens=max_new_tokens,
                             pad_token_id=tokenizer.pad_token_id)
    replies = tokenizer.batch_decode(out[:, enc["input_ids"].shape[1]:],
                                     skip_special_tokens=True)
    answers = [p["answer"] for p in problems]
    fmt = make_reward("json_answer", {})(completions=replies)
    exact = make_reward("exact_match", {})(completions=replies, answer=answers)
    return {"format": sum(fmt) / len(fmt), "exact": sum(e or 0 for e in exact) / len(exact),
            "example": replies[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--lr", type=float, default=1e-5)
    ap.add_argument("--lora", action="store_true")
    ap.add_argument("--generations", type=int, default=8)
    ap.add_argument("--max-completion", type=int, default=32)
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--accumulation", type=int, default=1)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    print(f"Machine: {detect().describe()}; load average {os.getloadavg()[0]:.1f}")
    work = Path(tempfile.mkdtemp(prefix="grpo-bench-"))
    cfg = RunConfig.from_dict({
        "stage": "grpo", "dataset_name": "demo-grpo", "max_steps": args.steps,
        "per_device_train_batch_size": args.batch or args.generations,
        "gradient_accumulation_steps": args.accumulation,
        "num_generations": args.generations, "max_completion_length": args.max_completion,
        "learning_rate": args.lr, "use_peft": args.lora, "seed": args.seed,
        "rewards": ["json_answer", "exact_match"], "logging_steps": 1,
        "save_strategy": "no"})
    problems = held_out_problems(args.seed, 50)
    start = time.time()
    base = held_out_scores(str(resolve_model(cfg.model_name_or_path)), problems,
                           args.max_completion)
    print(f"Base: format {base['format']:.2f}, exact {base['exact']:.2f} "
          f"({time.time() - start:.0f} s); e.g. {base['example']!r}")
    curve = Curve()
    start = time.time()
    out = train(cfg, work / "run", curve)
    trained_for = time.time() - start
    tuned = held_out_scores(str(out), problems, args.max_completion)
    print(f"Tuned: format {tuned['format']:.2f}, exact {tuned['exact']:.2f}; "
          f"e.g. {tuned['example']!r}")
    rows = curve.rows
    print("\n| model | held-out format reward | held-out exact | train time |")
    print("|---|---|---|---|")
    print(f"| base | {base['format']:.2f} | {base['exact']:.2f} | - |")
    print(f"| GRPO {args.steps} steps | {tuned['format']:.2f} | {tuned['exact']:.2f} | "
          f"{trained_for:.0f} s |")
    if rows:
        first = sum(r["reward"] for r in rows[:5]) / len(rows[:5])
        last = sum(r["reward"] for r in rows[-5:]) / len(rows[-5:])
        print(f"Training reward: first 5 steps {first:.2f}, last 5 steps {last:.2f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
