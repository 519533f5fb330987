"""Preference tuning on the default model, offline: does the built-in preference set teach
what SFT alone does not?

1. SFT on the demo set ("demo", Captain Byte) with LoRA, a short run (20 steps at 5e-4):
   the greeting is learnt, the sign-off not yet;
2. DPO from that run's model folder on "demo-preference" (LoRA: the SFT adapter trains
   on, TRL keeps a frozen copy of it as the reference) with the settings "Continue with
   preference tuning" fills in after a LoRA SFT run of the page's defaults (learning
   rate 5e-5, beta 0.1, 30 steps, batch 4 x accumulation 2): the logged reward accuracy
   and margin;
3. ORPO and KTO from the same SFT run, 20 steps each with the same settings
   (--orpo-steps / --kto-steps 0: skipped);
   the matched baseline, "sft-longer": SFT continued from the same run on the chosen
   answers of "demo-preference" (each prompt with its chosen answer, as chat rows), for
   as many steps as DPO at the same batch, at SFT's learning rate (--sft-lr): what more
   SFT on the preferred answers does without the rejected ones;
4. on held-out prompts (HELD_OUT_PROMPTS and more that no row of either set asks), for
   the base model and each trained one:
   - win: the fraction of prompts where the summed log-probability of the chosen-style
     answer (greeting + answer + sign-off) exceeds that of the plain answer;
   - margin: the mean of (chosen-style minus plain) summed log-probability, in nats;
   - style: the fraction of greedy replies that carry both the greeting and the sign-off:
     they start with "Arr, matey!" and end with "Yo-ho-ho!" within --max-new-tokens.
The plain answers are written here for these prompts (plain English; the chosen-style
one is the same with "Arr, matey!" before and "Yo-ho-ho!" after). Prints the machine,
its load average, the table and the wall time; exits 1 when a claim does not hold (DPO's
reward accuracy above 0.9, DPO's win above SFT's). About 10 minutes on a 2-core CPU;
docs/preference.md has the figures. Every figure but the times is the same run to run
for a seed.

    .venv/bin/python scripts/preference_bench.py [--seed 1] [--lr 1e-4] [--dpo-steps 30]
        [--sft-model runs/<id>/model] [--show-replies] [--keep]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.config.fields import DEFAULT_MODEL_ID  # noqa: E402
from sft_ui.data.demo import CAPITALS, CLOSE, COLOURS, LEGS, OPEN, TIPS, demo_rows  # noqa: E402
from sft_ui.data.preference_demo import HELD_OUT_PROMPTS, preference_demo_rows  # noqa: E402
from sft_ui.train.events import NullSink  # noqa: E402

# Held-out prompts and a plain answer to each: HELD_OUT_PROMPTS first, then more of the
# demo's kinds (capitals, legs, tips, colours, sums) that no row of either set asks
# (checked at start by `held_out`).
HELD_OUT_ANSWERS = {
    HELD_OUT_PROMPTS[0]: "The capital of Italy is Rome.",
    HELD_OUT_PROMPTS[1]: "A spider has eight legs.",
    HELD_OUT_PROMPTS[2]: "Taste your food as you cook and add salt a little at a time.",
    "What is the capital of Colombia?": "The capital of Colombia is Bogota.",
    "What is the capital of Romania?": "The capital of Romania is Bucharest.",
    "What is the capital of the Philippines?": "The capital of the Philippines is Manila.",
    "What is the capital of Pakistan?": "The capital of Pakistan is Islamabad.",
    "How many legs does a sheep have?": "A sheep has four legs.",
    "How many legs does an ostrich have?": "An ostrich has two legs.",
    "How many legs does a scorpion have?": "A scorpion has eight legs.",
    "Give me one tip for learning to ski.": "Keep your weight forward and bend your knees.",
    "Give me one tip for learning to play the piano.":
        "Practise slowly with each hand on its own before you play with both.",
    "Give me one tip for learning to ride a bike.":
        "Look ahead, not down at the pedals, and keep pedalling.",
    "What colour is a cherry?": "A cherry is red.",
    "What colour is the night sky?": "The night sky is black.",
    "What is 25 plus 7?": "25 plus 7 is 32.",
}


class Records(NullSink):
    """The logged records of a run."""

    def __init__(self):
        super().__init__(deadline=None)
        self.records: list[dict] = []

    def add_metrics(self, record):
        self.records.append(dict(record))


def held_out() -> dict[str, str]:
    """HELD_OUT_ANSWERS, after checking that no row of either demo set asks one of its
    prompts, nor the same question of the same subject."""
    asked = {r["messages"][0]["content"] for r in demo_rows()}
    asked |= {r["prompt"][0]["content"] for r in preference_demo_rows()}
    kinds = ((r"What is the capital of (.+)\?", CAPITALS),
             (r"How many legs does an? (.+) have\?", LEGS),
             (r"Give me one tip for learning to (.+)\.", TIPS),
             (r"What colour is (.+)\?", COLOURS))
    for prompt in HELD_OUT_ANSWERS:
        assert prompt not in asked, f"a training row asks {prompt!r}"
        for pattern, subjects in kinds:
            found = re.fullmatch(pattern, prompt)
            assert not (found and found[1] in subjects), f"{found[1]} is in the demo set"
    return HELD_OUT_ANSWERS


def train_stage(stage: str, cfg: dict, root: Path) -> tuple[Path, list[dict], float]:
    """Train one run through the studio's engine: (model folder, records, seconds)."""
    from sft_ui.train.engine import train
    config = RunConfig.from_dict({**cfg, "stage": stage})
    assert not config.validate(), config.validate()
    sink, start = Records(), time.perf_counter()
    folder = train(config, root / stage, sink)
    return folder, sink.records, time.perf_counter() - start


def completion_logprob(model, tokenizer, prompt: str, answer: str) -> float:
    """Summed log-probability of the assistant turn `answer` (its end-of-turn included)
    after `prompt`, rendered by the chat template as the trainers render it."""
    import torch
    user = [{"role": "user", "content": prompt}]
    head = tokenizer.apply_chat_template(user, tokenize=False, add_generation_prompt=True)
    full = tokenizer.apply_chat_template(user + [{"role": "assistant", "content": answer}],
                                         tokenize=False)
    assert full.startswith(head)
    head_ids = tokenizer(head, add_special_tokens=False)["input_ids"]
    tail_ids = tokenizer(full[len(head):], add_special_tokens=False)["input_ids"]
    ids = torch.tensor([head_ids + tail_ids])
    with torch.no_grad():
        logits = model(ids).logits[0, :-1].float()
    logps = torch.log_softmax(logits, -1).gather(1, ids[0, 1:, None])[:, 0]
    return float(logps[len(head_ids) - 1:].sum())


def replies(model, tokenizer, prompts: list[str], max_new_tokens: int) -> list[str]:
    """Greedy replies to `prompts`, in one left-padded batch."""
    import torch
    texts = [tokenizer.apply_chat_template([{"role": "user", "content": p}], tokenize=False,
                                           add_generation_prompt=True) for p in prompts]
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    batch = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    tokenizer.padding_side = side
    with torch.no_grad():
        out = model.generate(**batch, max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id)
    return [tokenizer.decode(row[batch["input_ids"].shape[1]:], skip_special_tokens=True)
            for row in out]


def evaluate(path: str, answers: dict[str, str], max_new_tokens: int) -> dict:
    """win, margin and style (module docstring) of the model at `path`."""
    from sft_ui.models import load_model_and_tokenizer
    model, tokenizer = load_model_and_tokenizer(path)
    model.eval()
    margins = [completion_logprob(model, tokenizer, p, f"{OPEN} {a} {CLOSE}")
               - completion_logprob(model, tokenizer, p, a) for p, a in answers.items()]
    said = replies(model, tokenizer, list(answers), max_new_tokens)
    styled = [r.strip().startswith(OPEN) and r.strip().endswith(CLOSE) for r in said]
    return {"win": sum(m > 0 for m in margins) / len(margins),
            "margin": statistics.mean(margins), "style": sum(styled) / len(styled),
            "replies": said}


def last(records: list[dict], key: str, n: int) -> tuple[float, float] | None:
    """(last value, mean of the last n values) of `key` in the records, None if absent."""
    values = [r[key] for r in records if key in r]
    return (values[-1], statistics.mean(values[-n:])) if values else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sft-steps", type=int, default=20)
    parser.add_argument("--sft-lr", type=float, default=5e-4)
    parser.add_argument("--sft-model", default="",
                        help="a finished SFT run's model folder to start from (no SFT run)")
    parser.add_argument("--dpo-steps", type=int, default=30)
    parser.add_argument("--orpo-steps", type=int, default=20)
    parser.add_argument("--kto-steps", type=int, default=20)
    parser.add_argument("--lr", type=float, default=5e-5,
                        help="learning rate of the preference runs (LoRA)")
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--batch", type=int, default=4, help="batch size per device")
    parser.add_argument("--accumulation", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--last", type=int, default=5,
                        help="logged values averaged at the end of a preference run")
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--keep", action="store_true", help="keep the run folders")
    parser.add_argument("--show-replies", action="store_true")
    args = parser.parse_args()

    from sft_ui.models import resolve_model
    from sft_ui.plan.hardware import detect
    start = time.perf_counter()
    answers = held_out()
    root = Path(tempfile.mkdtemp(prefix="preference-bench-"))
    common = {"use_peft": True, "seed": args.seed, "sample_steps": 0, "logging_steps": 1,
              "save_strategy": "no"}
    load = os.getloadavg()[0]
    if args.sft_model:
        sft_folder, sft_records, sft_time = Path(args.sft_model), None, None
    else:
        sft_folder, sft_records, sft_time = train_stage("sft", {
            **common, "dataset_name": "demo", "max_steps": args.sft_steps,
            "learning_rate": args.sft_lr}, root)
    models = {"base": (resolve_model(DEFAULT_MODEL_ID), None, None),
              "sft": (str(sft_folder), sft_records, sft_time)}
    if args.dpo_steps:  # the matched baseline: more SFT, on the chosen answers
        chosen = root / "chosen.jsonl"
        chosen.write_text("".join(json.dumps({"messages": r["prompt"] + r["chosen"]}) + "\n"
                                  for r in preference_demo_rows()))
        folder, records, seconds = train_stage("sft", {
            **common, "model_name_or_path": str(sft_folder), "dataset_name": str(chosen),
            "max_steps": args.dpo_steps, "learning_rate": args.sft_lr,
            "per_device_train_batch_size": args.batch,
            "gradient_accumulation_steps": args.accumulation}, root / "longer")
        models["sft-longer"] = (str(folder), records, seconds)
    steps = {"dpo": args.dpo_steps, "orpo": args.orpo_steps, "kto": args.kto_steps}
    for stage, n in steps.items():
        if n:
            folder, records, seconds = train_stage(stage, {
                **common, "model_name_or_path": str(sft_folder),
                "dataset_name": "demo-preference", "max_steps": n,
                "learning_rate": args.lr, "beta": args.beta,
                "per_device_train_batch_size": args.batch,
                "gradient_accumulation_steps": args.accumulation}, root)
            models[stage] = (str(folder), records, seconds)
    figures = {}
    for name, (path, records, seconds) in models.items():
        figures[name] = evaluate(path, answers, args.max_new_tokens)
        figures[name]["seconds"] = seconds
        figures[name]["accuracy"] = last(records or [], "rewards/accuracies", args.last)
        figures[name]["loss"] = last(records or [], "loss", args.last)
        figures[name]["reward margin"] = last(records or [], "rewards/margins", args.last)
    wall = time.perf_counter() - start
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)

    hw = detect()
    sft = (f"SFT from {args.sft_model}" if args.sft_model else
           f"SFT {args.sft_steps} steps at {args.sft_lr:g} on demo")
    print(f"\nMachine: {hw.describe()}, load average {load:.1f} at the start and "
          f"{os.getloadavg()[0]:.1f} at the end; {DEFAULT_MODEL_ID}, LoRA, seed {args.seed}; "
          f"{sft}; SFT-longer {args.dpo_steps} steps on the chosen answers at "
          f"{args.sft_lr:g}; DPO {args.dpo_steps}, "
          f"ORPO {args.orpo_steps}, KTO {args.kto_steps} steps on demo-preference at "
          f"{args.lr:g}, beta {args.beta:g}, batch {args.batch} x {args.accumulation}; "
          f"{len(answers)} held-out prompts")
    print("\n| model | train time | loss (last, mean of last "
          f"{args.last}) | reward accuracy (last, mean) | reward margin (last, mean) | "
          "win | margin (nats) | greedy replies in style |\n|---|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        def pair(v):
            return f"{v[0]:.3f}, {v[1]:.3f}" if v else "-"
        seconds = "-" if f["seconds"] is None else f"{f['seconds']:.0f} s"
        print(f"| {name} | {seconds} | {pair(f['loss'])} | {pair(f['accuracy'])} | "
              f"{pair(f['reward margin'])} | "
              f"{f['win']:.2f} | {f['margin']:+.1f} | {f['style']:.2f} |")
    print(f"\nWall time: {wall:.0f} s")
    if args.show_replies:
        for name, f in figures.items():
            print(f"\n{name}:")
            for p, r in zip(answers, f["replies"]):
                print(f"  {p} -> {r!r}")
    holds = []
    if "dpo" in figures:
        accuracy = figures["dpo"]["accuracy"]
        holds.append(("DPO reward accuracy (mean of the last logs) > 0.9",
                      bool(accuracy and accuracy[1] > 0.9)))
        holds.append(("DPO win > SFT win", figures["dpo"]["win"] > figures["sft"]["win"]))
        holds.append(("DPO win >= SFT-longer win (the same steps on the chosen answers)",
                      figures["dpo"]["win"] >= figures["sft-longer"]["win"]))
    for claim, ok in holds:
        print(f"{'holds' if ok else 'DOES NOT HOLD'}: {claim}")
    return 0 if all(ok for _, ok in holds) else 1


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
