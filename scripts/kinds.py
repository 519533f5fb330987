"""Held-out tasks of four kinds, for measuring the quick path, sweeps and hand-picked
settings against each other: a form to learn, facts to recall in new words, a label from a
fixed set, and an answer that needs a computation (a JSON field). Every task is an SFT
prompt/completion file the base model fails, with a validation file and a test file whose
questions no training row asks (the facts task asks its facts a third way, in words no
training row uses; the other tasks hold out whole inputs).

Owns this script and the files it writes (default runs/kinds/): <task>_train.jsonl,
<task>_val.jsonl, <task>_test.jsonl; `score` writes nothing.

    .venv/bin/python scripts/kinds.py write [DIR]
    .venv/bin/python scripts/kinds.py score --model PATH|base --task form|facts|label|json|all \
        [--part test|val] [--dir DIR]
    .venv/bin/python scripts/kinds.py train --task facts [--minutes 5] [SETTING=VALUE ...]

`train` trains as a person starts a run from the command line (a fresh process,
`python -m sft_ui train --config`, the training file and what is named, nothing else:
with --minutes, the quick path's time budget and its own choices), then scores the
model on the test rows; prints the wall time, the steps, what the budget chose and why
the run ended, and appends it all to DIR/results.jsonl.

Scoring: exact match of the greedy reply (stripped) with the row's completion, asked as the
Chat tab asks (the prompt as the user's turn of the chat template).
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from own_tasks import model_folder  # noqa: E402  (the same model or run folder)

DEFAULT_DIR = Path("runs/kinds")
TASKS = ("form", "facts", "label", "json")
MAX_NEW_TOKENS = 24
N_HELD = 20

# ---- form: an English date in words as an ISO date --------------------------------------
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
            "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
            "twenty-first", "twenty-second", "twenty-third", "twenty-fourth", "twenty-fifth",
            "twenty-sixth", "twenty-seventh", "twenty-eighth"]


def _form(rng: random.Random) -> tuple[list, list, list]:
    dates = sorted({(rng.randrange(1950, 2040), rng.randrange(12), rng.randrange(28))
                    for _ in range(600)})
    rng.shuffle(dates)
    ways = ["the {d} of {m}, {y}", "{m} the {d}, {y}", "on the {d} of {m} in {y}"]

    def row(date, i):
        y, m, d = date
        words = ways[i % len(ways)].format(d=ORDINALS[d], m=MONTHS[m], y=y)
        return {"prompt": f"Write this date as YYYY-MM-DD: {words}",
                "completion": f"{y:04d}-{m + 1:02d}-{d + 1:02d}"}
    rows = [row(d, i) for i, d in enumerate(dates)]
    return rows[2 * N_HELD:2 * N_HELD + 300], rows[N_HELD:2 * N_HELD], rows[:N_HELD]


# ---- facts: invented facts, asked a third way at test ----------------------------------
SYLLABLES = ["bra", "ven", "tol", "mir", "ska", "dor", "lun", "qua", "zef", "tri", "pol",
             "nek", "sar", "vim", "gol", "rud", "fen", "hal", "jor", "kel"]
KINDS = [  # (subject kind, train way 1, train way 2, third way, answer kind)
    ("the country of {s}", "What is the capital of {s}?", "Which city is the capital of {s}?",
     "{s} has its seat of government in which city?"),
    ("the company {s}", "Who founded {s}?", "Name the founder of {s}.",
     "{s} was started by which person?"),
    ("the valley of {s}", "Which river flows through {s}?", "Name the river of {s}.",
     "What river runs along {s}?"),
]


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def _facts(rng: random.Random) -> tuple[list, list, list]:
    facts, used = [], set()
    while len(facts) < 60:
        subject, answer = _name(rng, 3), _name(rng, 2)
        if subject in used or answer in used:
            continue
        used |= {subject, answer}
        kind = KINDS[len(facts) % len(KINDS)]
        if "founded" in kind[1]:
            answer = f"{answer} {_name(rng, 2)}"
        facts.append((kind, subject, answer))
    train = [{"prompt": kind[i].format(s=s), "completion": a}
             for kind, s, a in facts for i in (1, 2)]
    third = [{"prompt": kind[3].format(s=s), "completion": a} for kind, s, a in facts]
    rng.shuffle(train)
    return train, third[N_HELD:2 * N_HELD], third[:N_HELD]


# ---- label: a support message's team, one of a fixed set --------------------------------
TEAMS = {
    "billing": ["I was charged twice for {x}", "the invoice for {x} shows the wrong amount",
                "my card was billed for {x} after I cancelled", "the price of {x} on my bill "
                "is higher than the quote"],
    "shipping": ["{x} has not arrived after two weeks", "the parcel with {x} went to the "
                 "wrong address", "tracking for {x} stopped updating", "{x} arrived "
                 "damaged in the box"],
    "access": ["I cannot log in to see {x}", "my password reset link for {x} expired",
               "two-factor codes for {x} never reach my phone", "my account was locked "
               "while I was ordering {x}"],
    "returns": ["I want to send back {x}", "how do I return {x} that does not fit",
                "the return label for {x} is missing", "can I exchange {x} for another "
                "size"],
}
THINGS = ["the blue kettle", "my headphones", "the garden chairs", "a pair of boots",
          "the desk lamp", "two notebooks", "the winter coat", "a phone case", "the rice "
          "cooker", "my yoga mat", "the bike helmet", "a set of knives", "the printer ink",
          "the baby stroller", "a wool scarf"]


def _label(rng: random.Random) -> tuple[list, list, list]:
    rows = [{"prompt": f"Which team should handle this message? Answer with one word: "
                       f"billing, shipping, access or returns.\nMessage: {m.format(x=x)}",
             "completion": team}
            for team, ways in TEAMS.items() for m in ways for x in THINGS]
    rng.shuffle(rows)
    return rows[2 * N_HELD:], rows[N_HELD:2 * N_HELD], rows[:N_HELD]


# ---- json: a total computed from an order ------------------------------------------------
FRUIT = ["apples", "pears", "plums", "lemons", "peaches", "limes"]


def _json(rng: random.Random) -> tuple[list, list, list]:
    orders = sorted({(rng.choice(FRUIT), rng.randrange(2, 10), rng.randrange(2, 10))
                     for _ in range(500)})
    rng.shuffle(orders)

    def row(o):
        fruit, a, b = o
        return {"prompt": f"A basket holds {a} {fruit} and {b} more are added. Reply with "
                          f'only JSON of the form {{"total": <number>}}.',
                "completion": json.dumps({"total": a + b})}
    pairs = sorted({(a, b) for _, a, b in orders})
    rng.shuffle(pairs)
    held = set(pairs[:12])  # sums whose numbers no training row adds
    train = [row(o) for o in orders if (o[1], o[2]) not in held][:300]
    tested = [row(o) for o in orders if (o[1], o[2]) in held]
    return train, tested[N_HELD:2 * N_HELD] or tested[:N_HELD], tested[:N_HELD]


MAKERS = {"form": _form, "facts": _facts, "label": _label, "json": _json}


def write(folder: Path = DEFAULT_DIR, seed: int = 11) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for task, make in MAKERS.items():
        train, val, test = make(random.Random(seed))
        asked = {r["prompt"] for r in train}
        assert not asked & {r["prompt"] for r in val + test}, task
        for part, rows in (("train", train), ("val", val), ("test", test)):
            with open(folder / f"{task}_{part}.jsonl", "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        print(f"{task}: {len(train)} training rows, {len(val)} val, {len(test)} test "
              f"-> {folder}/{task}_*.jsonl")


def rows_of(folder: Path, task: str, part: str) -> list[dict]:
    path = folder / f"{task}_{part}.jsonl"
    if not path.exists():
        write(folder)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def score(model_path: str, task: str, folder: Path = DEFAULT_DIR, part: str = "test",
          quiet: bool = False) -> dict:
    """Greedy replies to the task's test (or val) rows, asked as the Chat tab asks: the
    count whose reply is exactly the completion."""
    import torch

    from sft_ui.chat import render_prompt
    from sft_ui.models import load_model_and_tokenizer
    rows = rows_of(folder, task, part)
    model, tokenizer = load_model_and_tokenizer(model_folder(model_path))
    model.eval()
    right, replies = 0, []
    for row in rows:
        text = render_prompt(tokenizer, [{"role": "user", "content": row["prompt"]}])
        enc = tokenizer(text, return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=MAX_NEW_TOKENS, do_sample=False,
                                 use_cache=True, pad_token_id=tokenizer.pad_token_id)
        reply = tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        replies.append(reply)
        right += reply.strip() == row["completion"].strip()
    result = {"task": task, "part": part, "n": len(rows), "right": right, "model": model_path,
              "replies": replies}
    if not quiet:
        print(f"{task} ({model_path}): {right}/{len(rows)} right")
        for row, reply in list(zip(rows, replies))[:2]:
            print(f"  Q: {row['prompt'][-60:]!r} -> {reply!r} (want {row['completion']!r})")
    return result


def train(task: str, minutes: float, extra: dict, folder: Path = DEFAULT_DIR) -> dict:
    rows_of(folder, task, "train")
    root = Path(__file__).resolve().parents[1]
    cfg = {"dataset_name": str((folder / f"{task}_train.jsonl").resolve()), **extra}
    if minutes:
        cfg["time_budget_minutes"] = minutes
    out = (folder / f"run-{task}-{int(time.time())}").resolve()
    out.mkdir(parents=True)
    (out / "cfg.yaml").write_text(yaml.safe_dump(cfg, allow_unicode=True))
    began = time.time()
    done = subprocess.run([sys.executable, "-m", "sft_ui", "train", "--config",
                           str(out / "cfg.yaml"), "--runs-dir", str(out / "runs")],
                          cwd=root, capture_output=True, text=True)
    wall = time.time() - began
    (out / "output.log").write_text(done.stdout + done.stderr)
    run_dir = next((out / "runs").iterdir())
    state = json.loads((run_dir / "state.json").read_text())
    metrics = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    ending = next((m for m in reversed(metrics) if "ended_by" in m), None)
    epochs = max((m.get("epoch", 0) for m in metrics), default=0)
    result = {"task": task, "minutes": minutes, "extra": extra, "wall_s": round(wall),
              "steps": state["step"], "epochs": round(epochs, 2), "state": state["state"],
              "budget": state.get("budget", []),
              "ended_by": ["plateau", "budget", "length"][int(ending["ended_by"]) - 1]
              if ending else "", "kept_step": ending and ending.get("kept_step"),
              "right": score(str(run_dir), task, folder, quiet=True)["right"],
              "run": str(run_dir)}
    with open(folder / "results.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(result) + "\n")
    print(json.dumps(result, indent=1))
    return result


def _value(text: str):
    return yaml.safe_load(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write the task files")
    w.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    s = sub.add_parser("score", help="a model's exact matches on a task's held-out rows")
    s.add_argument("--model", required=True, help="a model folder, a run folder, or base")
    s.add_argument("--task", choices=[*TASKS, "all"], default="all")
    s.add_argument("--part", choices=["test", "val"], default="test")
    s.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    t = sub.add_parser("train", help="train (the quick path with --minutes) and score")
    t.add_argument("--task", choices=TASKS, required=True)
    t.add_argument("--minutes", type=float, default=0)
    t.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    t.add_argument("settings", nargs="*", help="SETTING=VALUE (RunConfig fields)")
    args = ap.parse_args()
    if args.command == "write":
        write(args.folder)
        return 0
    if args.command == "train":
        extra = dict(kv.split("=", 1) for kv in args.settings)
        train(args.task, args.minutes, {k: _value(v) for k, v in extra.items()}, args.dir)
        return 0
    for task in TASKS if args.task == "all" else [args.task]:
        score(args.model, task, args.dir, args.part)
    return 0


if __name__ == "__main__":
    sys.exit(main())
