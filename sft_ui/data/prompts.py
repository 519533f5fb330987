"""Prompt-only data for GRPO: recognise and check rows as TRL 1.16's GRPOTrainer reads
them, and hand them over in its shape.

A row has a "prompt": text (standard form) or a list of {"role", "content"} messages
ending with the user's turn (conversational form), the same form in every row. The model
writes the answers itself; every other column ("answer", even "chosen" or "completion")
passes through unchanged and reaches the reward functions by name.

Errors name the row ("row 3", or the file and line through `Source.where`) and what to
do. Files are read by load.py (`read_source`); this module only adds the demo set
(grpo_demo.py).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from sft_ui import models
from sft_ui.config import RunConfig
from sft_ui.data.formats import DataError, check_messages, columns_present, form_name
from sft_ui.data.grpo_demo import grpo_demo_rows, held_out_problems
from sft_ui.data.load import Source, read_source
from sft_ui.data.preference import row_number
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


def read_prompt_source(name: str, cfg: RunConfig, split: str = "train") -> Source:
    """The GRPO demo set (its "train" split: problems from cfg.seed; any other split: the
    held-out problems), or a file, folder or Hub dataset through load.py."""
    if name.strip() == GRPO_DEMO:
        if split.strip() in ("", "train"):
            rows = grpo_demo_rows(cfg.seed)
            return Source("GRPO demo set", rows, list(rows[0]))
        rows = held_out_problems(cfg.seed)
        return Source("GRPO demo set (held-out problems)", rows, list(rows[0]))
    return read_source(name, cfg, split)


def check_prompt_rows(rows: Sequence[dict], where: Callable[[int], str] = row_number,
                      columns: Sequence[str] | None = None) -> list[dict]:
    """Every row checked as GRPO's prompt-only data; the rows with roles in lower case
    and every column of `columns` (missing ones as None), the others unchanged. DataError
    names the first row that cannot be used and what to do."""
    if not len(rows):
        raise DataError("The dataset has no rows.")
    columns = list(columns) if columns is not None else columns_present(rows)
    if "prompt" not in columns:
        raise DataError(_no_prompt(columns))
    out, first_form = [], None
    for i, row in enumerate(rows):
        prompt, conversational = _check_prompt(row.get("prompt"), where(i))
        if first_form is None:
            first_form = conversational
        elif conversational != first_form:
            raise DataError(
                f"Mixed forms: {where(0)} is {form_name(first_form)} but {where(i)} is "
                f"{form_name(conversational)}. Keep one form per file: every prompt text, or "
                "every prompt a list of messages.")
        checked = {c: row.get(c) for c in columns}
        checked.update((k, v) for k, v in row.items() if k not in checked)
        checked["prompt"] = prompt
        out.append(checked)
    return out


def load_prompts(name: str, cfg: RunConfig, split: str = "train") -> PromptData:
    """The checked rows of a prompt-only dataset."""
    source = read_prompt_source(name, cfg, split)
    rows = check_prompt_rows(source.rows, source.where, source.columns)
    return PromptData(rows, isinstance(rows[0]["prompt"], list), source)


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
        raise DataError(f"'{name}' is not a local file or folder, and the Hugging Face Hub "
                        "cannot be reached to load it as a dataset id: this machine is "
                        f"offline. Use '{GRPO_DEMO}', or upload a .jsonl/.csv/.parquet file "
                        "of prompts.")
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


# ---- one row -----------------------------------------------------------------------
def _check_prompt(value, where: str) -> tuple[str | list[dict], bool]:
    """The prompt in TRL's shape, and whether it is conversational."""
    if value is None:
        raise DataError(f"{where}: 'prompt' is missing. Every row needs a 'prompt'; fill it "
                        "in or remove the row.")
    if isinstance(value, str):
        if not value.strip():
            raise DataError(f"{where}: 'prompt' is empty. Write the question the model "
                            "should answer, or remove the row.")
        return value, False
    if not isinstance(value, list):
        raise DataError(f"{where}: 'prompt' is a {type(value).__name__}; it must be text or "
                        "a list of messages.")
    if not value:
        raise DataError(f"{where}: 'prompt' is an empty list of messages. Add the user's "
                        "message, or remove the row.")
    check_messages(value, "prompt", where)
    prompt = [{"role": str(m["role"]).lower(), "content": m["content"]} for m in value]
    if prompt[-1]["role"] != PROMPT_END:
        raise DataError(f"{where}: the last message of 'prompt' is from "
                        f"{prompt[-1]['role']}; a prompt must end with the user's message "
                        "(the model writes the answer). Remove the answer from the prompt; "
                        "keep it in another column, e.g. 'answer', for a reward to compare.")
    if not prompt[-1]["content"].strip():
        raise DataError(f"{where}: the user's message at the end of 'prompt' is empty.")
    return prompt, True


# ---- the file as a whole -------------------------------------------------------------
def _no_prompt(columns: Sequence[str]) -> str:
    """The message for data without a 'prompt' column."""
    present = set(columns)
    kind = next((d for needed, d in KINDS if needed <= present), None)
    listed = ", ".join(columns) or "none"
    has = f"{listed} ({kind})" if kind else listed
    return (f"GRPO reads prompts only, and the model writes the answers: the data needs a "
            f"'prompt' column (text, or messages ending with the user's turn); this file has "
            f"{has}. Put each question in a 'prompt' column; answers may stay in another "
            f"column, e.g. 'answer', for a reward to compare. Or use '{GRPO_DEMO}'.")
