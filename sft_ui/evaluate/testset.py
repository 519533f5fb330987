"""A test set: rows of prompt and reference answer, read through the same sources, format
detection and row checks as training data, so a bad file gets the same message; plain text
rows become openings to continue. Knows nothing of models.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from sft_ui.config import RunConfig
from sft_ui.data.formats import DataError, row_format
from sft_ui.data.load import load_data, normalised_rows, read_source, resolve_format
from sft_ui.data.openings import continuations, opening
from sft_ui.i18n.message import Message

RUN_EVAL = "run:"  # "run:<run id>": the eval split that run held out or was given


@dataclass
class Case:
    """One test row: what the model is asked (text, or chat messages) and the answer
    expected."""
    prompt: str | list
    reference: str

    @property
    def shown(self) -> str:
        """The prompt as a table shows it: the text, or the last user turn."""
        if isinstance(self.prompt, str):
            return self.prompt
        users = [m["content"] for m in self.prompt if m["role"] == "user"]
        return users[-1] if users else self.prompt[-1]["content"] if self.prompt else ""


@dataclass
class TestSet:
    label: str
    format: str
    cases: list[Case]
    rows: int  # rows in the source, before the limit


def _text(value) -> str:
    """A completion as text: a string, or the content of its assistant turns."""
    if isinstance(value, list):
        return "".join(str(m.get("content", "")) for m in value if isinstance(m, dict))
    return str(value)


def to_case(row: dict, where: str) -> Case:
    """A normalised row (formats.normalise) as prompt + reference: a chat row's last
    assistant turn is the reference and the turns before it the prompt; a
    prompt/completion row's completion is the reference."""
    if "messages" in row:
        messages = row["messages"]
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"),
                   default=None)
        if last is None:
            raise DataError(Message("{where} has no assistant turn: a chat test row needs "
                                    "one, the reference the model's answer is compared "
                                    "with.", where=where))
        return Case(messages[:last], messages[last]["content"])
    if "completion" in row:
        return Case(row["prompt"], _text(row["completion"]))
    raise DataError(Message("{where} is plain text: a test set needs a prompt and a "
                            "reference answer in each row, as chat messages (the last "
                            "assistant turn is the reference), prompt/completion columns, or "
                            "a question and its answer (question/answer, 質問/回答 and the "
                            "like).", where=where))


def text_cases(texts: list[str], tokenizer, length: int) -> list[Case]:
    """A text test set's cases: each text's opening (data/openings.py) as the prompt, its
    next `length` tokens as the reference; texts too short to open are left out."""
    heads = [opening(t, tokenizer) for t in texts]
    pairs = [(h, t) for h, t in zip(heads, texts) if h]
    references = continuations([h for h, _ in pairs], [t for _, t in pairs], tokenizer,
                               length)
    return [Case(h, r) for (h, _), r in zip(pairs, references)]


def _unknown_columns(source, cfg: RunConfig) -> None:
    """DataError for the first row no format fits, in a test set's words: the Train
    tab's advice (its Text field, a template) cannot make a reference answer."""
    for i, row in enumerate(source.rows):
        if row_format(row, cfg.dataset_text_field) is None:
            raise DataError(Message(
                "{where} matches no format a test set can be read in: each row needs a "
                "prompt and a reference answer, as chat messages (messages or conversations "
                "columns), prompt/completion, instruction/output, or a question and its "
                "answer (question/answer, input/output, 質問/回答 and the like). Columns: "
                "{columns}. Rename two of them to one of these pairs.",
                where=source.where(i), columns=", ".join(source.columns) or "none"))


def load_test_set(name: str, split: str = "test", limit: int = 0,
                  manager=None) -> TestSet:
    """The cases of a file, folder, Hub dataset split, or a run's eval split
    ("run:<run id>", which needs `manager`), the first `limit` of them when limit > 0."""
    name, split = str(name or "").strip(), str(split or "").strip() or "test"
    if not name:
        raise DataError(Message("Choose a test set: upload a file, type a path or a Hub "
                                "dataset id, or pick a run's eval split."))
    try:
        limit = int(limit or 0)
    except (TypeError, ValueError):
        raise DataError(Message("The row limit must be a whole number (0: every "
                                "row).")) from None
    if limit < 0:
        raise DataError(Message("The row limit must be 0 (every row) or more."))
    if name.startswith(RUN_EVAL):
        return _run_eval(name[len(RUN_EVAL):].strip(), limit, manager)
    cfg = RunConfig()
    source = read_source(name, cfg, split)
    try:
        fmt = resolve_format(source, cfg)
    except DataError:
        _unknown_columns(source, cfg)  # raises the test set's message where it applies
        raise
    if fmt == "template":
        # raises the message, at the first row ("x.txt line 1" whatever its line)
        to_case({"text": ""}, replace(source, numbers=None).where(0))
    rows, _ = normalised_rows(source, fmt, cfg, chat=True)
    if fmt == "text":
        return TestSet(source.label, fmt, [Case(r["text"], "") for r in rows[:limit or None]],
                       len(rows))
    cases = [to_case(r, source.where(i)) for i, r in enumerate(rows[:limit or None])]
    return TestSet(source.label, fmt, cases, len(rows))


def _run_eval(run_id: str, limit: int, manager) -> TestSet:
    run = manager.get(run_id)
    data = load_data(run.config, chat=True)
    if not data.eval:
        raise DataError(Message("Run {run_id} has no eval split: it trained without eval "
                                "rows (eval fraction 0 and no eval dataset). Choose a test "
                                "file instead.", run_id=run.id))
    cases = [Case(row["text"], "") if "text" in row else
             to_case(row, Message("run {run_id} eval row {n}", run_id=run.id, n=i + 1))
             for i, row in enumerate(data.eval[:limit or None])]
    return TestSet(Message("run {run_id} (eval split)", run_id=run.id), data.format, cases,
                   len(data.eval))

