"""What the model will learn from, before training: a few rows raw, as the text the model sees
and as tokens with the loss mask (from TRL's own preparation, so the mask shown is the mask
trained on), with token statistics; a preference or another family's view by its stage.
Knows nothing of Gradio.
"""
from __future__ import annotations

import json
import statistics

from sft_ui.config import RunConfig
from sft_ui.data import formats, likelihood, preference
from sft_ui.data.chat_habits import rows_to_template
from sft_ui.data.formats import DataError
from sft_ui.data.language import language_notes
from sft_ui.data.preference import ANSWERS, rendered
from sft_ui.data.sized import own_data, sized
from sft_ui.data.thinking import applied
from sft_ui.data.tokens import load_training_data, tokenize_rows
from sft_ui.data.turns import asked_apart_said, reasoning_said, turns_said
from sft_ui.data.windows import documents_said
from sft_ui.i18n.message import Message
from sft_ui.models import load_tokenizer, resolve_model
from sft_ui.stages import hook, stage_of

STATS_ROWS = 2000  # token statistics are measured on at most this many rows


def preview(cfg: RunConfig, examples: int = 3) -> dict:
    """A JSON-ready description of cfg's training data as the trainer will see it, with
    the settings the data sizes where they are left at their defaults (data/sized.py:
    "sized", the sample prompts the run will ask and a sentence a setting; the
    description is of the run so sized)."""
    tokenizer, thinking = applied(load_tokenizer(resolve_model(cfg.model_name_or_path),
                                                 cfg.trust_remote_code), cfg.enable_thinking)
    found = sized(cfg, tokenizer)
    shown = hook(cfg, "preview")(found.config, tokenizer, examples)
    if thinking and "notes" in shown:  # (how the template is asked)
        shown["notes"] = [*shown["notes"], thinking]
    asked = found.config.sample_prompts if found.config.sample_steps and \
        not stage_of(cfg).own_samples else []
    return {**shown, "sized": {"prompts": list(asked) if own_data(cfg) else [],
                               "reasons": list(found.reasons), "notes": list(found.notes)}}


def sft_preview(cfg: RunConfig, tokenizer, examples: int = 3) -> dict:
    """SFT data: the rows raw, shaped and tokenized with the loss mask."""
    data = load_training_data(cfg, tokenizer)
    source, chat = data.source, bool(getattr(tokenizer, "chat_template", None))
    raw, shaped = [], []
    for row in source.rows:
        norm = formats.normalise(row, data.format, cfg, chat)
        if "text" in norm and not norm["text"].strip():
            continue
        raw.append(jsonable(row))
        shaped.append(norm)
        if len(shaped) == examples:
            break
    if data.format == "text":  # (long texts as the windows they train as: data/windows.py)
        shaped, raw = data.train[:examples], [jsonable(r) for r in data.train[:examples]]
    shaped, _ = rows_to_template(shaped, tokenizer)  # (its notes: the data's)
    shown = tokenize_rows(cfg, tokenizer, shaped)
    measured = tokenize_rows(cfg, tokenizer, data.train[:STATS_ROWS])
    return {
        "kind": "sft",
        "format": data.format,
        "format_description": formats.DESCRIPTIONS[data.format],
        "source": source.label,
        "columns": source.columns,
        "rows": len(data.train),
        "eval_rows": len(data.eval or []),
        "notes": data.notes + language_notes(cfg.model_name_or_path, source.rows) +
        [note for note in (turns_said(cfg, data.train[:STATS_ROWS]),
                           asked_apart_said(cfg, data.train[:1], tokenizer),
                           reasoning_said(cfg, data.train[:STATS_ROWS], tokenizer)) if note] +
        documents_said(source.rows, tokenizer, cfg.max_length),
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


# Tokens joined at most into one shown token: a byte-level tokenizer splits a character it
# has no token for into its UTF-8 bytes (up to 4), a token or more each.
MOST_JOINED = 8


def _tokens(tokenizer, tokenized: dict, max_length: int) -> list[dict]:
    """Each token with whether it counts in the loss and whether max_length cuts it. A
    token that is a part of a character's bytes (byte-level BPE splits a Japanese letter
    over 2 or 3 tokens, each "\ufffd" alone) is shown joined with the following ones up to
    the whole character, where their mask and cut agree (else each is shown as it is)."""
    ids, labels = tokenized["input_ids"], tokenized["labels"]
    shown, start = [], 0
    while start < len(ids):
        flags = (labels[start] != -100, start >= max_length)
        end, text = start + 1, tokenizer.decode(ids[start:start + 1])
        if "\ufffd" in text:  # a part of a character: join up to where it is whole
            for stop in range(start + 2, min(len(ids), start + MOST_JOINED) + 1):
                if (labels[stop - 1] != -100, stop - 1 >= max_length) != flags:
                    break
                joined = tokenizer.decode(ids[start:stop])
                if "\ufffd" not in joined:
                    end, text = stop, joined
                    break
        shown.append({"text": text, "loss": flags[0], "truncated": flags[1]})
        start = end
    return shown


def jsonable(row: dict) -> dict:
    return json.loads(json.dumps(row, default=str, ensure_ascii=False))


def preference_preview(cfg: RunConfig, tokenizer, examples: int = 3) -> dict:
    """cfg's preference data (data/preference.py) as the stage's trainer reads it: the
    format and form, the first rows raw and in the text the model sees (prompt, then
    each answer), and token lengths of the prompt with its longer answer."""
    data = preference.load_preference(cfg.dataset_name, cfg, cfg.stage,
                                      cfg.dataset_train_split, tokenizer)
    if data.conversational and not getattr(tokenizer, "chat_template", None):
        raise DataError(Message("The model has no chat template, so conversational {format} "
                                "rows cannot be rendered. Use an instruct model, or rows of "
                                "plain text.", format=Message(data.format)))
    rows, notes = data.rows, [formats.chat_note(cfg.model_name_or_path)] if data.as_chat else []
    notes += data.source.notes + language_notes(cfg.model_name_or_path, data.source.rows)
    if cfg.max_train_samples and cfg.max_train_samples < len(rows):
        notes.append(Message("Training on the first {count} of {total} rows.",
                             count=cfg.max_train_samples, total=len(rows)))
        rows = rows[:cfg.max_train_samples]
    train_rows = len(rows)
    if stage_of(cfg).unpaired and data.format != "unpaired preference":
        train_rows *= 2
        notes.append(Message("{stage} unpairs each pair: the chosen answer becomes a good "
                             "example and the rejected one a bad example, so there are twice "
                             "as many rows.", stage=stage_of(cfg).title))
    shown = [rendered(row, tokenizer) for row in rows[:STATS_ROWS]]
    lengths = [max(_lengths(s, tokenizer)) for s in shown]
    cut = cfg.max_length
    if stage_of(cfg).sft_term and cfg.loss_type == "auto":
        found = likelihood.before_start(cfg, rows, tokenizer)
        notes.append(found.sentence() if found else Message(
            "Loss type auto: the run checks at its start whether the model writes the chosen "
            "answers yet (this model is too large to load for the preview)."))
        rate = stage_of(cfg).sft_term_rate(cfg.use_peft, cfg.learning_rate)
        if found and found.unlikely and rate != cfg.learning_rate:
            notes.append(likelihood.rate_sentence(stage_of(cfg).title, cfg.learning_rate, rate))
    return {
        "kind": "preference",
        "stage": cfg.stage,
        "format": data.format,
        "format_description": preference.DESCRIPTIONS[data.format],
        "conversational": data.conversational,
        "source": data.source.label,
        "columns": data.source.columns,
        "rows": train_rows,
        "eval_rows": 0,
        "notes": notes,
        "stats": {"measured_rows": len(shown), "min": min(lengths),
                  "median": statistics.median(lengths), "max": max(lengths),
                  "max_length": cut, "over_max_length": sum(n > cut for n in lengths),
                  "epochs_in_max_steps": round(cfg.max_steps * cfg.effective_batch()
                                               / max(train_rows, 1), 2)},
        "examples": [{"raw": jsonable(raw), **s}
                     for raw, s in zip(data.source.rows[:examples], shown[:examples])],
    }


def token_length(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _lengths(shown: dict, tokenizer) -> list[int]:
    """Token lengths of a rendered row's sequences: the prompt with each answer."""
    return [token_length(tokenizer, shown["prompt"] + shown[a]) for a in ANSWERS if a in shown]


def example_lengths(rows, tokenizer, each_answer: bool = False) -> list[int]:
    """Token lengths of checked preference rows as their trainer's examples: the prompt
    with its longer answer (a pair's two sequences are padded alike), or with each
    answer for a stage that unpairs pairs (KTO: each answer an example)."""
    out = []
    for row in rows:
        lengths = _lengths(rendered(row, tokenizer), tokenizer)
        out += lengths if each_answer else [max(lengths)]
    return out
