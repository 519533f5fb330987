"""Prompt-only data for GRPO: rows recognised and checked as TRL's GRPOTrainer reads them and
handed over in its shape, every other column passed on to the rewards by name. Files are
read by load.py; this module only adds the demo set (grpo_demo.py).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from sft_ui import models
from sft_ui.config import RunConfig
from sft_ui.data.chat_habits import rows_to_template
from sft_ui.data.files import Source
from sft_ui.data.formats import (
    DataError,
    as_chat,
    chat_form,
    check_messages,
    columns_present,
    form_name,
    normalise,
)
from sft_ui.data.grpo_demo import grpo_demo_rows, held_out_problems
from sft_ui.data.load import read_source, resolve_format
from sft_ui.data.preference import row_number
from sft_ui.data.sized import PERCENTILE, answer_tokens, tokens_needed, typical, within
from sft_ui.i18n.message import Message
from sft_ui.stages.grpo import GRPO_DEMO

PROMPT_END = "user"  # the model answers the user's turn
# What data without a prompt looks like, for the message that refuses it.
KINDS = (({"chosen", "rejected"}, "chosen and rejected answers: preference data, for DPO, "
                                  "ORPO or KTO"),
         ({"completion"}, "written answers: data for SFT or KTO"),
         ({"messages"}, "chat conversations: data for SFT"),
         ({"conversations"}, "chat conversations: data for SFT"),
         ({"text"}, "plain text: data for SFT"))


@dataclass
class PromptData:
    """Checked rows in TRL's prompt-only shape, their form, and where they came from."""
    rows: list[dict]
    conversational: bool
    source: Source
    as_chat: bool = False  # text prompts made the user's turn (formats.as_chat)


def read_prompt_source(name: str, cfg: RunConfig, split: str = "train") -> Source:
    """The GRPO demo set (its "train" split: problems from cfg.seed; any other split: the
    held-out problems), or a file, folder or Hub dataset through load.py."""
    if name.strip() == GRPO_DEMO:
        if split.strip() in ("", "train"):
            rows = grpo_demo_rows(cfg.seed)
            return Source(Message("GRPO demo set"), rows, list(rows[0]))
        rows = held_out_problems(cfg.seed)
        return Source(Message("GRPO demo set (held-out problems)"), rows, list(rows[0]))
    return read_source(name, cfg, split)


def check_prompt_rows(rows: Sequence[dict], where: Callable[[int], str] = row_number,
                      columns: Sequence[str] | None = None) -> list[dict]:
    """Every row checked as GRPO's prompt-only data: a "prompt" of text or of messages
    ending with the user's turn, the same form in every row. The rows with roles in lower
    case and every column of `columns` (missing ones as None), the others unchanged: they
    reach the reward functions by name. DataError
    names the first row that cannot be used and what to do."""
    if not len(rows):
        raise DataError(Message("The dataset has no rows."))
    columns = list(columns) if columns is not None else columns_present(rows)
    if "prompt" not in columns:
        raise DataError(_no_prompt(columns))
    out, first_form = [], None
    for i, row in enumerate(rows):
        prompt, conversational = _check_prompt(row.get("prompt"), where(i))
        if first_form is None:
            first_form = conversational
        elif conversational != first_form:
            raise DataError(Message(
                "Mixed forms: {where} is {form} but {where2} is {form2}. Keep one form per "
                "file: every prompt text, or every prompt a list of messages.", where=where(0),
                form=form_name(first_form), where2=where(i), form2=form_name(conversational)))
        checked = {c: row.get(c) for c in columns}
        checked.update((k, v) for k, v in row.items() if k not in checked)
        checked["prompt"] = prompt
        out.append(checked)
    return out


def load_prompts(name: str, cfg: RunConfig, split: str = "train",
                 tokenizer=None) -> PromptData:
    """The checked rows of a prompt-only dataset; for a `tokenizer` with a chat template,
    text prompts as the user's turn (formats.as_chat: the form Chat asks in; `as_chat`
    then says so)."""
    source = read_prompt_source(name, cfg, split)
    rows = check_prompt_rows(source.rows, source.where, source.columns)
    turned = tokenizer is not None and chat_form(cfg, tokenizer) and \
        isinstance(rows[0]["prompt"], str)
    if turned:
        rows = [as_chat(row) for row in rows]
    rows, notes = rows_to_template(rows, tokenizer)
    source.notes = list(dict.fromkeys([*source.notes, *notes]))
    return PromptData(rows, isinstance(rows[0]["prompt"], list), source, turned)


def check_prompt_dataset(cfg: RunConfig) -> str:
    """Quick check before a GRPO run starts (as load.check_dataset for SFT data): the demo
    set and local data are read and every row checked, the eval data's too; a Hub id only
    needs the Hub to be reachable (the download happens in the run). Returns
    "prompt-only", or "hub"."""
    name, eval_name = cfg.dataset_name.strip(), cfg.eval_dataset_name.strip()
    if eval_name and (eval_name == GRPO_DEMO or os.path.exists(Path(eval_name).expanduser())):
        load_prompts(eval_name, cfg, cfg.dataset_test_split.strip() or "test")
    if name == GRPO_DEMO or os.path.exists(Path(name).expanduser()):
        load_prompts(name, cfg, cfg.dataset_train_split)
        return "prompt-only"
    if not models.hub_reachable():
        raise DataError(Message("'{name}' is not a local file or folder, and the Hugging Face "
                                "Hub cannot be reached to load it as a dataset id: this "
                                "machine is offline. Use '{GRPO_DEMO}', or upload a "
                                ".jsonl/.csv/.parquet file of prompts.", name=name,
                                GRPO_DEMO=GRPO_DEMO))
    return "hub"


def prompt_text(prompt) -> str:
    """A prompt's text for tables: the text itself, or the last user message's content
    (the last message's, when no message is the user's)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list) and prompt:
        users = [m for m in prompt if isinstance(m, dict)
                 and str(m.get("role", "")).lower() == PROMPT_END]
        last = (users or [m for m in prompt if isinstance(m, dict)] or [{}])[-1]
        return str(last.get("content") or "")
    return "" if prompt is None else str(prompt)


# ---- what the data's answers need ------------------------------------------------------
def answers_need(cfg: RunConfig, rows: Sequence[dict], tokenizer) -> tuple[int, int] | None:
    """(the tokens the answers in the Reward column need, data/sized.py's
    tokens_needed; the length most of them fit) of GRPO's rows, or None where the rows
    hold no text there."""
    values = [r.get(cfg.reward_column) for r in rows]
    lengths = answer_tokens(tokenizer, [str(v) for v in values if v is not None])
    need = tokens_needed(lengths)
    return (need, typical(lengths)) if need else None


def sized_answers(cfg: RunConfig, tokenizer) -> tuple[dict, list[str]]:
    """GRPO's settings sized from its data (its family's `sized` hook): Max completion
    length, where left at its default, raised to what the answers in the Reward column
    need (an answer cut at the limit cannot earn a reward for how it ends, a sign-off or
    a closing tag). A time budget's probe may then choose it from the rewarded answers
    (train/grpo_signal.py). ({setting: value}, its sentence), or nothing."""
    default = RunConfig().max_completion_length
    if cfg.max_completion_length != default:
        return {}, []
    data = load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split, tokenizer)
    found = answers_need(cfg, data.rows, tokenizer)
    if not found or within(found[0], default) == default:
        return {}, []
    (length, most), share = (within(found[0], default), found[1]), f"{PERCENTILE:.0%}"
    return {"max_completion_length": length}, [Message(
        "Max completion length {length} tokens: {share} of the answers in the column "
        "'{reward_column}' are at most {most} tokens long, and {default}, the default, would "
        "cut the model's answers before their end.", length=length, share=share,
        reward_column=cfg.reward_column, most=most, default=default)]


# ---- one row -----------------------------------------------------------------------
def _check_prompt(value, where: str) -> tuple[str | list[dict], bool]:
    """The prompt in TRL's shape, and whether it is conversational."""
    if value is None:
        raise DataError(Message("{where}: 'prompt' is missing. Every row needs a 'prompt'; "
                                "fill it in or remove the row.", where=where))
    if isinstance(value, str):
        if not value.strip():
            raise DataError(Message("{where}: 'prompt' is empty. Write the question the model "
                                    "should answer, or remove the row.", where=where))
        return value, False
    if not isinstance(value, list):
        raise DataError(Message("{where}: '{column}' is a {type}; it must be text or a list "
                                "of messages.", where=where, column="prompt",
                                type=type(value).__name__))
    if not value:
        raise DataError(Message("{where}: 'prompt' is an empty list of messages. Add the "
                                "user's message, or remove the row.", where=where))
    check_messages(value, "prompt", where)
    prompt = [{"role": str(m["role"]).lower(), "content": m["content"]} for m in value]
    if prompt[-1]["role"] != PROMPT_END:
        raise DataError(Message("{where}: the last message of 'prompt' is from {role}; a "
                                "prompt must end with the user's message (the model writes "
                                "the answer). Remove the answer from the prompt; keep it in "
                                "another column, e.g. 'answer', for a reward to compare.",
                                where=where, role=prompt[-1]["role"]))
    if not prompt[-1]["content"].strip():
        raise DataError(Message("{where}: the user's message at the end of 'prompt' is empty.",
                                where=where))
    return prompt, True


# ---- the file as a whole -------------------------------------------------------------
def _no_prompt(columns: Sequence[str]) -> str:
    """The message for data without a 'prompt' column."""
    present = set(columns)
    kind = next((d for needed, d in KINDS if needed <= present), None)
    listed = ", ".join(columns) or "none"
    if kind:
        return Message("GRPO reads prompts only, and the model writes the answers: the data "
                       "needs a 'prompt' column (text, or messages ending with the user's "
                       "turn); this file has {columns} ({kind}). Put each question in a "
                       "'prompt' column; answers may stay in another column, e.g. 'answer', "
                       "for a reward to compare. Or use '{GRPO_DEMO}'.", columns=listed,
                       kind=Message(kind), GRPO_DEMO=GRPO_DEMO)
    return Message("GRPO reads prompts only, and the model writes the answers: the data needs "
                   "a 'prompt' column (text, or messages ending with the user's turn); this "
                   "file has {has}. Put each question in a 'prompt' column; answers may stay "
                   "in another column, e.g. 'answer', for a reward to compare. Or use "
                   "'{GRPO_DEMO}'.", has=listed, GRPO_DEMO=GRPO_DEMO)


# ---- prompts from a finished SFT run's data ---------------------------------------------
def prompts_from(cfg: RunConfig, folder: Path) -> tuple[str, str] | None:
    """GRPO's prompts from the data an earlier run trained on (its family's `follow_data`
    hook, for Continue): each row's question as a prompt and its answer in an "answer"
    column (what exact_match reads), written as JSON lines into `folder` (that run's);
    (the file, a note), or None for data without questions and answers (text, a
    template) or that cannot be read here."""
    try:
        source = read_source(cfg.dataset_name, cfg, cfg.dataset_train_split)
        fmt = resolve_format(source, cfg)
    except (DataError, OSError):
        return None
    pairs = [p for p in (_question_and_answer(row, fmt) for row in source.rows)
             if p is not None]
    if not pairs:
        return None
    path = Path(folder) / "grpo-prompts.jsonl"
    path.write_text("".join(json.dumps({"prompt": q, "answer": a}, ensure_ascii=False) + "\n"
                            for q, a in pairs), encoding="utf-8")
    return str(path), Message("Dataset: the {count} questions of `{label}` as prompts "
                              "(`{path}`), their answers in the 'answer' column, which "
                              "exact_match reads; write a reward for what a good answer is.",
                              count=len(pairs), label=source.label, path=str(path))


def _question_and_answer(row: dict, fmt: str) -> tuple | None:
    """A row's question (text, or messages up to the user's last turn) and its answer's
    text, by its format; None for a row that holds none."""
    if fmt in ("prompt/completion", "question/answer"):
        shaped = normalise(row, fmt, RunConfig(), chat=False)
        question, answer = shaped["prompt"], shaped["completion"]
        return (question, prompt_text(answer) if isinstance(answer, list) else answer) \
            if question else None
    if fmt == "alpaca":
        extra = (row.get("input") or "").strip()
        return (f"{row['instruction']}\n\n{extra}" if extra else row["instruction"],
                row["output"])
    if fmt in ("messages", "sharegpt"):
        messages = normalise(row, fmt, RunConfig(), chat=True)["messages"]
        last = max((i for i, m in enumerate(messages) if m["role"] == PROMPT_END), default=-1)
        replies = [m for m in messages[last + 1:] if m["role"] == "assistant"]
        return (messages[:last + 1], replies[0]["content"]) if last >= 0 and replies else None
    return None
