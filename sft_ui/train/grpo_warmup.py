"""GRPO's warm-up: a few SFT steps, before GRPO, on the model's own answers put in the form a
`regex` reward asks for, where the model never writes that form itself and GRPO would learn
nothing (every answer scoring alike).
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path
from types import SimpleNamespace

from sft_ui.config import ConfigError
from sft_ui.data.prompt_preview import prompt_seen
from sft_ui.i18n.message import Message
from sft_ui.rewards.check import as_completions, score_table
from sft_ui.rewards.form import fill, values_in, writable

FILE = "warmup.jsonl"  # in the run's folder
MIN_EXAMPLES = 4      # fewer: no warm-up (too few to show the form)
ENOUGH = 16           # fewer: the model answers MORE_PROMPTS further prompts (up to
                      # MORE_ROUNDS times, within the probe's time twice over) for more
MORE_PROMPTS, MORE_ANSWERS, MORE_ROUNDS = 16, 4, 3
MOST_EXAMPLES = 64     # rows not asked add their own columns' values, up to this many
VALUES = 6            # values tried from each answer, its last first
BATCH = 8
EPOCHS = 4            # passes over the examples, within the steps below
STEPS = (8, 40)       # the least and most warm-up steps
LORA_RATE, FULL_RATE = 1e-3, 2e-5


def examples_possible(cfg) -> bool:
    """Whether cfg's rewards hold a form that examples can be written in."""
    return "regex" in cfg.rewards and bool(cfg.reward_pattern.strip()) and \
        writable(cfg.reward_pattern)


def examples(sampled, tokenizer, cfg, conversational: bool, functions, weights) -> list[dict]:
    """Examples of the form from `sampled` (grpo_sample.Sampled, one per round tried):
    [{"prompt", "completion"}, ...], the prompts as the data has them. Empty where the
    rewards hold no `regex` form, or fewer than MIN_EXAMPLES prompts reach the best score.
    Each value an answer offers, and each of its row's own columns (a right answer the
    data holds), is put in the form (rewards/form.py) and scored by the run's rewards;
    each prompt's best, where it scores as high as any, is kept."""
    if not examples_possible(cfg):
        return []
    pattern = cfg.reward_pattern
    prompts, texts, keys, seen = [], [], [], set()
    columns: dict[str, list] = {}
    for found in sampled:
        answers = tokenizer.batch_decode(found.ids, skip_special_tokens=True)
        for i, answer in enumerate(answers):
            key = json.dumps(found.prompts[i], sort_keys=True)
            values = [*values_in(pattern, answer)[:VALUES],
                      *_column_values(found.columns, i)] or [""]
            for text in filter(None, (fill(pattern, v) for v in values)):
                if (key, text) in seen:
                    continue
                seen.add((key, text))
                prompts.append(found.prompts[i])
                texts.append(text)
                keys.append(key)
                for name, column in found.columns.items():
                    columns.setdefault(name, []).append(column[i])
    if not texts:
        return []
    ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
    table = score_table(functions, prompts, as_completions(texts, conversational), columns,
                        weights=weights, completion_ids=ids)
    best: dict[str, int] = {}
    for i, row in enumerate(table):
        total = row["total"] if row["total"] is not None else -math.inf
        if keys[i] not in best or total > _total(table[best[keys[i]]]):
            best[keys[i]] = i
    top = max(_total(table[i]) for i in best.values())
    chosen = [i for i in best.values() if _total(table[i]) >= top - 1e-9 and top > 0]
    if len(chosen) < MIN_EXAMPLES:
        return []
    return [{"prompt": prompts[i], "completion": texts[i]} for i in chosen]


def gather(sampled: list, more, rows: list, tokenizer, cfg, conversational: bool, functions,
           weights, deadline: float) -> list[dict]:
    """`examples` from `sampled` (the rounds the rewards were tried in); with fewer than
    ENOUGH, `more(prompt rows)` answers MORE_PROMPTS further `rows` (up to MORE_ROUNDS
    times, until `deadline`) and they count too; then `rows` not asked add the values of
    their own columns (up to MOST_EXAMPLES in all), where that gives more examples."""
    if not examples_possible(cfg):
        return []
    sampled = list(sampled)
    found = examples(sampled, tokenizer, cfg, conversational, functions, weights)
    at = 0
    while at < MORE_ROUNDS * MORE_PROMPTS and len(found) < ENOUGH and \
            rows[at:at + MORE_PROMPTS] and time.time() < deadline:
        sampled.append(more(list(rows[at:at + MORE_PROMPTS])))
        at += MORE_PROMPTS
        found = examples(sampled, tokenizer, cfg, conversational, functions, weights)
    rest = list(rows[at:at + MOST_EXAMPLES - len(found)])
    if rest and sampled:  # rows no answer was asked for: their own columns' values
        names = list(sampled[0].columns)
        sampled.append(SimpleNamespace(
            ids=[[] for _ in rest], prompts=[r["prompt"] for r in rest],
            columns={name: [r.get(name) for r in rest] for name in names}))
        more_found = examples(sampled, tokenizer, cfg, conversational, functions, weights)
        found = more_found if len(more_found) > len(found) else found
    return found


def _column_values(columns: dict, i: int) -> list[str]:
    """The values of answer `i`'s row in its data's own columns (a right answer the
    person wrote, say), as text: each is tried in the form too, and the rewards judge."""
    return [str(column[i]) for column in columns.values()
            if isinstance(column[i], (str, int, float)) and not isinstance(column[i], bool)
            and str(column[i]).strip()]


def _total(row: dict) -> float:
    return row["total"] if row["total"] is not None else -math.inf


def write(rows: list[dict], folder: Path) -> Path:
    """The examples in the run's folder as the prompt/completion JSONL that the setting
    Warm-up examples names (a person's own file works the same)."""
    path = Path(folder) / FILE
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def read(path: str, as_chat: bool) -> list[dict]:
    """A warm-up file's rows: JSON lines of "prompt" (text, or messages) and "completion";
    a text prompt becomes the user's turn where the run's prompts do (`as_chat`)."""
    rows = []
    try:
        lines = Path(path).expanduser().read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigError([Message(
            "Warm-up examples: {path} cannot be read ({strerror}). Give a JSON lines file of "
            "prompt and completion, or clear the setting.", path=path,
            strerror=e.strerror)]) from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            prompt, completion = row["prompt"], str(row["completion"])
        except (ValueError, KeyError, TypeError):
            raise ConfigError([Message(
                "Warm-up examples: line {number} of {path} is not a JSON object with "
                "\"prompt\" and \"completion\".", number=number, path=path)]) from None
        if as_chat and isinstance(prompt, str):
            prompt = [{"role": "user", "content": prompt}]
        rows.append({"prompt": prompt, "completion": completion})
    if not rows:
        raise ConfigError([Message("Warm-up examples: {path} holds no examples.", path=path)])
    return rows


def steps_for(rows: list[dict]) -> int:
    return max(STEPS[0], min(STEPS[1], math.ceil(EPOCHS * len(rows) / BATCH)))


def warm_up(model, tokenizer, rows: list[dict], half, log) -> None:
    """SFT steps (steps_for) on `rows`, the loss on the completions only, on the weights
    that train (a LoRA adapter's, or all); `half`: the autocast dtype, or None."""
    import torch  # heavy: loaded on first use
    end = tokenizer.eos_token or ""
    encoded = []
    for row in rows:
        prompt = tokenizer(prompt_seen(row["prompt"], tokenizer),
                           add_special_tokens=False)["input_ids"]
        answer = tokenizer(row["completion"] + end, add_special_tokens=False)["input_ids"]
        encoded.append((prompt, answer))
    weights = [p for p in model.parameters() if p.requires_grad]
    lora = any("lora_" in name for name, p in model.named_parameters() if p.requires_grad)
    rate = LORA_RATE if lora else FULL_RATE
    optimizer = torch.optim.AdamW(weights, lr=rate, weight_decay=0.0)
    steps, began, first, loss = steps_for(rows), time.time(), None, None
    generator = torch.Generator().manual_seed(0)
    device = next(model.parameters()).device
    model.train()
    for step in range(steps):
        order = torch.randperm(len(encoded), generator=generator)[:BATCH].tolist()
        batch = [encoded[i] for i in order]
        width = max(len(p) + len(a) for p, a in batch)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        labels = torch.full((len(batch), width), -100, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for b, (p, a) in enumerate(batch):
            ids[b, :len(p) + len(a)] = torch.tensor(p + a)
            labels[b, len(p):len(p) + len(a)] = torch.tensor(a)
            mask[b, :len(p) + len(a)] = 1
        with torch.autocast(device.type, dtype=half, enabled=half is not None):
            out = model(input_ids=ids.to(device), attention_mask=mask.to(device),
                        labels=labels.to(device))
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(weights, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        loss = float(out.loss.detach())
        first = loss if first is None else first
    log.info("Warm-up: %d SFT steps on %d examples of the form at rate %g (loss %.3g -> "
             "%.3g), %.0f s; GRPO trains on from there.", steps, len(rows), rate, first,
             loss, time.time() - began)
