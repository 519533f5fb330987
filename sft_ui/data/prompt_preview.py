"""GRPO's data preview (its family's `preview` hook): the prompts in the text the model
sees, the columns the rewards read by name, and the prompt lengths in tokens beside the
answers' limit. Knows nothing of Gradio."""
from __future__ import annotations

import statistics

from sft_ui.config import RunConfig
from sft_ui.data import prompts
from sft_ui.data.formats import chat_note
from sft_ui.data.language import language_notes
from sft_ui.data.preview import STATS_ROWS, jsonable, token_length
from sft_ui.i18n.message import Message


def prompt_preview(cfg: RunConfig, tokenizer, examples: int = 3) -> dict:
    """cfg's prompts (data/prompts.py) as GRPO reads them: the prompt in the text the model
    sees (its chat template with the assistant's turn opened), the other columns (what the
    rewards read by name), and prompt lengths in tokens with the answers' limit."""
    data = prompts.load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split, tokenizer)
    rows = list(data.rows)
    notes = [chat_note(cfg.model_name_or_path)] if data.as_chat else []
    notes += data.source.notes + language_notes(cfg.model_name_or_path, data.source.rows)
    if cfg.max_train_samples and cfg.max_train_samples < len(rows):
        notes.append(Message("Training on the first {count} of {total} rows.",
                             count=cfg.max_train_samples, total=len(rows)))
        rows = rows[:cfg.max_train_samples]
    shown = [prompt_seen(row["prompt"], tokenizer) for row in rows[:STATS_ROWS]]
    lengths = [token_length(tokenizer, text) for text in shown]
    answers = cfg.effective_batch() // max(cfg.num_generations, 1)
    return {
        "kind": "prompts", "stage": cfg.stage, "format": "prompt-only",
        "format_description": "prompts only: the model writes the answers, the rewards "
                              "score them",
        "conversational": data.conversational, "source": data.source.label,
        "columns": data.source.columns, "rows": len(rows), "eval_rows": 0, "notes": notes,
        "stats": {"measured_rows": len(shown), "min": min(lengths),
                  "median": statistics.median(lengths), "max": max(lengths),
                  "answer_tokens": cfg.max_completion_length,
                  "prompts_per_step": answers,
                  "epochs_in_max_steps": round(cfg.max_steps * answers / max(len(rows), 1),
                                               2)},
        "examples": [{"raw": jsonable(raw), "prompt": text,
                      "columns": {k: str(v) for k, v in raw.items() if k != "prompt"}}
                     for raw, text in zip(rows[:examples], shown[:examples])],
    }


def prompt_seen(prompt, tokenizer) -> str:
    """A prompt in the text the model reads before it answers."""
    if isinstance(prompt, list) and getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(prompt, tokenize=False,
                                             add_generation_prompt=True)
    return prompts.prompt_text(prompt)
