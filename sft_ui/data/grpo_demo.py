"""The built-in GRPO demo set: fresh arithmetic problems made from the seed, sized for a small
instruct model training on a CPU, with the result in an "answer" column the rewards read.
Nothing is downloaded, and held-out problems are never asked by a training row of any seed.
"""
from __future__ import annotations

import random
import zlib

NUMBERS = (2, 99)  # the operands of additions and subtractions
FACTORS = (2, 12)  # the operands of multiplications
OPERATIONS = (("+", 0.4), ("-", 0.35), ("×", 0.25))  # operator and its share of problems
HELD_OUT_SHARE = 8  # one problem in this many (by a fixed hash) is held out, never trained
# The form is shown with a placeholder, not a number: shown {"answer": 12}, the default
# model replied {"answer": 12} to 38 of 40 held-out problems, and GRPO taught it the same.
TEMPLATES = (
    'What is {problem}? Reply with JSON only: {{"answer": <the number>}}.',
    'Compute {problem}. Answer with JSON only, in the form {{"answer": <number>}}.',
    'Calculate {problem} and reply with JSON only: {{"answer": <result>}}.',
    '{problem} = ? Reply with JSON only, in the form {{"answer": <number>}}.',
    'Solve {problem}. Answer with JSON only, in the form {{"answer": <the result>}}.',
)
TRIES = 50  # draws before a problem already in the set is allowed again


def grpo_demo_rows(seed: int = 0, count: int = 256) -> list[dict]:
    """`count` training rows {"prompt": [user message], "answer": "82"} made from `seed`;
    no problem twice while fresh ones can be found, none of the held-out ones."""
    return _rows(random.Random(f"grpo-demo-train-{seed}"), count, held_out=False)


def held_out_problems(seed: int, count: int = 50) -> list[dict]:
    """`count` rows in the training rows' shape from another stream of the same seed,
    drawn only from the held-out problems: none is asked by a training row."""
    return _rows(random.Random(f"grpo-demo-held-out-{seed}"), count, held_out=True)


def answer_of(a: int, op: str, b: int) -> int:
    """The result of `a op b`."""
    return a + b if op == "+" else a - b if op == "-" else a * b


def is_held_out(a: int, op: str, b: int) -> bool:
    """Whether a problem belongs to the held-out share (the same for every seed)."""
    return zlib.crc32(f"{a} {op} {b}".encode()) % HELD_OUT_SHARE == 0


def _rows(rng: random.Random, count: int, held_out: bool) -> list[dict]:
    rows: list[dict] = []
    seen: set[tuple[int, str, int]] = set()
    while len(rows) < count:
        for _ in range(TRIES):
            problem = _problem(rng)
            if is_held_out(*problem) == held_out and problem not in seen:
                break
        while is_held_out(*problem) != held_out:  # the set is full: repeats allowed
            problem = _problem(rng)
        seen.add(problem)
        a, op, b = problem
        text = rng.choice(TEMPLATES).format(problem=f"{a} {op} {b}")
        rows.append({"prompt": [{"role": "user", "content": text}],
                     "answer": str(answer_of(a, op, b))})
    return rows


def _problem(rng: random.Random) -> tuple[int, str, int]:
    op = rng.choices([o for o, _ in OPERATIONS], [w for _, w in OPERATIONS])[0]
    if op == "×":
        return rng.randint(*FACTORS), op, rng.randint(*FACTORS)
    a, b = rng.randint(*NUMBERS), rng.randint(*NUMBERS)
    if op == "-" and a < b:
        a, b = b, a
    return a, op, b
