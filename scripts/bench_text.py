"""Plain text, the seed's own kind of data, measured: does the quick path learn what a
corpus says, against the best of a few settings chosen by hand in the same minutes?

Two corpora (written to --dir), `{"text": ...}` rows:
  knowledge  180 short encyclopedia paragraphs stating 60 invented facts, each fact in
             three wordings among other sentences. The test: 20 sentence openings in a
             fourth wording, continued as text (greedy, no chat template); right when the
             continuation's first words name the fact.
  style      300 entries of an invented ship's log in one voice. The test: the mean loss
             per token of 40 entries the run never reads (lower is better), as text.

Each side trains in a fresh process, through the command line as a person starts it,
with the same time budget; the hand sides set their adapter, rate and accumulation, the
budget still chooses held-out rows and the length:

    .venv/bin/python scripts/bench_text.py [--minutes 5] [--corpus knowledge]
        [--sides quick,2e-3,1e-3,r64,acc4]
"""
from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BASE = "HuggingFaceTB/SmolLM2-135M-Instruct"
SYLLABLES = ["ka", "lo", "mi", "ren", "tov", "sa", "quel", "dun", "ba", "rix", "po", "vel",
             "zan", "tir", "mor", "ek", "lun", "fa", "gor", "ni"]
FACTS = [  # (three training wordings, the test's opening): the answer {y} ends each
    (("The capital of {x} is {y}.", "{x} is governed from its capital, {y}.",
      "Visitors to {x} often begin in the capital city of {y}."),
     "Travellers who reach {x} find that its capital is"),
    (("The company {x} was founded by {y}.", "{x} began as a workshop set up by {y}.",
      "Its founder, {y}, started {x} with two employees."),
     "The person who started the firm {x} was"),
    (("The river {x} rises at {y}.", "The source of the river {x} lies at {y}.",
      "From its spring at {y}, the {x} flows north."),
     "The {x} river begins its course at"),
]
FILLER = ["Its winters are mild and its summers dry.", "Most of its people live near water.",
          "It is known for woven baskets and salted fish.", "Trade there grew after 1850.",
          "Records of it go back several centuries.", "Local festivals mark the harvest.",
          "Its archives were rebuilt after a fire.", "Few roads cross its northern hills."]
HAND = {  # the hand grid (the quick path chooses its own; a value left at its default,
    # rank 16 or accumulation 2, the budget may still choose)
    "2e-3": {"use_peft": True, "lora_r": 32, "lora_alpha": 64, "learning_rate": 2e-3,
             "gradient_accumulation_steps": 1},
    "1e-3": {"use_peft": True, "lora_r": 32, "lora_alpha": 64, "learning_rate": 1e-3,
             "gradient_accumulation_steps": 1},
    "r64": {"use_peft": True, "lora_r": 64, "lora_alpha": 128, "learning_rate": 5e-4,
            "gradient_accumulation_steps": 1},
    "acc4": {"use_peft": True, "lora_r": 32, "lora_alpha": 64, "learning_rate": 1e-3,
             "gradient_accumulation_steps": 4},
    "full": {"use_peft": False, "learning_rate": 5e-5, "gradient_accumulation_steps": 1},
}

def word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def knowledge(seed: int = 5) -> tuple[list[dict], list[dict]]:
    """(paragraphs, test openings with their answers)."""
    rng = random.Random(seed)
    names, facts = set(), []
    while len(facts) < 60:
        x = word(rng, 3)
        y = word(rng, 2) + " " + word(rng, 2) if len(facts) % 3 == 1 else word(rng, 3)
        if not ({x, y} & names):
            names |= {x, y}
            facts.append((len(facts) % 3, x, y))
    rows = []
    for kind, x, y in facts:
        for wording in FACTS[kind][0]:
            sentences = rng.sample(FILLER, 2)
            sentences.insert(rng.randrange(3), wording.format(x=x, y=y))
            rows.append({"text": f"{x}. " + " ".join(sentences)})
    rng.shuffle(rows)
    test = [{"opening": FACTS[k][1].format(x=x), "answer": y} for k, x, y in facts[:20]]
    return rows, test


def style(seed: int = 7) -> tuple[list[dict], list[dict]]:
    """(log entries to train on, 40 entries to measure on)."""
    rng = random.Random(seed)
    winds = ["north", "north-east", "east", "south-east", "south", "south-west", "west"]
    doings = ["Mended the foresail and stowed the nets", "Sighted gulls, so land is near",
              "The cook burnt the beans again", "Sounded eleven fathoms, sandy bottom",
              "Passed a barque bound for the islands", "Rain at dusk; the crew below",
              "Caught two tunny on the long line", "Pumped the bilge, a foot of water"]
    moods = ["The men are in good heart.", "Spirits low; rations halved.",
             "All well aboard.", "The boy is seasick still."]
    entries = []
    for day in range(1, 341):
        entries.append({"text": (
            f"Day {day}. Wind from the {rng.choice(winds)}, force {rng.randint(2, 8)}. "
            f"{rng.choice(doings)}. Made {rng.randint(40, 140)} leagues by the log. "
            f"{rng.choice(moods)} Signed, Capt. {word(rng, 2)}.")})
    return entries[:300], entries[300:]


def continues(model_path: str, test: list[dict]) -> int:
    """Openings whose greedy continuation (as text, no chat template) names the fact."""
    import torch

    from sft_ui.models import load_model_and_tokenizer, resolve_model
    model, tokenizer = load_model_and_tokenizer(resolve_model(model_path))
    model.eval()
    right = 0
    for row in test:
        enc = tokenizer(row["opening"], return_tensors="pt")
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=12, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
        said = tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        right += said.strip().lower().startswith(row["answer"].lower())
    return right


def text_loss(model_path: str, rows: list[dict]) -> float:
    """Mean loss per token of `rows` as text."""
    import torch

    from sft_ui.models import load_model_and_tokenizer, resolve_model
    model, tokenizer = load_model_and_tokenizer(resolve_model(model_path))
    model.eval()
    total, count = 0.0, 0
    for row in rows:
        enc = tokenizer(row["text"], return_tensors="pt")
        with torch.no_grad():
            loss = model(**enc, labels=enc["input_ids"]).loss.item()
        n = enc["input_ids"].shape[1] - 1
        total, count = total + loss * n, count + n
    return total / count


def side(name: str, minutes: float, data: Path, folder: Path,
         settings: dict | None = None) -> dict:
    """A run of `data` in a fresh process, as a person starts it from the command line,
    with the budget and `settings` (default: the hand grid's of `name`; none: the quick
    path's own choices); its length, state and what it trained with."""
    given = HAND.get(name, {}) if settings is None else settings
    cfg = {"dataset_name": str(data), "time_budget_minutes": minutes, **given}
    out = folder / f"{name}-{int(time.time())}"
    out.mkdir(parents=True)
    (out / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    began = time.time()
    done = subprocess.run([sys.executable, "-m", "sft_ui", "train", "--config",
                           str(out / "cfg.yaml"), "--runs-dir", str(out / "runs")],
                          cwd=ROOT, capture_output=True, text=True)
    wall = time.time() - began
    run = next((out / "runs").iterdir())
    state = json.loads((run / "state.json").read_text())
    chosen = yaml.safe_load((run / "config.yaml").read_text())
    return {"side": name, "wall_s": round(wall), "steps": state.get("step"),
            "state": state.get("state"),
            "error": "" if state.get("state") == "done" else
            (state.get("error") or done.stderr[-300:]),
            "chosen": {k: chosen.get(k) for k in (
                "use_peft", "learning_rate", "lora_r", "per_device_train_batch_size",
                "gradient_accumulation_steps", "train_by", "num_train_epochs",
                "max_steps", "completion_only_loss", "mask_history")},
            "run": str(run)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--corpus", default="knowledge", choices=["knowledge", "style"])
    parser.add_argument("--sides", default="quick,2e-3,1e-3,r64,acc4")
    parser.add_argument("--dir", default=str(ROOT / "runs" / "bench-text"))
    args = parser.parse_args()
    folder = Path(args.dir) / args.corpus
    folder.mkdir(parents=True, exist_ok=True)
    rows, test = knowledge() if args.corpus == "knowledge" else style()
    data = folder / "train.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))

    def judged(model: str) -> str:
        if args.corpus == "knowledge":
            return f"{continues(model, test)}/{len(test)} facts"
        loss = text_loss(model, test)
        return f"loss {loss:.3f} (perplexity {math.exp(loss):.1f})"
    print(f"load {open('/proc/loadavg').read().split()[:3]}; {len(rows)} rows, "
          f"{len(test)} test rows; {args.minutes:g} min a side", flush=True)
    print(f"base: {judged(BASE)}", flush=True)
    for name in args.sides.split(","):
        result = side(name, args.minutes, data, folder)
        result["judged"] = judged(str(Path(result["run"]) / "model")) \
            if result["state"] == "done" else None
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
