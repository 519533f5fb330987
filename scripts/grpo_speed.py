"""The studio's GRPO step time against a bare GRPOTrainer script with the same settings.

Each side runs in a fresh Python process, the sides interleaved (bare, studio, bare,
studio, ...) so that a change in the machine's load falls on both:

- bare: TRL's GRPOTrainer alone, given what a careful script would give it: the same
  model and tokenizer, the demo-grpo prompts, the built-in reward functions and the same
  GRPOConfig (output, logging, seed);
- studio: the studio's engine (train/engine.py), with its callbacks, its sink and its
  samples table.

Prints seconds per step (train_runtime over the steps; loading is not counted), the
tokens it wrote and the mean reward of each side and round, then the studio's time over
the bare one's. Run it on an otherwise idle machine.

    .venv/bin/python scripts/grpo_speed.py [--rounds 2] [--steps 4] [--generations 8]
        [--max-completion 32]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.bench_sides import STUDIO_SIDE  # noqa: E402
from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.plan.hardware import detect  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

SIDE = """
import json, sys, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
from sft_ui.config import RunConfig
cfg = RunConfig.from_dict(json.loads({cfg!r}))
out = Path(tempfile.mkdtemp())
if {side!r} == "bare":
    from sft_ui.lazy import trl_class
    from sft_ui.models import load_model_and_tokenizer, resolve_model
    from sft_ui.rewards.builtin import make_reward
    from sft_ui.stages import stage_of
    from sft_ui.train.grpo import prompt_rows, reward_options, training_arguments
    model, tokenizer = load_model_and_tokenizer(resolve_model(cfg.model_name_or_path))
    train_set, _, _, _ = prompt_rows(cfg)
    rewards = [make_reward(name, reward_options(cfg)) for name in cfg.rewards]
    trainer = trl_class(*stage_of(cfg).trainer)(
        model=model, reward_funcs=rewards, args=training_arguments(cfg, out, False),
        train_dataset=train_set, processing_class=tokenizer)
    trainer.train()
    history = trainer.state.log_history
else:
{studio}
steps = [r for r in history if "reward" in r]
print(json.dumps({{"runtime": next(r["train_runtime"] for r in history if "train_runtime" in r),
                  "steps": len(steps), "tokens": max(r.get("num_tokens", 0) for r in history),
                  "reward": sum(r["reward"] for r in steps) / max(1, len(steps))}}))
"""


def side(cfg: RunConfig, which: str) -> dict:
    """{"runtime", "steps", "tokens", "reward"} of one side in a fresh process."""
    code = SIDE.format(root=str(ROOT), cfg=json.dumps(cfg.to_dict()), side=which,
                       studio=textwrap.indent(STUDIO_SIDE, "    "))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "TRL_EXPERIMENTAL_SILENCE": "1"})
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--generations", type=int, default=8)
    ap.add_argument("--max-completion", type=int, default=32)
    args = ap.parse_args()
    print(f"Machine: {detect().describe()}; load average {os.getloadavg()[0]:.1f}")
    cfg = RunConfig.from_dict({
        "stage": "grpo", "dataset_name": "demo-grpo", "max_steps": args.steps,
        "per_device_train_batch_size": args.generations, "gradient_accumulation_steps": 1,
        "num_generations": args.generations, "max_completion_length": args.max_completion,
        "learning_rate": 1e-5, "use_peft": False, "rewards": ["json_answer", "exact_match"],
        "logging_steps": 1, "save_strategy": "no", "sample_steps": 0})
    per_step = {"bare": [], "studio": []}
    print("| round | side | s/step | tokens | mean reward |")
    print("|---|---|---:|---:|---:|")
    for k in range(args.rounds):
        for which in ("bare", "studio"):
            got = side(cfg, which)
            per_step[which].append(got["runtime"] / max(1, got["steps"]))
            print(f"| {k + 1} | {which} | {per_step[which][-1]:.1f} | {got['tokens']} | "
                  f"{got['reward']:.3f} |", flush=True)
    ratios = [s / b for b, s in zip(per_step["bare"], per_step["studio"])]
    print(f"\nStudio time per step over bare, by round: "
          f"{', '.join(f'{r:.2f}' for r in ratios)} (median {statistics.median(ratios):.2f}; "
          "below 1: the studio is faster)")
    print(f"Load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
