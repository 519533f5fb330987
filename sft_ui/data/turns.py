"""Loss on every answer of a conversation: a chat row's tokens with the mask that trains each
assistant turn and nothing else, by the template's own marks (or TRL's training template)
where there are some, else computed turn by turn. Knows nothing of the trainer's run or the UI.
"""
from __future__ import annotations

from sft_ui.i18n.message import Message
from sft_ui.lazy import trl_chat_templates

ASSISTANT = "assistant"


def every_answer(cfg, row: dict) -> bool:
    """Whether a normalised row is trained on every answer: a conversation under Loss on
    answers only, unless Loss on the last answer only (mask_history) is on."""
    return "messages" in row and bool(cfg.completion_only_loss) and \
        not getattr(cfg, "mask_history", False)


def asked_apart(cfg, rows: list[dict], tokenizer) -> bool:
    """Whether conversational prompt/completion rows (answers only) meet a template that
    writes a prompt alone otherwise than inside the whole conversation (a thinking
    template's "<think>\n" after the generation prompt): TRL would leave that end of the
    prompt out of what the model is trained on. Such rows are then trained as
    conversations (`as_conversations`), masked as the model is asked."""
    row = rows[0] if rows else {}
    if cfg.completion_only_loss is False or not isinstance(row.get("prompt"), list) or \
            not isinstance(row.get("completion"), list) or \
            any(m.get("role") == ASSISTANT for m in row["prompt"]):
        return False
    asked = render(tokenizer, row["prompt"], True)
    return not render(tokenizer, row["prompt"] + row["completion"], False).startswith(asked)


def as_conversations(rows: list[dict]) -> list[dict]:
    """Prompt/completion rows as conversations whose answers are the completion's turns."""
    return [{"messages": r["prompt"] + r["completion"],
             **({"tools": r["tools"]} if r.get("tools") else {})} for r in rows]


def as_trained(cfg, rows: list[dict], tokenizer, apart: bool | None = None
               ) -> tuple[list[dict], Message | None]:
    """`rows` as the trainer takes them, each answer masked in as the model is asked, and
    how (None: the rows as they are): conversations trained on every answer (`masked`), or
    prompt/completion rows the template asks apart (`asked_apart`; None: read from `rows`)
    as conversations."""
    if asked_apart(cfg, rows, tokenizer) if apart is None else apart:
        return masked(as_conversations(rows), tokenizer, apart=True)
    if any(every_answer(cfg, row) for row in rows[:1]):
        return masked(rows, tokenizer)
    return rows, None


def answers_in(messages: list[dict]) -> int:
    return sum(1 for m in messages if m.get("role") == ASSISTANT)


def training_template(tokenizer) -> str | None:
    """The template whose marks TRL masks assistant turns by: the tokenizer's own where it
    has them, TRL's training template for it, else None (the mask is computed)."""
    get_training_chat_template, has_generation_markers, _ = trl_chat_templates()
    own = tokenizer.chat_template
    if isinstance(own, dict):
        own = own.get("default")
    if not own:
        return None
    try:
        patched = get_training_chat_template(tokenizer)
    except (ValueError, TypeError, KeyError):  # (a template TRL has no training copy of)
        patched = None
    if patched:
        return patched
    return own if has_generation_markers(own) else None


def masked(rows: list[dict], tokenizer, apart: bool = False
           ) -> tuple[list[dict], Message | None]:
    """Each conversation row as `input_ids` and `assistant_masks` (other rows as they
    are), and how the mask was made (None: no conversation among them); `apart`: the rows
    were prompt/completion rows that the template asks apart (`asked_apart`). The rows
    leave as TRL's tokenized rows: its trainer builds the labels from them and tokenizes
    nothing again."""
    if not any("messages" in r and "input_ids" not in r for r in rows):
        return rows, None
    template = training_template(tokenizer)
    out, moved = [], 0
    for row in rows:
        if "messages" in row and "input_ids" not in row:
            row, found = _masked_row(row, tokenizer, template)
            moved += not found
        out.append(row)
    if template is not None and apart:
        how = Message("This chat template writes a prompt alone otherwise than inside the "
                      "whole conversation (what it adds after the prompt when the model is "
                      "asked): each answer is trained through TRL's training template for "
                      "it, so nothing of the prompt is left out.")
    elif template is not None:
        how = Message("Every answer of each conversation is trained, masked by the chat "
                      "template's own marks for assistant turns (TRL's training template).")
    elif apart:
        how = Message("This chat template writes a prompt alone otherwise than inside the "
                      "whole conversation, and TRL has no training template for it: each "
                      "answer was found by its text in the whole conversation; the model "
                      "may be asked in a form it was not trained in.")
    elif moved:
        how = Message("Every answer of each conversation is trained; the chat template "
                      "writes {rows} of them differently inside the whole conversation than "
                      "when the model is asked, and their answers were found by their text.",
                      rows=moved)
    else:
        how = Message("Every answer of each conversation is trained, each as the model will "
                      "be asked to write it (the chat template's turn, its end mark "
                      "included); system, user and tool turns are not.")
    return out, how


def _masked_row(row: dict, tokenizer, template: str | None) -> tuple[dict, bool]:
    """(the row tokenized with its mask, whether every span was found by rendering)."""
    messages = row["messages"]
    extra = {"tools": row["tools"]} if row.get("tools") else {}
    if template is not None:
        out = tokenizer.apply_chat_template(messages, chat_template=template, tokenize=True,
                                            return_dict=True,
                                            return_assistant_tokens_mask=True, **extra)
        return {"input_ids": list(out["input_ids"]),
                "assistant_masks": list(out["assistant_masks"])}, True
    full = render(tokenizer, messages, False, extra)
    spans, rendered = spans_of(messages, tokenizer, extra, full)
    encoded = tokenizer(full, add_special_tokens=False, return_offsets_mapping=True)
    mask = [int(any(start <= a < end for start, end in spans))
            for a, _ in encoded["offset_mapping"]]
    return {"input_ids": list(encoded["input_ids"]), "assistant_masks": mask}, rendered


def render(tokenizer, messages: list[dict], ask: bool, extra: dict | None = None) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False,
                                         add_generation_prompt=ask, **(extra or {}))


def spans_of(messages: list[dict], tokenizer, extra: dict | None = None,
             full: str | None = None) -> tuple[list[tuple[int, int]], bool]:
    """The character spans of the whole conversation's text (`full`, rendered here where
    not given) that are assistant turns, and whether each was found by rendering (True)
    rather than by its text. A turn's span is what the conversation up to it adds to the
    conversation before it with the generation prompt (the turn as the model is later
    asked to write it, its end-of-turn mark included); a turn the template renders
    otherwise inside the whole (a thinking template dropping earlier reasoning) is found
    by its text."""
    full = render(tokenizer, messages, False, extra) if full is None else full
    spans, by_render, after = [], True, 0
    for i, message in enumerate(messages):
        if message.get("role") != ASSISTANT:
            continue
        asked = render(tokenizer, messages[:i], True, extra) if i else ""
        through = render(tokenizer, messages[:i + 1], False, extra)
        if through.startswith(asked) and full.startswith(through) and len(asked) >= after:
            spans.append((len(asked), len(through)))
            after = len(through)
            continue
        by_render = False  # (the turn reads otherwise inside the whole: found by its text)
        content = str(message.get("content") or "")
        start = full.find(content, after) if content else -1
        if start < 0:
            continue
        end = start + len(content)
        eos = tokenizer.eos_token or ""
        tail = full[end:end + len(eos) + 2]
        if eos and eos in tail:  # its end-of-turn mark, where it follows at once
            end += tail.index(eos) + len(eos)
        spans.append((start, end))
        after = end
    return spans, by_render


def turns_said(cfg, rows: list[dict]) -> Message | None:
    """What the preview says of the answers a file's conversations train (None: no
    conversation of more than one answer among `rows`)."""
    counts = [answers_in(r["messages"]) for r in rows if "messages" in r]
    if not counts or max(counts) < 2:
        return None
    turns = sum(counts)
    if not cfg.completion_only_loss:
        return Message("Every token of each conversation is trained, its {turns} answers "
                       "and its prompts alike (Loss on answers only is off).", turns=turns)
    if getattr(cfg, "mask_history", False):
        return Message("Of the {turns} answers in these {rows} conversations, {trained} are "
                       "trained: the last of each (Loss on the last answer only).",
                       turns=turns, rows=len(counts), trained=len(counts))
    return Message("All {turns} answers in these {rows} conversations are trained, every "
                   "assistant turn, not only the last.", turns=turns, rows=len(counts))


def asked_apart_said(cfg, rows: list[dict], tokenizer) -> Message | None:
    """What the preview says where the template asks a prompt apart (`asked_apart`)."""
    if not asked_apart(cfg, rows, tokenizer):
        return None
    return masked(as_conversations(rows[:1]), tokenizer, apart=True)[1]


def reasoning_said(cfg, rows: list[dict], tokenizer) -> Message | None:
    """What the preview says of reasoning in a file's conversations (a message's
    reasoning_content or thinking, or "<think>...</think>" in an answer): how many answers
    carry it and how many of those the template the run trains with keeps (a chat
    template drops it from earlier turns, as the model is later asked; TRL's training
    template keeps every turn's, and each is trained); None where no answer carries any."""
    carried = kept = 0
    template = training_template(tokenizer) if rows and every_answer(cfg, rows[0]) \
        else None
    extra = {"chat_template": template} if template else {}
    for row in rows:
        messages = row.get("messages") or []
        reasons = [_reasoning(m) for m in messages if m.get("role") == ASSISTANT]
        if not any(reasons):
            continue
        try:
            shown = render(tokenizer, messages, False, {
                **extra, **({"tools": row["tools"]} if row.get("tools") else {})})
        except Exception:  # (a template that refuses the row: the data's checks say why)
            continue
        carried += sum(1 for r in reasons if r)
        kept += sum(1 for r in reasons if r and r in shown)
    if not carried:
        return None
    if template:
        return Message("{carried} answers carry reasoning (`reasoning_content`, "
                       "`thinking` or `<think>`): TRL's training template for this chat "
                       "template keeps it in {kept} of them, and each kept is trained.",
                       carried=carried, kept=kept)
    return Message("{carried} answers carry reasoning (`reasoning_content`, "
                   "`thinking` or `<think>`): the chat template keeps it in {kept} of them "
                   "and drops the rest, as it will when the model is asked.",
                   carried=carried, kept=kept)


def _reasoning(message: dict) -> str:
    """A message's reasoning text, in either common shape ("": none)."""
    own = message.get("reasoning_content") or message.get("thinking")
    if own:
        return str(own).strip()
    content = str(message.get("content") or "")
    if "</think>" in content:
        return content.split("</think>", 1)[0].replace("<think>", "").strip()
    return ""
