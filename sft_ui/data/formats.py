"""Data formats: a row's shape recognised, every row checked (errors name the row and what to
do), and rows turned into TRL's three shapes: {"text"}, {"messages"} or {"prompt",
"completion"}. Knows nothing of files, models or training.
"""
from __future__ import annotations

import string
from typing import Callable, Iterable

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message

# Columns that identify a format, in the order auto-detection tries them.
FORMAT_COLUMNS = {
    "messages": ("messages",),
    "sharegpt": ("conversations",),
    "prompt/completion": ("prompt", "completion"),
    "alpaca": ("instruction", "output"),
}
# A question and its answer under other names: a prompt and its completion.
QUESTION_ANSWER = (("question", "answer"), ("input", "output"), ("query", "response"),
                   ("instruction", "response"), ("prompt", "answer"), ("prompt", "response"),
                   ("question", "response"), ("source", "target"), ("input", "target"),
                   ("質問", "回答"), ("質問", "答え"), ("問題", "答え"), ("問題", "解答"),
                   ("問い", "答え"), ("入力", "出力"))
ROLES = ("system", "user", "assistant", "tool")
# what a message carries besides its role and text, which templates render (tools' calls
# and replies; reasoning apart from the answer, as Qwen3 and DeepSeek-R1 templates read it)
TURN_KEYS = ("tool_calls", "name", "tool_call_id", "reasoning_content", "thinking")
SHAREGPT_ROLES = {"system": "system", "human": "user", "user": "user", "gpt": "assistant",
                  "assistant": "assistant", "model": "assistant", "bot": "assistant",
                  "tool": "tool", "function": "tool"}
ALPACA_PLAIN = "### Instruction:\n{instruction}\n\n### Response:\n"
ALPACA_PLAIN_INPUT = "### Instruction:\n{instruction}\n\n### Input:\n{input}\n\n### Response:\n"
DESCRIPTIONS = {
    "text": "plain text: the model learns every token",
    "messages": "chat messages (role/content), rendered with the model's chat template",
    "prompt/completion": "prompt and completion",
    "alpaca": "Alpaca style instruction/input/output, turned into prompt and completion",
    "sharegpt": "ShareGPT style conversations (from/value), turned into chat messages",
    "question/answer": "a question and its answer, turned into prompt and completion",
    "template": "your template over the columns",
}


class DataError(UserError, ValueError):
    """Data that cannot be used; the message names the file or row and what to do
    (`messages`: it, as it was made, a Message kept whole for the page)."""


def row_format(row: dict, text_field: str) -> str | None:
    """The format a single row looks like (by its non-empty columns), or None."""
    present = {k for k, v in row.items() if v is not None}
    for fmt, cols in FORMAT_COLUMNS.items():
        if set(cols) <= present:
            return fmt
    if text_field in present:
        return "text"
    return "question/answer" if question_answer(present) else None


def question_answer(columns) -> tuple[str, str] | None:
    """The (question, answer) columns of QUESTION_ANSWER that `columns` hold (names
    compared without case), or None."""
    lowered = {str(c).strip().lower(): c for c in columns}
    for question, answer in QUESTION_ANSWER:
        if question in lowered and answer in lowered:
            return lowered[question], lowered[answer]
    return None


def detect(rows: Iterable[dict], columns: list[str], text_field: str,
           where: Callable[[int], str]) -> str:
    """The format of every row, or DataError for unknown columns or mixed formats."""
    first = None
    for i, row in enumerate(rows):
        fmt = row_format(row, text_field)
        if fmt is None:
            raise DataError(Message(
                "{where} matches no known format: it has no '{field}' column and no chat "
                "columns (messages, conversations, prompt/completion, instruction/output, "
                "question/answer). Columns: {columns}. Set 'Text field' (in the Dataset "
                "panel) to one of them, or choose the format 'template' there and write a "
                "template.", where=where(i), field=text_field,
                columns=", ".join(columns) or "none"))
        if first is None:
            first = fmt
        elif fmt != first:
            raise DataError(Message(
                "Mixed formats: {where} is {first} but {where2} is {second}. Keep one format "
                "per file, or choose the format explicitly.", where=where(0), first=first,
                where2=where(i), second=fmt))
    if first is None:
        raise DataError(Message("The dataset has no rows."))
    return first


def check_row(row: dict, fmt: str, cfg, where: str) -> None:
    """Raise DataError when `row` cannot be used as `fmt`."""
    if fmt == "text":
        _need_text(row, cfg.dataset_text_field, where, allow_empty=True)
    elif fmt == "messages":
        _check_turns(row.get("messages"), "messages", "role", "content", ROLES, where)
    elif fmt == "sharegpt":
        _check_turns(row.get("conversations"), "conversations", "from", "value",
                     tuple(SHAREGPT_ROLES), where)
    elif fmt == "prompt/completion":
        prompt, completion = row.get("prompt"), row.get("completion")
        if isinstance(prompt, list) and isinstance(completion, list):
            _check_turns(prompt, "prompt", "role", "content", ROLES, where, allow_empty=True)
            _check_turns(completion, "completion", "role", "content", ROLES, where)
        else:
            _need_text(row, "prompt", where, allow_empty=True)
            _need_text(row, "completion", where)
    elif fmt == "question/answer":
        pair = question_answer(k for k, v in row.items() if v is not None)
        if pair is None:
            raise DataError(Message("{where}: no question and answer columns (such as "
                                    "question/answer or input/output).", where=where))
        _need_text(row, pair[0], where)
        _need_text(row, pair[1], where)
    elif fmt == "alpaca":
        _need_text(row, "instruction", where)
        _need_text(row, "output", where)
        if row.get("input") is not None and not isinstance(row["input"], str):
            raise DataError(Message("{where}: 'input' must be text.", where=where))
    elif fmt == "template":
        render_template(cfg.dataset_template, row, where)


def normalise(row: dict, fmt: str, cfg, chat: bool) -> dict:
    """The row in one of TRL's shapes; `chat` says whether the model has a chat template
    (a text prompt and its answer then become a conversation, unless `prompts_as_chat`
    is off: `as_chat`)."""
    turns = chat and getattr(cfg, "prompts_as_chat", True)
    if fmt == "text":
        return {"text": row[cfg.dataset_text_field]}
    if fmt == "template":
        return {"text": render_template(cfg.dataset_template, row, "")}
    if fmt == "sharegpt":
        row = {"messages": [{"role": SHAREGPT_ROLES[str(t["from"]).lower()],
                             "content": t["value"]} for t in row["conversations"]]}
        fmt = "messages"
    if fmt == "messages":
        messages = [turn(m) for m in row["messages"]]
        tools = {"tools": row["tools"]} if row.get("tools") else {}
        # answers only: every assistant turn trained (data/turns.py masks them), or the
        # last alone where mask_history asks for it
        if cfg.completion_only_loss and getattr(cfg, "mask_history", False) and \
                messages[-1]["role"] == "assistant":
            return {"prompt": messages[:-1], "completion": messages[-1:], **tools}
        return {"messages": messages, **tools}
    if fmt == "alpaca":
        instruction, extra = row["instruction"], (row.get("input") or "").strip()
        if turns:
            user = f"{instruction}\n\n{extra}" if extra else instruction
            return {"prompt": [{"role": "user", "content": user}],
                    "completion": [{"role": "assistant", "content": row["output"]}]}
        plain = ALPACA_PLAIN_INPUT if extra else ALPACA_PLAIN
        return {"prompt": plain.format(instruction=instruction, input=extra),
                "completion": row["output"]}
    if fmt == "question/answer":
        columns = question_answer(k for k, v in row.items() if v is not None)
        assert columns is not None  # (what made its format question/answer)
        question, answer = columns
        row = {"prompt": row[question], "completion": row[answer]}
    pair = {"prompt": row["prompt"], "completion": row["completion"]}
    return as_chat(pair, ("completion",)) if turns else pair


def turn(message: dict) -> dict:
    """A conversation's message as chat templates read it: its role and text, and what a
    template renders besides (tool calls, a tool's name, reasoning kept apart)."""
    out = {"role": str(message["role"]).lower(), "content": message.get("content") or ""}
    out.update({key: message[key] for key in TURN_KEYS if message.get(key)})
    return out


def chat_form(cfg, tokenizer) -> bool:
    """Whether text prompts reach this model as the user's turn of a conversation: it has
    a chat template (Chat, Compare, Evaluate and the samples ask through it) and
    `prompts_as_chat` is on. One rule for every stage; otherwise the text is read as it
    is."""
    return bool(getattr(cfg, "prompts_as_chat", True)) and \
        bool(getattr(tokenizer, "chat_template", None))


def as_chat(row: dict, answers: tuple[str, ...] = ()) -> dict:
    """A row whose "prompt" is text as a conversation: the prompt the user's turn, each
    column of `answers` that is text the assistant's; other columns unchanged. A row
    already in messages, or without a prompt, is returned as it is."""
    if not isinstance(row.get("prompt"), str):
        return row
    out = dict(row, prompt=[{"role": "user", "content": row["prompt"]}])
    for column in answers:
        if isinstance(row.get(column), str):
            out[column] = [{"role": "assistant", "content": row[column]}]
    return out


def became_chat(raw: dict, shaped: dict) -> bool:
    """Whether a row whose prompt was text (or an instruction, a question) is a
    conversation now (`as_chat`)."""
    return isinstance(shaped.get("prompt"), list) and not any(
        isinstance(v, list) for v in raw.values())


def chat_note(model_name: str) -> str:
    """What the preview, the plan and the log say when text prompts became chat turns."""
    return Message("Text prompts are given to {model} as the user's turn of its chat "
                   "template, as Chat, Compare and Evaluate ask it (Text prompts as chat, in "
                   "Dataset).", model=model_name.rstrip("/").split("/")[-1])


def is_chat(row: dict) -> bool:
    """Whether a normalised row needs the model's chat template."""
    return "messages" in row or isinstance(row.get("prompt"), list)


def render_template(template: str, row: dict, where: str) -> str:
    """`template` with {column} filled from `row`; DataError names a missing column."""
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as e:
        raise DataError(Message("The template is not valid ({error}). Write columns as "
                                "{{name}} and literal braces as {{{{ and }}}}.",
                                error=str(e))) from None
    missing = [n for n in names if n not in row]
    if missing:
        raise DataError(Message("The template uses {{{name}}} but the data has no such "
                                "column. Columns: {columns}.", name=missing[0],
                                columns=", ".join(row)))
    if any(not n or not n.isidentifier() for n in names):
        raise DataError("The template may only name columns, like {question}; "
                          "positional {} and expressions are not allowed.")
    return template.format_map({k: "" if v is None else v for k, v in row.items()})


def _need_text(row: dict, column: str, where: str, allow_empty: bool = False) -> None:
    value = row.get(column)
    if value is None:
        raise DataError(Message(
            "{where}: '{column}' is missing (the row has {columns}). Choose another data "
            "format, or rename the column.", where=where, column=column,
            columns=", ".join(k for k, v in row.items() if v is not None) or "nothing"))
    if not isinstance(value, str):
        raise DataError(Message("{where}: '{column}' is a {kind}, not text.", where=where,
                                column=column, kind=type(value).__name__))
    if not allow_empty and not value.strip():
        raise DataError(Message("{where}: '{column}' is empty.", where=where, column=column))


def _check_turns(turns, column: str, role_key: str, text_key: str, roles: tuple,
                 where: str, allow_empty: bool = False) -> None:
    if not isinstance(turns, list) or (not turns and not allow_empty):
        raise DataError(Message("{where}: '{column}' must be a non-empty list of "
                                "{{'{role}': ..., '{content}': ...}} entries.", where=where,
                                column=column, role=role_key, content=text_key))
    for n, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            raise DataError(Message("{where}: entry {n} of '{column}' is not an object with "
                                    "'{role}' and '{content}'.", where=where, n=n,
                                    column=column, role=role_key, content=text_key))
        for key in (role_key, text_key):
            if turn.get(key) is None and not (key == text_key and turn.get("tool_calls")):
                raise DataError(Message("{where}: entry {n} of '{column}' has no '{key}'. "
                                        "Each entry needs '{role}' and '{content}'.",
                                        where=where, n=n, column=column, key=key,
                                        role=role_key, content=text_key))
        if str(turn[role_key]).lower() not in roles:
            raise DataError(Message("{where}: entry {n} of '{column}' has {role} '{value}'; "
                                    "use one of {roles}.", where=where, n=n, column=column,
                                    role=role_key, value=str(turn[role_key]),
                                    roles=", ".join(roles)))
        if not isinstance(turn.get(text_key) or "", str):
            raise DataError(Message("{where}: entry {n} of '{column}' has a {content} that "
                                    "is not text.", where=where, n=n, column=column,
                                    content=text_key))


def form_name(conversational: bool) -> str:
    """How a message names a row's form: chat messages, or plain text."""
    return "messages" if conversational else "text"


def columns_present(rows: Iterable[dict]) -> list[str]:
    """The columns the first 1000 rows fill (a value that is not None), in order."""
    seen: dict[str, None] = {}
    for n, row in enumerate(rows):
        if n >= 1000:
            break
        if isinstance(row, dict):
            seen.update((k, None) for k, v in row.items() if v is not None)
    return list(seen)


def check_messages(messages: list, column: str, where: str) -> None:
    """Each message of a row's `column` has a role of ROLES and text content; DataError
    naming the row and the message otherwise."""
    for n, message in enumerate(messages, 1):
        if not isinstance(message, dict) or message.get("role") is None \
                or message.get("content") is None:
            raise DataError(Message("{where}: message {n} of '{column}' needs a 'role' and "
                                    "a 'content'.", where=where, n=n, column=column))
        if str(message["role"]).lower() not in ROLES:
            raise DataError(Message("{where}: message {n} of '{column}' has role '{role}'; "
                                    "use one of {roles}.", where=where, n=n, column=column,
                                    role=str(message["role"]), roles=", ".join(ROLES)))
        if not isinstance(message["content"], str):
            raise DataError(Message("{where}: message {n} of '{column}' has a content that "
                                    "is not text.", where=where, n=n, column=column))
