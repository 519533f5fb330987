"""What the model will learn from, before training: a few rows three ways (raw,
the text the model sees, tokens with the loss mask) and token statistics.

Tokens come from TRL's own dataset preparation (data/tokens.py), so the
mask shown is the mask trained on. Knows nothing of Gradio.
"""
from __future__ import annotations

import json
import statistics

from sft_ui.config import RunConfig
from sft_ui.data import formats
from sft_ui.data.tokens import load_training_data, tokenize_rows
from sft_ui.models import load_tokenizer, resolve_model

STATS_ROWS = 2000  # token statistics are measured on at most this many rows


def preview(cfg: RunConfig, examples: int = 3) -> dict:
    """A JSON-ready description of cfg's training data as the trainer will see it."""
    tokenizer = load_tokenizer(resolve_model(cfg.model_name_or_path), cfg.trust_remote_code)
    data = load_training_data(cfg, tokenizer)
    source, chat = data.source, bool(getattr(tokenizer, "chat_template", None))
    raw, shaped = [], []
    for row in source.rows:
        norm = formats.normalise(row, data.format, cfg, chat)
        if "text" in norm and not norm["text"].strip():
            continue
        raw.append(_jsonable(row))
        shaped.append(norm)
        if len(shaped) == examples:
            break
    shown = tokenize_rows(cfg, tokenizer, shaped)
    measured = tokenize_rows(cfg, tokenizer, data.train[:STATS_ROWS])
    return {
        "format": data.format,
        "format_description": formats.DESCRIPTIONS[data.format],
        "source": source.label,
        "columns": source.columns,
        "rows": len(data.train),
        "eval_rows": len(data.eval or []),
        "notes": data.notes,
        "stats": token_stats(measured, len(data.train), cfg),
        "examples": [{"raw": r, "shape": s, "text": tokenizer.decode(t["input_ids"]),
                      "tokens": _tokens(tokenizer, t, cfg.max_length)}
                     for r, s, t in zip(raw, shaped, shown)],
    }


def token_stats(measured: list[dict], total_rows: int, cfg: RunConfig) -> dict:
    """Length distribution and tokens per epoch (scaled up when only a part was measured)."""
    lengths = [len(t["input_ids"]) for t in measured]
    cut = cfg.max_length
    kept = [min(n, cut) for n in lengths]
    loss = [sum(1 for x in t["labels"][:cut] if x != -100) for t in measured]
    scale = total_rows / max(len(measured), 1)
    examples_seen = cfg.max_steps * cfg.effective_batch()
    return {
        "measured_rows": len(measured), "min": min(lengths), "median": statistics.median(lengths),
        "max": max(lengths), "max_length": cut,
        "over_max_length": sum(n > cut for n in lengths),
        "without_loss_tokens": sum(n == 0 for n in loss),  # left out by the trainer
        "tokens_per_epoch": round(sum(kept) * scale),
        "loss_tokens_per_epoch": round(sum(loss) * scale),
        "epochs_in_max_steps": round(examples_seen / max(total_rows, 1), 2),
    }


def _tokens(tokenizer, tokenized: dict, max_length: int) -> list[dict]:
    return [{"text": tokenizer.decode([tid]), "loss": label != -100, "truncated": i >= max_length}
            for i, (tid, label) in enumerate(zip(tokenized["input_ids"], tokenized["labels"]))]


def _jsonable(row: dict) -> dict:
    return json.loads(json.dumps(row, default=str, ensure_ascii=False))
