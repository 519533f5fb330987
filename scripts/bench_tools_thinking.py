"""Today's chat data through the quick path, measured: a tool-call file and a thinking
file, each the shape TRL's SFTTrainer takes, on the default model's weights with Qwen3's
chat template (TRL's copy: it writes tool calls in <tool_call> tags and a reply's
reasoning in <think> tags; SmolLM2's own tokens, <|im_start|> and <|im_end|>, are the
ones it uses), so that a real model, offline, is asked as a Qwen3 model is.

  tools     120 conversations with a `tools` column (get_weather, find_flight): a user's
            question, the assistant's call, the tool's reply, the assistant's answer. The
            test: 20 questions about cities no conversation names; right when the reply
            is the call, named and with its arguments, in the template's <tool_call> form.
  thinking  120 conversations whose answers carry `reasoning_content`: three words to
            put in reverse order, the reasoning naming them and then the answer. The
            test: 20 new triples; right when the reply's answer (after </think>) is the
            triple reversed, in form when it reasons first.

Each file trains in a fresh process through the command line with a time budget and the
studio's choices for everything else.

    .venv/bin/python scripts/bench_tools_thinking.py [--minutes 5] [--files tools,thinking]
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_text import side  # noqa: E402  (a side: a fresh `sft_ui train` process)

CITIES = ["Velka", "Orun", "Mipton", "Zarbo", "Kelm", "Dunrix", "Polvar", "Sanquel",
          "Tirmo", "Ekbay", "Lunfa", "Gorni", "Rentov", "Bavel", "Quelpo", "Moraz",
          "Nidun", "Faltir", "Vellan", "Kaspo", "Torreg", "Ilmun", "Rasko", "Pember"]
NEW_CITIES = ["Astrava", "Bloomcrest", "Cindervale", "Drovik", "Emberly", "Fenwick",
              "Glimmor", "Harrowgate", "Istrel", "Joskar", "Kilnmoor", "Larkspire"]
TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "The weather in a city today.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "find_flight", "description": "Flights from one city to another.",
        "parameters": {"type": "object", "properties": {
            "origin": {"type": "string"}, "destination": {"type": "string"}},
            "required": ["origin", "destination"]}}}]
WEATHER = ["What's the weather in {a} today?", "Is it raining in {a}?",
           "How warm is it in {a} right now?"]
FLIGHTS = ["Find me a flight from {a} to {b}.", "Are there flights from {a} to {b}?",
           "I need to fly from {a} to {b}."]
WORDS = ["apple", "river", "stone", "cloud", "lamp", "tiger", "piano", "rope", "mint",
         "brick", "coat", "drum", "fern", "glass", "honey", "iron", "jar", "kite"]


def tool_rows(rng: random.Random, cities: list[str], count: int) -> list[dict]:
    rows = []
    for _ in range(count):
        a, b = rng.sample(cities, 2)
        if rng.random() < 0.5:
            asked, call = rng.choice(WEATHER).format(a=a), ("get_weather", {"city": a})
            said, answer = {"city": a, "sky": "clear", "celsius": 21}, \
                f"It is clear and 21 degrees in {a}."
        else:
            asked, call = rng.choice(FLIGHTS).format(a=a, b=b), \
                ("find_flight", {"origin": a, "destination": b})
            said, answer = {"flights": 2, "first": "08:15"}, \
                f"There are 2 flights from {a} to {b}; the first leaves at 08:15."
        rows.append({"tools": TOOLS, "messages": [
            {"role": "user", "content": asked},
            {"role": "assistant", "content": "", "tool_calls": [
                {"type": "function", "function": {"name": call[0], "arguments": call[1]}}]},
            {"role": "tool", "name": call[0], "content": json.dumps(said)},
            {"role": "assistant", "content": answer}], "expected": list(call)})
    return rows


def thinking_rows(rng: random.Random, count: int) -> list[dict]:
    rows = []
    for _ in range(count):
        words = rng.sample(WORDS, 3)
        rows.append({"messages": [
            {"role": "user", "content": f"Reverse the order: {' '.join(words)}"},
            {"role": "assistant", "reasoning_content":
                f"The words are {words[0]}, {words[1]} and {words[2]}. Last first: "
                f"{words[2]}, {words[1]}, {words[0]}.",
             "content": " ".join(reversed(words))}]})
    return rows


def model_with_qwen3_template(folder: Path) -> Path:
    """The default model's files with TRL's Qwen3 chat template."""
    import trl

    from sft_ui.models import prepare_default_model
    out = folder / "smollm2-qwen3-template"
    if not out.exists():
        shutil.copytree(prepare_default_model(), out)
        config = json.loads((out / "tokenizer_config.json").read_text())
        config["chat_template"] = (Path(trl.__file__).parent / "chat_templates" /
                                   "qwen3.jinja").read_text(encoding="utf-8")
        (out / "tokenizer_config.json").write_text(json.dumps(config))
        (out / "chat_template.jinja").unlink(missing_ok=True)
    return out


def asked(model_path: str, rows: list[dict], kind: str) -> tuple[int, int]:
    """(right, in form) of the model's greedy replies to the test rows' first turn."""
    import torch

    from sft_ui.models import load_model_and_tokenizer
    model, tokenizer = load_model_and_tokenizer(model_path)
    model.eval()
    right = form = 0
    for row in rows:
        prompt = tokenizer.apply_chat_template(
            row["messages"][:1], tools=row.get("tools"), tokenize=False,
            add_generation_prompt=True)
        enc = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            out = model.generate(**enc, max_new_tokens=64, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
        reply = tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        if kind == "tools":
            call = _call(reply)
            form += call is not None
            right += call == tuple(row["expected"]) if call else 0
        else:
            thought, _, answer = reply.partition("</think>")
            form += "</think>" in reply and bool(thought.strip())
            right += answer.strip() == row["messages"][1]["content"]
    return right, form


def _call(reply: str):
    """(name, arguments) of the first <tool_call> of a reply, or None."""
    body = reply.partition("<tool_call>")[2].partition("</tool_call>")[0].strip()
    try:
        found = json.loads(body)
        return found["name"], found["arguments"]
    except (ValueError, KeyError, TypeError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--files", default="tools,thinking")
    parser.add_argument("--dir", default=str(ROOT / "runs" / "bench-tools-thinking"))
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    model = model_with_qwen3_template(folder)
    rng = random.Random(7)
    for kind in args.files.split(","):
        if kind == "tools":
            train, test = tool_rows(rng, CITIES, 120), tool_rows(rng, NEW_CITIES, 20)
        else:
            train, test = thinking_rows(rng, 120), thinking_rows(random.Random(99), 20)
        data = folder / f"{kind}.jsonl"
        data.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "expected"})
                                + "\n" for r in train))
        right, form = asked(str(model), test, kind)
        print(f"{kind}: base {right}/20 right, {form}/20 in form", flush=True)
        result = side(f"{kind}-quick", args.minutes, data, folder,
                      {"model_name_or_path": str(model)})
        if result["state"] == "done":
            right, form = asked(str(Path(result["run"]) / "model"), test, kind)
            result.update(right=right, form=form)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
