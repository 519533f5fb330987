"""Does the preference show in what the model writes? DPO from the default model on pairs
whose chosen answer is a form the model does not write yet (a JSON object
{"answer": ...}) and whose rejected answer is the plain sentence it writes, offline:

1. the data check (data/likelihood.py): the chosen and rejected answers' log-probability
   per token under the starting model;
2. DPO with its own loss (loss_type sigmoid) and with the studio's choice (loss_type
   auto: the check adds the SFT term on the chosen answers), the same steps and
   settings (LoRA, beta 0.1, batch 4 x accumulation 2) at a learning rate each
   (--runs loss_type:rate,...; default sigmoid and auto at DPO's 5e-5);
3. on held-out prompts no pair asks (scripts/preference_bench.py's), greedy replies of
   the base model and each trained one: the share in the chosen form (a JSON object with
   an "answer" key), the share of those whose answer is in the plain reference answer
   (right), and the share that repeat themselves (a 3-word phrase 3 times).

    .venv/bin/python scripts/preference_form.py [--steps 30] [--show-replies]
    .venv/bin/python scripts/preference_form.py --minutes 5

About 10 minutes on a 2-core CPU; docs/preference.md has the figures. With --minutes,
the studio's own choices instead: DPO of the pairs with that time budget and nothing
else, in a fresh process as a person starts it (its held-out pairs judge the run by
their margin and keep the best model: stages/preference.py).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.preference_bench import held_out, replies, train_stage  # noqa: E402
from sft_ui.config.fields import DEFAULT_MODEL_ID  # noqa: E402
from sft_ui.data import likelihood  # noqa: E402
from sft_ui.data.demo import CAPITALS, COLOURS, LEGS  # noqa: E402
from sft_ui.models import load_model_and_tokenizer, resolve_model  # noqa: E402


def pairs() -> list[dict]:
    """The demo's questions with a JSON answer chosen and the plain sentence rejected."""
    asked = [(f"What is the capital of {c}?", a, f"The capital of {c} is {a}.")
             for c, a in CAPITALS.items()]
    asked += [(f"How many legs does a {b} have?", n, f"A {b} has {n} legs.")
              for b, n in LEGS.items()]
    asked += [(f"What colour is {t}?", c, f"{t[0].upper()}{t[1:]} is {c}.")
              for t, c in COLOURS.items()]
    return [{"prompt": [{"role": "user", "content": q}],
             "chosen": [{"role": "assistant", "content": json.dumps({"answer": a})}],
             "rejected": [{"role": "assistant", "content": plain}]} for q, a, plain in asked]


def judged(reply: str, plain: str) -> tuple[bool, bool, bool]:
    """(in the chosen form, its answer right, repeating itself)."""
    text = reply.strip().strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text[:text.rfind("}") + 1]) if text.startswith("{") else None
    except ValueError:
        value = None
    form = isinstance(value, dict) and isinstance(value.get("answer"), (str, int, float))
    right = form and str(value["answer"]).strip().lower() in plain.lower() and \
        bool(str(value["answer"]).strip())
    words = reply.split()
    grams = [" ".join(words[i:i + 3]) for i in range(len(words) - 2)]
    repeats = any(grams.count(g) >= 3 for g in set(grams))
    return form, right, repeats


def score(path: str, answers: dict[str, str], max_new_tokens: int) -> dict:
    model, tokenizer = load_model_and_tokenizer(path)
    model.eval()
    said = replies(model, tokenizer, list(answers), max_new_tokens)
    marks = [judged(r, plain) for r, plain in zip(said, answers.values())]
    return {"form": sum(m[0] for m in marks), "right": sum(m[1] for m in marks),
            "repeats": sum(m[2] for m in marks), "n": len(marks), "replies": said}


def budgeted(minutes: float, max_new_tokens: int) -> int:
    """The studio's choices for DPO of the pairs in `minutes`, against the base model."""
    from scripts.bench_text import side
    root = Path(tempfile.mkdtemp(prefix="preference-form-"))
    data = root / "json_pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in pairs()))
    answers = held_out()
    base = score(resolve_model(DEFAULT_MODEL_ID), answers, max_new_tokens)
    print(f"base: {base['form']}/{base['n']} in the chosen form, {base['right']} right",
          flush=True)
    ran = side("studio", minutes, data, root, {"stage": "dpo"})
    log = (Path(ran["run"]) / "train.log").read_text()
    print(json.dumps(ran), "\n" + "\n".join(line for line in log.splitlines()
                                              if "Held-out" in line or "Kept" in line))
    found = score(str(Path(ran["run"]) / "model"), answers, max_new_tokens)
    print(f"studio, {minutes:g} min: {found['form']}/{found['n']} in the chosen form, "
          f"{found['right']} right, {found['repeats']} repeating")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--runs", default="sigmoid:5e-5,auto:5e-5",
                        help="the DPO runs, loss_type:learning_rate each, comma-separated")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--show-replies", action="store_true")
    parser.add_argument("--minutes", type=float, default=0.0)
    args = parser.parse_args()
    if args.minutes:
        return budgeted(args.minutes, args.max_new_tokens)
    started = time.time()
    rows, answers = pairs(), held_out()
    root = Path(tempfile.mkdtemp(prefix="preference-form-"))
    data = root / "json_pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    base = resolve_model(DEFAULT_MODEL_ID)
    model, tokenizer = load_model_and_tokenizer(base)
    found = likelihood.measure(model, tokenizer, rows)
    del model
    print(f"{len(rows)} pairs, {len(answers)} held-out prompts. Data check: {found.sentence()}")
    settings = {"dataset_name": str(data), "use_peft": True, "learning_rate": 5e-5,
                "beta": 0.1, "per_device_train_batch_size": 4,
                "gradient_accumulation_steps": 2, "max_steps": args.steps,
                "max_length": 256, "sample_steps": 0, "logging_steps": 1, "seed": 42}
    table = [("base", "-", score(base, answers, args.max_new_tokens))]
    for run in args.runs.split(","):
        loss, rate = run.split(":")
        name = f"dpo ({loss}, {rate})" + (", the studio's choice" if loss == "auto" else "")
        folder, records, seconds = train_stage("dpo", {**settings, "loss_type": loss,
                                                       "learning_rate": float(rate)},
                                               root / f"{loss}-{rate}")
        accuracy = [r["rewards/accuracies"] for r in records if "rewards/accuracies" in r]
        table.append((name, f"{seconds:.0f} s, reward accuracy {accuracy[-1]:.2f}",
                      score(str(folder), answers, args.max_new_tokens)))
    print("\n| model | training | replies in the chosen form | right | repeating |\n"
          "|---|---|---|---|---|")
    for name, trained, s in table:
        print(f"| {name} | {trained} | {s['form']}/{s['n']} | {s['right']}/{s['n']} | "
              f"{s['repeats']}/{s['n']} |")
    if args.show_replies:
        for name, _, s in table:
            print(f"\n{name}:")
            for prompt, reply in zip(answers, s["replies"]):
                print(f"  {prompt!r} -> {reply.strip()[:90]!r}")
    print(f"\nwall time {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
