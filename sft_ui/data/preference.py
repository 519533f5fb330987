"""Preference data (DPO, ORPO, KTO): rows recognised and checked as TRL's trainers read them,
and handed over in TRL's own shapes; errors name the row and what to do. Files are read by
load.py; this module only adds the demo set.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from sft_ui import models
from sft_ui.config import RunConfig
from sft_ui.data import formats
from sft_ui.data.chat_habits import rows_to_template
from sft_ui.data.files import Source
from sft_ui.data.formats import DataError, check_messages, columns_present, form_name
from sft_ui.data.load import read_source
from sft_ui.data.preference_demo import preference_demo_rows
from sft_ui.i18n.message import Message
from sft_ui.lazy import trl_class
from sft_ui.stages import PREFERENCE, PREFERENCE_DEMO, get, of_family

# TRL's dataset formats, each in standard form (strings) or conversational form (messages,
# the same form in every column of a row): "preference" for DPO and ORPO (KTO unpairs it
# itself), "implicit preference" (TRL's extract_prompt takes the shared beginning as the
# prompt), "unpaired preference" for KTO only.
COLUMNS = {
    "preference": ("prompt", "chosen", "rejected"),
    "implicit preference": ("chosen", "rejected"),
    "unpaired preference": ("prompt", "completion", "label"),
}
DESCRIPTIONS = {
    "preference": "a prompt with a chosen and a rejected answer",
    "implicit preference": "chosen and rejected conversations that start with the same prompt",
    "unpaired preference": "a prompt and one answer labelled good (true) or bad (false)",
}
LABELS = {"true": True, "false": False}  # a label written as text (CSV, TSV)
PROMPT_ENDS = ("user", "tool")  # TRL adds the generation prompt after these


@dataclass
class PreferenceData:
    """Checked rows in TRL's shapes, their format and form, and where they came from."""
    rows: list[dict]
    format: str
    conversational: bool
    source: Source
    as_chat: bool = False  # text prompts made the user's turn (formats.as_chat)


def row_number(i: int) -> str:
    """How a message names row i (0-based) of a list of rows: "row 1" first."""
    return Message("row {n}", n=i + 1)


def preference_format(rows: Iterable[dict], columns: Sequence[str] | None = None) -> str:
    """"preference", "implicit preference" or "unpaired preference", from the columns
    (those given, else every key of the first 1000 rows); DataError for other data."""
    columns = list(columns) if columns is not None else columns_present(rows)
    fmt = _format_of(columns)
    if fmt is None:
        raise DataError(Message("This file has no preference data: its columns are "
                                "{columns}. Preference data has prompt/chosen/rejected columns "
                                "(DPO, ORPO) or prompt/completion/label (KTO).",
                                columns=", ".join(columns) or "none"))
    return fmt


def check_preference_rows(rows: Sequence[dict], stage: str,
                          where: Callable[[int], str] = row_number,
                          columns: Sequence[str] | None = None) -> list[dict]:
    """Every row checked for `stage` (a preference stage's name: its `formats`, stages/;
    a KTO-like stage unpairs pairs itself); the rows in TRL's shapes (only its columns,
    roles in lower case, labels as booleans). DataError names the first row that cannot
    be used and what to do."""
    known = get(stage)
    if known is None or known.family != PREFERENCE:
        raise DataError(Message("'{stage}' is not a preference stage: use one of {stages}.",
                                stage=stage,
                                stages=", ".join(s.name for s in of_family(PREFERENCE))))
    if not len(rows):
        raise DataError(Message("The dataset has no rows."))
    columns = list(columns) if columns is not None else columns_present(rows)
    fmt = _format_of(columns)
    if fmt is None or fmt not in known.formats:
        raise DataError(_wrong_data(known, fmt, rows, columns))
    out, first_form = [], None
    for i, row in enumerate(rows):
        checked, conversational = _check_row(row, fmt, where(i))
        if first_form is None:
            first_form = conversational
        elif conversational != first_form:
            raise DataError(Message(
                "Mixed forms: {where} is {form} but {where2} is {form2}. Keep one form per "
                "file.", where=where(0), form=form_name(first_form), where2=where(i),
                form2=form_name(conversational)))
        out.append(checked)
    if known.unpaired and fmt == "unpaired preference":
        kinds = {row["label"] for row in out}
        if len(kinds) < 2:
            label = "true" if kinds.pop() else "false"
            raise DataError(Message(
                "Every label is {value}: {stage} needs good answers (true) and bad ones "
                "(false) to learn from. Add rows with the other label.", value=label,
                stage=known.title))
    return out


def interleaved_labels(rows: Sequence[dict], seed: int) -> list[dict]:
    """Unpaired rows (prompt, completion, label) in an order where good and bad answers
    alternate, each kind shuffled by `seed`, the rest of the larger kind spread evenly:
    KTO reads its rows in order and compares the good with the bad answers of a batch,
    so a file sorted by label (or pairs unpaired as all the good answers, then all the
    bad) would train on batches of one kind."""
    rng = random.Random(seed)
    good = [r for r in rows if r["label"]]
    bad = [r for r in rows if not r["label"]]
    rng.shuffle(good)
    rng.shuffle(bad)
    more, fewer = (good, bad) if len(good) >= len(bad) else (bad, good)
    out, taken = [], 0
    for i, row in enumerate(more):  # each of `fewer` after its share of `more`
        out.append(row)
        due = (i + 1) * len(fewer) // len(more)
        out += fewer[taken:due]
        taken = due
    return out


def unpaired(rows: Sequence[dict]) -> list[dict]:
    """Pairs (prompt, chosen, rejected) as two unpaired rows each: the chosen answer good,
    the rejected one bad (what TRL's KTOTrainer does to pairs itself)."""
    return [{"prompt": r["prompt"], "completion": r[answer], "label": answer == "chosen"}
            for r in rows for answer in ("chosen", "rejected")]


def is_conversational(rows: Sequence[dict]) -> bool:
    """Whether checked rows are in the conversational form (TRL's is_conversational)."""
    return bool(rows) and any(isinstance(v, list) for v in rows[0].values())


def read_preference_source(name: str, cfg: RunConfig, split: str = "train") -> Source:
    """The preference demo set, or a file, folder or Hub dataset through load.py."""
    if name.strip() == PREFERENCE_DEMO:
        rows = preference_demo_rows()
        return Source(Message("preference demo set"), rows, list(rows[0]))
    return read_source(name, cfg, split)


def load_preference(name: str, cfg: RunConfig, stage: str, split: str = "train",
                    tokenizer=None) -> PreferenceData:
    """The checked rows of a preference dataset for `stage`; for a `tokenizer` with a chat
    template, text rows with a prompt as conversations (formats.as_chat: the form Chat
    asks in; `as_chat` then says so)."""
    source = read_preference_source(name, cfg, split)
    rows = check_preference_rows(source.rows, stage, source.where, source.columns)
    fmt = preference_format(source.rows, source.columns)  # (the rows' check found one)
    turned = tokenizer is not None and formats.chat_form(cfg, tokenizer) and \
        not is_conversational(rows) and "prompt" in COLUMNS.get(fmt, ("prompt",))
    if turned:
        rows = [formats.as_chat(row, ANSWERS) for row in rows]
    rows, notes = rows_to_template(rows, tokenizer)
    source.notes = list(dict.fromkeys([*source.notes, *notes]))
    return PreferenceData(rows, fmt, is_conversational(rows), source, turned)


def check_preference_dataset(cfg: RunConfig) -> str:
    """Quick check before a preference run starts (as load.check_dataset for SFT data):
    the demo set and local data are read and every row checked; a Hub id only needs the
    Hub to be reachable (the download happens in the run). Returns the format, or "hub"."""
    name, eval_name = cfg.dataset_name.strip(), cfg.eval_dataset_name.strip()
    if eval_name and os.path.exists(Path(eval_name).expanduser()):  # its rows checked too
        load_preference(eval_name, cfg, cfg.stage, cfg.dataset_test_split.strip() or "test")
    if name == PREFERENCE_DEMO or os.path.exists(Path(name).expanduser()):
        return load_preference(name, cfg, cfg.stage, cfg.dataset_train_split).format
    if not models.hub_reachable():
        raise DataError(Message("'{name}' is not a local file or folder, and the Hugging Face "
                                "Hub cannot be reached to load it as a dataset id: this "
                                "machine is offline. Use '{PREFERENCE_DEMO}', or upload a "
                                ".jsonl/.csv/.parquet file of preference rows.", name=name,
                                PREFERENCE_DEMO=PREFERENCE_DEMO))
    return "hub"


# ---- one row -----------------------------------------------------------------------
def _check_row(row: dict, fmt: str, where: str) -> tuple[dict, bool]:
    """The row in TRL's shape, and whether it is conversational."""
    texts: tuple[str, ...]
    if fmt == "unpaired preference":
        texts = ("prompt", "completion")
    else:
        texts = COLUMNS[fmt]
    values = {c: _present(row, c, where) for c in texts}
    conversational = isinstance(values[texts[0]], list)
    for column, value in values.items():
        if isinstance(value, list) != conversational:
            raise DataError(Message(
                "{where}: '{first}' is {form} but '{column}' is {form2}. Use text for every "
                "column of a row, or messages for every one.", where=where, first=texts[0],
                form=form_name(conversational), column=column,
                form2=form_name(isinstance(value, list))))
        if conversational:
            _check_messages(value, column, where)
        elif not isinstance(value, str):
            raise DataError(Message("{where}: '{column}' is a {type}; it must be text or a "
                                    "list of messages.", where=where, column=column,
                                    type=type(value).__name__))
        elif not value.strip():
            raise DataError(Message("{where}: '{column}' is empty.", where=where,
                                    column=column))
    out = {c: _lowered(v) for c, v in values.items()}
    if conversational and "prompt" in out and out["prompt"][-1]["role"] not in PROMPT_ENDS:
        raise DataError(Message("{where}: the last message of 'prompt' is from {role}; a "
                                "prompt must end with the user's message.", where=where,
                                role=out["prompt"][-1]["role"]))
    if fmt == "unpaired preference":
        out["label"] = _label(row.get("label"), where)
        return out, conversational
    if _same(out["chosen"], out["rejected"]):
        raise DataError(Message("{where}: 'chosen' and 'rejected' are the same answer; a "
                                "preference needs two different answers. Fix the row or "
                                "remove it.", where=where))
    if fmt == "implicit preference":
        _check_shared_prompt(out["chosen"], out["rejected"], conversational, where)
    return out, conversational


def _present(row: dict, column: str, where: str):
    value = row.get(column)
    if value is None:
        raise DataError(Message("{where}: '{column}' is missing. Every row needs '{column}'; "
                                "fill it in or remove the row.", where=where, column=column))
    return value


def _check_messages(messages: list, column: str, where: str) -> None:
    if not messages:
        raise DataError(Message("{where}: '{column}' is an empty list of messages.",
                                where=where, column=column))
    check_messages(messages, column, where)
    if not any(m["content"].strip() for m in messages):
        raise DataError(Message("{where}: '{column}' is empty.", where=where, column=column))


def _lowered(value):
    if isinstance(value, list):
        return [{"role": str(m["role"]).lower(), "content": m["content"]} for m in value]
    return value


def _label(value, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in LABELS:
        return LABELS[value.strip().lower()]
    raise DataError(Message("{where}: 'label' must be true or false (it is {value}): true "
                            "for a good answer, false for a bad one.", where=where,
                            value=repr(value)))


def _same(chosen, rejected) -> bool:
    if isinstance(chosen, str):
        return chosen.strip() == rejected.strip()
    return [(m["role"], m["content"].strip()) for m in chosen] == \
        [(m["role"], m["content"].strip()) for m in rejected]


def _check_shared_prompt(chosen, rejected, conversational: bool, where: str) -> None:
    """With no 'prompt', TRL takes the shared beginning of chosen and rejected as the
    prompt: there must be one, ending with the user's message, and answers after it."""
    shared = 0
    while shared < min(len(chosen), len(rejected)) and chosen[shared] == rejected[shared]:
        shared += 1
    if conversational:
        good = 0 < shared < min(len(chosen), len(rejected)) and \
            chosen[shared - 1]["role"] in PROMPT_ENDS
    else:
        good = bool(chosen[:shared].strip())
    if not good:
        raise DataError(Message(
            "{where}: 'chosen' and 'rejected' do not start with the same prompt. Without a "
            "'prompt' column, both must hold the same prompt (the same first messages, up to "
            "the user's) followed by a different answer; or add a 'prompt' column.",
            where=where))


# ---- the file as a whole -------------------------------------------------------------
def _format_of(columns: Sequence[str]) -> str | None:
    present = set(columns)
    if {"chosen", "rejected"} <= present:
        return "preference" if "prompt" in present else "implicit preference"
    if {"prompt", "completion", "label"} <= present:
        return "unpaired preference"
    return None


def _wrong_data(stage, fmt: str | None, rows: Sequence[dict],
                columns: Sequence[str]) -> str:
    """The message for data that `stage`'s trainer (a Stage) cannot take."""
    name, listed = stage.title, ", ".join(columns) or "none"
    if fmt == "unpaired preference":  # DPO or ORPO given KTO's data
        return Message("{name} needs prompt/chosen/rejected columns; this file has "
                       "prompt/completion/label (unpaired preference, for KTO): choose KTO, "
                       "or pair each prompt's good and bad answers as chosen and rejected.",
                       name=name)
    need = Message("{columns} columns", columns=stage.columns)
    sft = formats.row_format(rows[0], "text") if isinstance(rows[0], dict) else None
    if sft is not None:
        description = Message(formats.DESCRIPTIONS[sft])
        todo = Message("add a label, true or false, to each prompt and completion"
                       if stage.unpaired else "add a chosen and a rejected answer to each prompt")
        return Message("{name} needs {what}; this file has {columns} ({description}), which "
                       "is data for SFT: use it for SFT, or {action}.", name=name, what=need,
                       columns=listed, description=description, action=todo)
    return Message("{name} needs {what}; this file has {columns}. Rename its columns, or "
                   "choose another file.", name=name, what=need, columns=listed)


ANSWERS = ("chosen", "rejected", "completion")  # the answers of a preference row


def rendered(row: dict, tokenizer) -> dict:
    """A checked preference row as the model reads it: the prompt and each answer as
    text (the chat template applied to messages, the shared beginning taken as the
    prompt where there is no prompt column, the end-of-text token after a plain-text
    answer, as TRL's trainers do); a KTO row keeps its label."""
    extract = trl_class("trl.data_utils", "maybe_extract_prompt")
    apply = trl_class("trl.data_utils", "maybe_apply_chat_template")
    conversational = is_conversational([row])
    row = apply(extract(dict(row)), tokenizer)
    if not conversational and tokenizer.eos_token:
        row = {k: v + tokenizer.eos_token if k in ANSWERS and not v.endswith(
            tokenizer.eos_token) else v for k, v in row.items()}
    return row
