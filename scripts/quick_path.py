"""The quick path measured: a person's own small chat file teaching a task the base model
does partly (JSON extraction: 400 rows), a time budget (default 5 minutes) and nothing
else set; then held-out sentences with unseen names and cities, answered greedily by
the base model and by the trained one, counted right when the answer parses to exactly
the expected JSON. Prints what the budget chose, the run's time and both scores.

    python scripts/quick_path.py            # BUDGET_MINUTES=5 by default
"""
from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sft_ui.chat import ChatService  # noqa: E402
from sft_ui.runs import RunManager  # noqa: E402

FIRST = ["Maria", "John", "Aiko", "Lars", "Fatima", "Pedro", "Chen", "Olga", "Amara", "Liam",
         "Sofia", "Kenji", "Nadia", "Tom", "Elena", "Ravi", "Ines", "Omar", "Greta", "Yusuf"]
LAST = ["Lopez", "Smith", "Tanaka", "Berg", "Haddad", "Silva", "Wang", "Ivanova", "Okafor",
        "Murphy", "Rossi", "Sato", "Karim", "Baker", "Novak", "Patel", "Costa", "Farah",
        "Keller", "Demir"]
CITIES = ["Porto", "Leeds", "Osaka", "Bergen", "Tunis", "Recife", "Xiamen", "Kazan", "Lagos",
          "Cork", "Turin", "Sendai", "Dhaka", "Boston", "Brno", "Pune", "Braga", "Cairo",
          "Basel", "Izmir"]
UNSEEN_FIRST = ["Hannah", "Diego", "Mei", "Arjun", "Zofia"]
UNSEEN_LAST = ["Lindqvist", "Moreau", "Abebe", "Quinn"]
UNSEEN_CITIES = ["Tromso", "Cusco", "Hanoi", "Galway", "Graz"]
SHAPES = ["{n} is {a} years old and lives in {c}.", "{n}, aged {a}, moved to {c} last year.",
          "Meet {n} from {c}; {a} years young.", "In {c} lives {n}, who is {a}."]
TASK = "Extract the person's name, age and city as JSON with keys name, age, city: "


def example(rng: random.Random, first, last, cities) -> tuple[str, dict]:
    name = f"{rng.choice(first)} {rng.choice(last)}"
    truth = {"name": name, "age": rng.randint(18, 80), "city": rng.choice(cities)}
    text = rng.choice(SHAPES).format(n=name, a=truth["age"], c=truth["city"])
    return TASK + text, truth


def right(answer: str, truth: dict) -> bool:
    text = answer.strip().strip("`")
    text = text[text.find("{"):text.rfind("}") + 1]
    try:
        return json.loads(text) == truth
    except ValueError:
        return False


def main() -> None:
    minutes = float(os.environ.get("BUDGET_MINUTES", 5))
    rng = random.Random(0)
    work = Path(tempfile.mkdtemp(prefix="quick-path-"))
    rows = []
    for _ in range(400):
        prompt, truth = example(rng, FIRST, LAST, CITIES)
        rows.append({"messages": [{"role": "user", "content": prompt},
                                  {"role": "assistant", "content": json.dumps(truth)}]})
    data = work / "extract.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    held_out = [example(rng, UNSEEN_FIRST, UNSEEN_LAST, UNSEEN_CITIES) for _ in range(20)]
    manager = RunManager(work / "runs")
    started = time.time()
    run_id = manager.start({"dataset_name": str(data), "time_budget_minutes": minutes,
                            "sample_steps": 0})
    while manager.get(run_id).state not in ("done", "failed", "stopped"):
        time.sleep(2)
    run = manager.get(run_id)
    took = time.time() - started
    if run.state != "done":
        raise SystemExit(f"the run {run.state}: {run.error}")
    answers = ChatService(manager).compare_batch([p for p, _ in held_out], "base", run_id, 64)
    base = sum(right(a["a"], t) for a, (_, t) in zip(answers, held_out))
    tuned = sum(right(a["b"], t) for a, (_, t) in zip(answers, held_out))
    print(f"Budget {minutes:g} min; the run took {took:.0f} s ({run.step} steps).")
    print("The budget chose: " + "; ".join(run.budget))
    print(f"Held-out exact JSON: base {base}/20, trained {tuned}/20")
    for (prompt, truth), a in list(zip(held_out, answers))[:3]:
        print(f"  {prompt[len(TASK):]}\n    base:    {a['a'][:80]!r}\n    trained: {a['b'][:80]!r}")


if __name__ == "__main__":
    main()
