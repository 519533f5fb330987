"""A person's own tasks, held out, and the harness that measures whether GRPO (and SFT) on
them works: the task files, the held-out evaluation asked as the Chat tab asks, and the
bare-TRL baseline.

Owns this script and what it writes: the task files (default runs/own-tasks/), and a bare
run's folder (--out: model/, result.json). Four tasks, made from the seed; no held-out
row's question appears in training (tasks B and C hold out whole opposite pairs / sums):

  a  text prompts      "What is 3 + 4? Reply exactly as ANSWER: <number>"    -> ANSWER: 7
  b  chat messages     system + "What is the opposite of 'hot'? ... <answer></answer> tags"
                                                                           -> <answer>cold</answer>
  c  JSON number       "Anna has 3 coins and gets 4 more. ... {"total": <number>}"
                                                                           -> {"total": 7}
  s  SFT prompt/completion  "What is 9 - 4?"                               -> Result: 5 ✓

in_form: the whole reply (spaces aside) matches the task's pattern; right: in form, and the
value the form holds is the row's answer; anywhere: the answer appears somewhere in the
reply (what the model knows, whatever the form).

    .venv/bin/python scripts/own_tasks.py write [DIR] [--seed 7]
    .venv/bin/python scripts/own_tasks.py eval --model PATH|base --task a|b|c|s|all [--dir DIR]
    .venv/bin/python scripts/own_tasks.py bare --task a --minutes 10 --out DIR [--dir DIR]

PATH: a model folder, or a studio run folder (runs/<id>: its model/ is taken). `bare` trains
TRL's GRPOTrainer (task s: SFTTrainer) with its config's defaults and only what the CPU
needs, the prompts as they are in the file, stops before the next step would pass the
budget (counted from the script's start, model loading included), saves the model and
evaluates it.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

START = time.time()
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT_DIR = Path("runs/own-tasks")
DEFAULT_MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"
MAX_NEW_TOKENS = 48
N_HELD = 20


@dataclass(frozen=True)
class Task:
    key: str
    title: str
    pattern: str  # the form; group 1 holds the value that must equal the answer
    column: str  # the column that holds the right answer ("completion": parsed from it)


TASKS = {t.key: t for t in (
    Task("a", "text prompts: ANSWER: <number>", r"^\s*ANSWER: (-?\d+)\s*$", "answer"),
    Task("b", "chat messages: <answer>word</answer>",
         r"^\s*<answer>\s*([A-Za-z]+)\s*</answer>\s*$", "answer"),
    Task("c", 'JSON number: {"total": N}', r'^\s*\{\s*"total"\s*:\s*(-?\d+)\s*\}\s*$', "total"),
    Task("s", "SFT prompt/completion: Result: <number> ✓", r"^\s*Result: (-?\d+) ✓\s*$",
         "completion"),
)}

OPPOSITES = """hot cold|big small|up down|fast slow|happy sad|day night|open closed|wet dry|
hard soft|old young|full empty|rich poor|early late|high low|long short|thick thin|
strong weak|loud quiet|clean dirty|near far|in out|boy girl|true false|push pull|buy sell|
first last|remember forget|black white|good bad|yes no|start finish|give take|north south|
east west|inside outside|above below|before after|love hate|laugh cry|front back|
top bottom|friend enemy|summer winter|alive dead|safe dangerous|cheap expensive|
deep shallow|wide narrow|smooth rough|asleep awake"""
NAMES = ["Anna", "Ben", "Maya", "Leo", "Sara", "Tom", "Nina", "Omar", "Lucy", "Ivan"]
ITEMS = ["apples", "books", "coins", "pencils", "stickers", "marbles", "cards", "shells"]


# --- the tasks -----------------------------------------------------------------------------

def _split(pool: list, rng: random.Random, n_train: int, n_held: int) -> tuple[list, list]:
    pool = list(pool)
    rng.shuffle(pool)
    return pool[n_held:n_held + n_train], pool[:n_held]


def make_tasks(seed: int = 7) -> dict[str, tuple[list[dict], list[dict]]]:
    """Each task's (training rows, held-out rows), the same for a seed."""
    rng = random.Random(seed)
    tasks = {}

    sums = [(a, b) for a in range(1, 13) for b in range(1, 13)]
    train, held = _split(sums, rng, 70, N_HELD)
    def row_a(a, b):
        return {"prompt": f"What is {a} + {b}? Reply exactly as ANSWER: <number>",
                "answer": str(a + b)}
    tasks["a"] = [row_a(*p) for p in train], [row_a(*p) for p in held]

    pairs = [p.split() for p in OPPOSITES.replace("\n", "").split("|")]
    train, held = _split(pairs, rng, 35, N_HELD // 2)

    def rows_b(chosen):
        return [{"prompt": [
            {"role": "system", "content": "You are a quiz assistant."},
            {"role": "user", "content": f"What is the opposite of '{w}'? Put the one-word "
                                        "answer inside <answer></answer> tags."}],
                 "answer": o} for x, y in chosen for w, o in ((x, y), (y, x))]
    tasks["b"] = rows_b(train), rows_b(held)

    counts = [(a, b) for a in range(2, 10) for b in range(2, 10)]
    train_sums, held = _split(counts, rng, len(counts), N_HELD)
    asked = [(rng.choice(NAMES), rng.choice(ITEMS), a, b) for a, b in held]
    trained = set()
    while len(trained) < 70:  # training questions: the other sums, with names and things
        trained.add((rng.choice(NAMES), rng.choice(ITEMS), *rng.choice(train_sums)))

    def row_c(name, item, a, b):
        return {"prompt": f"{name} has {a} {item} and gets {b} more. How many {item} does "
                          f"{name} have now? Reply with only a JSON object of the form "
                          '{"total": <number>}.', "total": a + b}
    tasks["c"] = [row_c(*q) for q in sorted(trained, key=str)], [row_c(*q) for q in asked]

    diffs = [(a, b) for a in range(2, 16) for b in range(1, a)]
    train, held = _split(diffs, rng, 80, N_HELD)
    def row_s(a, b):
        return {"prompt": f"What is {a} - {b}?", "completion": f"Result: {a - b} ✓"}
    tasks["s"] = [row_s(*p) for p in train], [row_s(*p) for p in held]
    return tasks


def question(row: dict) -> str:
    prompt = row["prompt"]
    return prompt if isinstance(prompt, str) else prompt[-1]["content"]


def written_reward(task: Task) -> str:
    """The rightness reward for the studio's Written reward function box."""
    return f'''def right(completions, {task.column}, **kwargs):
    """1 when the reply is in the form and holds the row's {task.column}."""
    import re
    texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
    found = [re.search(r'{task.pattern}', t) for t in texts]
    return [float(bool(m) and m.group(1).lower() == str(a).lower())
            for m, a in zip(found, {task.column})]'''


def write(folder: Path, seed: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for key, (train, held) in make_tasks(seed).items():
        assert not {question(r) for r in held} & {question(r) for r in train}, key
        for part, rows in (("train", train), ("heldout", held)):
            with open(folder / f"{key}_{part}.jsonl", "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        task = TASKS[key]
        print(f"\nTask {key} ({task.title}): {len(train)} training rows, {len(held)} held out "
              f"-> {folder}/{key}_train.jsonl, {key}_heldout.jsonl")
        print(f"  form (regex reward's Pattern): {task.pattern}")
        if key == "s":
            print("  SFT: the form is in the completion; right = its number.")
            continue
        print(f"  right answer: column '{task.column}'"
              + ("; the built-in exact_match with Answer column 'total' scores it"
                 if key == "c" else "; exact_match compares the whole reply, so use"))
        print("  written reward (rightness):\n    " + written_reward(task).replace("\n", "\n    "))


def load_rows(folder: Path, key: str, part: str) -> list[dict]:
    path = folder / f"{key}_{part}.jsonl"
    if not path.exists():
        write(folder, 7)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- scoring -------------------------------------------------------------------------------

def answer_of(task: Task, row: dict) -> str:
    value = row[task.column]
    if task.column == "completion":
        value = re.search(task.pattern, value).group(1)
    return str(value)


def in_form(task: Task, reply: str) -> bool:
    return re.search(task.pattern, reply) is not None


def right(task: Task, reply: str, answer) -> bool:
    m = re.search(task.pattern, reply)
    return bool(m) and m.group(1).strip().lower() == str(answer).strip().lower()


def anywhere(reply: str, answer) -> bool:
    return re.search(r"(?<![\w-])%s(?!\w)" % re.escape(str(answer)), reply, re.I) is not None


class Score:
    """A TRL reward function: "form" (in_form) or "right", 1/0 per completion."""

    def __init__(self, task: Task, name: str):
        self.task, self.__name__ = task, name

    def __call__(self, completions, **kwargs) -> list[float]:
        texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
        if self.__name__ == "form":
            return [float(in_form(self.task, t)) for t in texts]
        return [float(right(self.task, t, a)) for t, a in zip(texts, kwargs[self.task.column])]


# --- held-out evaluation -------------------------------------------------------------------

def model_folder(path: str) -> str:
    from sft_ui.models import resolve_model
    if path == "base":
        return resolve_model(DEFAULT_MODEL)
    folder = Path(path)
    if not (folder / "config.json").exists() and (folder / "model").is_dir():
        folder = folder / "model"  # a studio run folder
    return resolve_model(str(folder))


def held_out(model_path: str, key: str, folder: Path = DEFAULT_DIR, quiet: bool = False) -> dict:
    """Greedy replies to the task's held-out rows, asked as the Chat tab asks (the chat
    template over the user's message, a prompt's system message as the system prompt,
    add_generation_prompt, one prompt at a time): counts in form, right, anywhere."""
    import torch

    from sft_ui.chat import render_prompt
    from sft_ui.models import load_model_and_tokenizer
    task, rows = TASKS[key], load_rows(folder, key, "heldout")
    model, tokenizer = load_model_and_tokenizer(model_folder(model_path))
    model.eval()
    replies = []
    for row in rows:
        messages = row["prompt"] if isinstance(row["prompt"], list) else [
            {"role": "user", "content": row["prompt"]}]
        enc = tokenizer(render_prompt(tokenizer, messages), return_tensors="pt",
                        add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=MAX_NEW_TOKENS, do_sample=False,
                                 repetition_penalty=1.0, use_cache=True,
                                 pad_token_id=tokenizer.pad_token_id)
        replies.append(tokenizer.decode(out[0, enc["input_ids"].shape[1]:],
                                        skip_special_tokens=True))
    answers = [answer_of(task, r) for r in rows]
    result = {"task": key, "n": len(rows), "model": model_path,
              "in_form": sum(in_form(task, r) for r in replies),
              "right": sum(right(task, r, a) for r, a in zip(replies, answers)),
              "anywhere": sum(anywhere(r, a) for r, a in zip(replies, answers)),
              "replies": replies}
    if not quiet:
        n = result["n"]
        print(f"Task {key} ({model_path}): in form {result['in_form']}/{n}, right "
              f"{result['right']}/{n}, answer anywhere {result['anywhere']}/{n}")
        for row, reply in list(zip(rows, replies))[:2]:
            print(f"  Q: {question(row)!r}\n  A: {reply!r}")
    return result


# --- the bare TRL run ----------------------------------------------------------------------

def budget_callback(seconds: float):
    from transformers import TrainerCallback

    class Budget(TrainerCallback):
        """Stops when the next step (the mean step so far) would pass the budget."""

        def on_train_begin(self, args, state, control, **kwargs):
            self.began = time.time()

        def on_step_end(self, args, state, control, **kwargs):
            now = time.time()
            mean = (now - self.began) / max(state.global_step, 1)
            if now - START + mean > seconds:
                control.should_training_stop = True
    return Budget()


def bare(key: str, minutes: float, out: Path, folder: Path) -> dict:
    from datasets import Dataset
    task = TASKS[key]
    dataset = Dataset.from_list(load_rows(folder, key, "train"))
    base = model_folder("base")
    common = dict(output_dir=str(out / "trainer"), use_cpu=True, bf16=False,
                  max_steps=100_000, logging_steps=1, report_to="none")
    if key == "s":
        from trl import SFTConfig, SFTTrainer
        trainer = SFTTrainer(model=base, args=SFTConfig(**common), train_dataset=dataset)
    else:
        from trl import GRPOConfig, GRPOTrainer
        trainer = GRPOTrainer(model=base, reward_funcs=[Score(task, "form"), Score(task, "right")],
                              args=GRPOConfig(**common), train_dataset=dataset)
    trainer.add_callback(budget_callback(minutes * 60))
    trainer.train()
    trained_s = time.time() - START
    trainer.save_model(str(out / "model"))
    trainer.processing_class.save_pretrained(str(out / "model"))
    logs = [r for r in trainer.state.log_history if "loss" in r or "reward" in r]
    steps = trainer.state.global_step
    del trainer
    result = {"task": key, "budget_min": minutes, "steps": steps,
              "trained_s": round(trained_s), "peak_rss_gib": round(
                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 1),
              "log": logs, "eval": held_out(str(out / "model"), key, folder)}
    result["wall_s"] = round(time.time() - START)
    (out / "result.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    n, ev = result["eval"]["n"], result["eval"]
    print(f"Bare TRL task {key}: {steps} steps in {trained_s:.0f} s (model loading counted), "
          f"held out: in form {ev['in_form']}/{n}, right {ev['right']}/{n}, anywhere "
          f"{ev['anywhere']}/{n}; wall {result['wall_s']} s, peak RSS "
          f"{result['peak_rss_gib']} GiB")
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write the task files")
    w.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR)
    w.add_argument("--seed", type=int, default=7)
    e = sub.add_parser("eval", help="held-out figures of a model")
    e.add_argument("--model", required=True, help="a model folder, a run folder, or base")
    e.add_argument("--task", choices=[*TASKS, "all"], default="all")
    e.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    b = sub.add_parser("bare", help="bare TRL training within a time budget, then eval")
    b.add_argument("--task", choices=list(TASKS), required=True)
    b.add_argument("--minutes", type=float, default=None, help="10 (GRPO), 3 (SFT, task s)")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    args = ap.parse_args()
    if args.command == "write":
        write(args.folder, args.seed)
    elif args.command == "eval":
        for key in TASKS if args.task == "all" else [args.task]:
            held_out(args.model, key, args.dir)
    else:
        minutes = args.minutes or (3 if args.task == "s" else 10)
        bare(args.task, minutes, args.out, args.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
