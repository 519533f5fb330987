"""People's chat data in its most common shape, measured: does a run learn what every
assistant turn of a multi-turn conversation teaches, or only the last?

The task (written to --dir): 120 conversations, a system message and three user/assistant
exchanges each, teaching 60 invented facts (a country's capital, a company's founder, a
river's source) in three wordings. The 20 facts the test asks appear only in the first or
second answer of a conversation, never the last; the test asks them in a fourth wording,
one question at a time with the same system message, greedy, as the Chat tab asks; a reply
is right when it names the fact's answer.

Each side trains in a fresh process, through the command line as a person starts it, with
a time budget and the studio's choices for everything else:
  base         the default model, untrained
  quick        the quick path (every answer trained: data/turns.py)
  last-only    the quick path with Loss on the last answer only (mask_history)
  all-tokens   the quick path with Loss on answers only off (prompts trained too)
  hand         every answer trained, by hand: LoRA rank 16 at 2e-3, one batch a step

    .venv/bin/python scripts/bench_chat_turns.py [--minutes 5] [--sides quick,last-only]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_text import side  # noqa: E402  (a side: a fresh `sft_ui train` process)

SYSTEM = "You are an atlas of invented places. Answer in one short sentence."
SYLLABLES = ["ka", "lo", "mi", "ren", "tov", "sa", "quel", "dun", "ba", "rix", "po", "vel",
             "zan", "tir", "mor", "ek", "lun", "fa", "gor", "ni"]
KINDS = [  # (three training wordings, the test's wording, the answer sentence)
    (("What is the capital of {x}?", "Which city is the capital of {x}?",
      "Name the capital city of {x}."), "If I travel to {x}'s seat of government, which "
     "city am I in?", "The capital of {x} is {y}."),
    (("Who founded {x}?", "Who is the founder of {x}?", "Name the person who founded {x}."),
     "The company {x} was started by whom?", "{x} was founded by {y}."),
    (("Where does the river {x} begin?", "What is the source of the river {x}?",
      "Name the place where the river {x} rises."), "From which place does the {x} river "
     "flow?", "The river {x} begins at {y}."),
]
SIDES = {"quick": {}, "last-only": {"mask_history": True},
         "all-tokens": {"completion_only_loss": False},
         # every answer trained, by hand: the rate and accumulation best on the long rows
         "hand": {"completion_only_loss": True, "use_peft": True, "lora_r": 16,
                  "learning_rate": 2e-3, "gradient_accumulation_steps": 1}}


def word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def make(seed: int = 11) -> tuple[list[dict], list[dict]]:
    """(training conversations, test questions)."""
    rng = random.Random(seed)
    names, facts = set(), []
    while len(facts) < 60:
        x, y = word(rng, 3), word(rng, 2) + " " + word(rng, 2) if len(facts) % 3 == 1 \
            else word(rng, 3)
        if x in names or y in names:
            continue
        names |= {x, y}
        facts.append((len(facts) % 3, x, y))
    tested, rest = facts[:20], facts[20:]
    # each fact taught 6 times (3 wordings x 2); a tested fact never in a third answer
    early = [(f, w) for f in tested for w in range(3) for _ in range(2)]
    any_turn = [(f, w) for f in rest for w in range(3) for _ in range(2)]
    rng.shuffle(early)
    rng.shuffle(any_turn)
    conversations = []
    for n in range(120):
        first, second = early.pop() if early else any_turn.pop(), \
            early.pop() if early else any_turn.pop()
        turns = [first, second, any_turn.pop()]
        messages = [{"role": "system", "content": SYSTEM}]
        for (kind, x, y), w in turns:
            asked, _, said = KINDS[kind]
            messages += [{"role": "user", "content": asked[w].format(x=x)},
                         {"role": "assistant", "content": said.format(x=x, y=y)}]
        conversations.append({"messages": messages})
    rng.shuffle(conversations)
    test = [{"question": KINDS[k][1].format(x=x), "answer": y} for k, x, y in tested]
    return conversations, test


def ask(model_path: str, test: list[dict]) -> int:
    """Right answers of the model (a folder) to the test questions, asked as Chat asks."""
    import torch

    from sft_ui.chat import render_prompt
    from sft_ui.models import load_model_and_tokenizer, resolve_model
    model, tokenizer = load_model_and_tokenizer(resolve_model(model_path))
    model.eval()
    right = 0
    for row in test:
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": row["question"]}]
        enc = tokenizer(render_prompt(tokenizer, messages), return_tensors="pt",
                        add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=24, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
        reply = tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        right += row["answer"].lower() in reply.lower()
    return right


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--sides", default="quick,last-only")
    parser.add_argument("--dir", default=str(ROOT / "runs" / "bench-chat-turns"))
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    conversations, test = make()
    data = folder / "train.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in conversations))
    print(f"load {open('/proc/loadavg').read().split()[:3]}; {len(conversations)} "
          f"conversations, {len(test)} test questions", flush=True)
    print(f"base: {ask('HuggingFaceTB/SmolLM2-135M-Instruct', test)}/{len(test)}", flush=True)
    for name in args.sides.split(","):
        result = side(name, args.minutes, data, folder, SIDES[name])
        result["right"] = ask(str(Path(result["run"]) / "model"), test) \
            if result["state"] == "done" else None
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
