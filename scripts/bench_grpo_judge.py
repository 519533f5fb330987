"""GRPO judged by its own measure, measured: a person's own file of prompts asking for a
country's capital in the form `Capital: <city>.`, the built-in regex reward for the form
and a reward written in the page for the right city, a time budget and the studio's
choices for everything else. A budgeted GRPO run's held-out judge reads the rewards
(Stage.judged_by), not GRPO's loss, which sits near 0 by construction.

Writes (to --dir) 62 training prompts and 20 held-out ones (no country in both), trains in
a fresh process through the command line as a person starts it, then asks the 20 held-out
prompts greedily as the Chat tab asks: replies in form, and right.

    .venv/bin/python scripts/bench_grpo_judge.py [--minutes 10]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_text import side  # noqa: E402  (a side: a fresh `sft_ui train` process)

CAPITALS = {
    "France": "Paris", "Germany": "Berlin", "Italy": "Rome", "Spain": "Madrid",
    "Portugal": "Lisbon", "Japan": "Tokyo", "China": "Beijing", "Russia": "Moscow",
    "Egypt": "Cairo", "Greece": "Athens", "Austria": "Vienna", "Norway": "Oslo",
    "Sweden": "Stockholm", "Finland": "Helsinki", "Denmark": "Copenhagen",
    "Poland": "Warsaw", "Ireland": "Dublin", "Belgium": "Brussels", "Hungary": "Budapest",
    "Netherlands": "Amsterdam", "Thailand": "Bangkok", "Kenya": "Nairobi", "Peru": "Lima",
    "Chile": "Santiago", "Argentina": "Buenos Aires", "Mexico": "Mexico City",
    "Canada": "Ottawa", "Australia": "Canberra", "India": "New Delhi", "Iran": "Tehran",
    "Iraq": "Baghdad", "Syria": "Damascus", "Turkey": "Ankara", "Ukraine": "Kyiv",
    "Cuba": "Havana", "Colombia": "Bogota", "Venezuela": "Caracas", "Ghana": "Accra",
    "Nigeria": "Abuja", "Ethiopia": "Addis Ababa", "Morocco": "Rabat", "Algeria": "Algiers",
    "Tunisia": "Tunis", "Vietnam": "Hanoi", "Philippines": "Manila", "Indonesia": "Jakarta",
    "Malaysia": "Kuala Lumpur", "South Korea": "Seoul", "Czechia": "Prague",
    "Romania": "Bucharest", "Bulgaria": "Sofia", "Serbia": "Belgrade", "Croatia": "Zagreb",
    "Switzerland": "Bern", "Iceland": "Reykjavik", "Lebanon": "Beirut", "Jordan": "Amman",
    "Saudi Arabia": "Riyadh", "Qatar": "Doha", "Nepal": "Kathmandu", "Pakistan": "Islamabad",
    "Bangladesh": "Dhaka", "Afghanistan": "Kabul", "Mongolia": "Ulaanbaatar",
    "Uruguay": "Montevideo", "Paraguay": "Asuncion", "Bolivia": "Sucre", "Ecuador": "Quito",
    "Senegal": "Dakar", "Uganda": "Kampala", "Zambia": "Lusaka", "Zimbabwe": "Harare",
    "Slovakia": "Bratislava", "Slovenia": "Ljubljana", "Latvia": "Riga",
    "Lithuania": "Vilnius", "Estonia": "Tallinn", "Belarus": "Minsk", "Georgia": "Tbilisi",
    "Armenia": "Yerevan", "Cambodia": "Phnom Penh", "Laos": "Vientiane",
}
PATTERN = r"^Capital: ([A-Z][A-Za-z .]+)\.$"
ASK = "What is the capital of {country}? Reply exactly in the form: Capital: <city>."
RIGHT = '''def right(completions, answer, **kwargs):
    """1 when the reply is in the form and names the row's city."""
    import re
    texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
    found = [re.match(r"^Capital: ([A-Z][A-Za-z .]+)\\.$", t.strip()) for t in texts]
    return [float(bool(m) and m.group(1).strip().lower() == a.lower())
            for m, a in zip(found, answer)]'''


def make(seed: int = 3) -> tuple[list[dict], list[dict]]:
    countries = sorted(CAPITALS)
    random.Random(seed).shuffle(countries)
    rows = [{"prompt": ASK.format(country=c), "answer": CAPITALS[c]} for c in countries]
    return rows[:62], rows[62:82]


def ask(model_path: str, held: list[dict]) -> tuple[int, int, list[str]]:
    """(in form, right, the first replies) of greedy replies asked as Chat asks."""
    import torch

    from sft_ui.chat import render_prompt
    from sft_ui.models import load_model_and_tokenizer, resolve_model
    model, tokenizer = load_model_and_tokenizer(resolve_model(model_path))
    model.eval()
    form = right = 0
    replies = []
    for row in held:
        enc = tokenizer(render_prompt(tokenizer, [{"role": "user", "content": row["prompt"]}]),
                        return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=16, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
        reply = tokenizer.decode(out[0, enc["input_ids"].shape[1]:],
                                 skip_special_tokens=True).strip()
        found = re.match(PATTERN, reply)
        form += bool(found)
        right += bool(found) and found.group(1).strip().lower() == row["answer"].lower()
        replies.append(reply)
    return form, right, replies[:3]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--dir", default=str(ROOT / "runs" / "bench-grpo-judge"))
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    train, held = make()
    data = folder / "capitals.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in train))
    print(f"load {open('/proc/loadavg').read().split()[:3]}; {len(train)} prompts, "
          f"{len(held)} held out", flush=True)
    form, right, replies = ask("HuggingFaceTB/SmolLM2-135M-Instruct", held)
    print(f"base: in form {form}/{len(held)}, right {right}/{len(held)} {replies}", flush=True)
    ran = side("studio", args.minutes, data, folder,
               {"stage": "grpo", "rewards": ["regex", "written"], "reward_pattern": PATTERN,
                "reward_code": RIGHT})
    run = Path(ran["run"])
    log = (run / "train.log").read_text(encoding="utf-8")
    judged = [line.split("] ", 1)[-1] for line in log.splitlines()
              if "Held-out" in line or "Kept the model" in line]
    print(f"studio: {ran['state']} in {ran['wall_s']} s, {ran['steps']} steps; "
          f"{ran['error']}", flush=True)
    print("\n".join(judged), flush=True)
    if ran["state"] == "done":
        form, right, replies = ask(str(run / "model"), held)
        print(f"studio: in form {form}/{len(held)}, right {right}/{len(held)} {replies}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
