"""What a model's chat template does with a conversation, learned once per template by trying
it (`habits`), and conversations fitted to it (`to_template`): the one place Chat, the samples, the
data, the preference and GRPO prompts and the Modelfile read a template's habits through.
Knows nothing of Gradio or of training.
"""
from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass

from sft_ui.i18n.message import Message

# Where a system message goes.
OWN_TURN, FIRST_USER, REFUSED, DROPPED = "own turn", "first user turn", "refused", "dropped"
_S, _U, _A, _U2 = "SYSTEM-4K7", "USER-4K7", "ANSWER-4K7", "AGAIN-4K7"
_MARKS = re.compile(r"\{%-?\s*generation\s*-?%\}")
_DATES = ("%d %b %Y", "%d %B %Y", "%Y-%m-%d", "%B %d, %Y")


@dataclass(frozen=True)
class Habits:
    """A chat template's habits (`habits` measures them)."""
    template: bool = False       # the tokenizer has a chat template at all
    system: str = OWN_TURN       # OWN_TURN, FIRST_USER, REFUSED or DROPPED
    default_system: str = ""     # written where a conversation has no system message
    alternates: bool = False     # two turns of one role in a row are refused
    end_of_turn: str = ""        # the token written after each answer
    final_end: str = ""          # after the last answer, where it differs (gpt-oss: <|return|>)
    answer_marks: bool = False   # {% generation %}: TRL's assistant-only loss can read it
    dated: bool = False          # writes today's date (Llama 3's header)


def _render(tokenizer, messages: list[dict], prompt: bool = True) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False,
                                         add_generation_prompt=prompt)


def _tries(tokenizer, messages: list[dict]) -> str | None:
    """The template's text for `messages`, or None where the template refuses them."""
    try:
        return _render(tokenizer, messages)
    except Exception:  # jinja's raise_exception, or any error of the template's own
        return None


def _specials(tokenizer) -> list[str]:
    named = list(getattr(tokenizer, "all_special_tokens", []) or [])
    added = [str(t) for t in getattr(tokenizer, "added_tokens_decoder", {}).values()
             if getattr(t, "special", False)]
    return sorted({t for t in named + added if t}, key=len, reverse=True)


def habits(tokenizer) -> Habits:
    """The habits of the tokenizer's chat template (none: `Habits()`)."""
    template = getattr(tokenizer, "chat_template", None)
    if not template or not isinstance(template, str):
        return Habits()
    return _measured(tokenizer, template, tuple(_specials(tokenizer)),
                     str(getattr(tokenizer, "eos_token", "") or ""),
                     datetime.date.today().isoformat())


@functools.lru_cache(maxsize=32)
def _measured(tokenizer, template: str, specials: tuple, eos: str, day: str) -> Habits:
    user = [{"role": "user", "content": _U}]
    answered = _tries(tokenizer, user + [{"role": "assistant", "content": _A},
                                         {"role": "user", "content": _U2}]) or ""
    after = answered.split(_A, 1)[1] if _A in answered else ""
    end = next((t for t in specials if after.startswith(t) or
                after.lstrip().startswith(t)), "")
    end = end or next((t for t in specials if t in after.split(_U2)[0]), "") or eos
    try:  # the conversation's last answer, as a finished reply ends
        last = _render(tokenizer, user + [{"role": "assistant", "content": _A}], False)
    except Exception:  # (a template that refuses it: the answers' own end)
        last = ""
    tail = last.split(_A, 1)[1].lstrip() if _A in last else ""
    final = next((t for t in specials if tail.startswith(t)), "")
    alone = _tries(tokenizer, user) or ""
    system, default = _system(tokenizer, alone, specials)
    today = datetime.date.fromisoformat(day)
    return Habits(template=True, system=system, default_system=default,
                  alternates=_tries(tokenizer, user + [{"role": "user", "content": _U2}])
                  is None,
                  end_of_turn=end, final_end=final if final != end else "",
                  answer_marks=bool(_MARKS.search(template)),
                  dated=any(today.strftime(f) in alone for f in _DATES))


def _system(tokenizer, alone: str, specials: tuple) -> tuple[str, str]:
    """Where a system message goes, and the system text written when there is none."""
    both = _tries(tokenizer, [{"role": "system", "content": _S},
                              {"role": "user", "content": _U}])
    if both is None:
        return REFUSED, ""
    if _S not in both:
        return DROPPED, ""
    before, between = both.split(_S, 1)[0], both.split(_S, 1)[1].split(_U, 1)[0]
    lead = alone.split(_U, 1)[0]
    default = ""
    if lead.startswith(before) and lead.endswith(between) and \
            len(lead) > len(before) + len(between):
        default = lead[len(before):len(lead) - len(between)]
    where = OWN_TURN if any(t in between for t in specials) else FIRST_USER
    return where, default


def _joined(first: str, second: str) -> str:
    return f"{first}\n\n{second}" if first and second else first or second


def to_template(messages: list[dict], found: Habits) -> tuple[list[dict], list]:
    """`messages` as the template takes them, and what was changed (Messages): a system
    message the template refuses or drops becomes the start of the first user message;
    where turns must alternate, turns of one role in a row are joined."""
    out, notes = [dict(m) for m in messages], []
    if found.system in (REFUSED, DROPPED) and any(m.get("role") == "system" for m in out):
        system = "\n\n".join(str(m.get("content") or "") for m in out
                               if m.get("role") == "system")
        out = [m for m in out if m.get("role") != "system"]
        first = next((m for m in out if m.get("role") == "user"), None)
        if first is None:
            out.insert(0, {"role": "user", "content": system})
        else:
            first["content"] = _joined(system, str(first.get("content") or ""))
        notes.append(Message("This model's chat template has no system role: the system "
                             "prompt is given as the start of the first user message."))
    if found.alternates:
        joined: list[dict] = []
        for m in out:
            if joined and joined[-1].get("role") == m.get("role") and m.get("role") != "system":
                joined[-1]["content"] = _joined(str(joined[-1].get("content") or ""),
                                                str(m.get("content") or ""))
            else:
                joined.append(m)
        if len(joined) < len(out):
            notes.append(Message("This model's chat template needs user and assistant turns "
                                 "to alternate: turns of one role in a row were joined into "
                                 "one."))
        out = joined
    return out, notes


CONVERSATIONS = ("messages", "prompt", "chosen", "rejected")  # a row's columns of turns


def rows_to_template(rows: list[dict], tokenizer) -> tuple[list[dict], list]:
    """Data rows (TRL's shapes) whose conversations the tokenizer's template takes (`to_template`
    on each column of turns), and what was changed (once each)."""
    found = habits(tokenizer) if tokenizer is not None else Habits()
    if not found.template:
        return rows, []
    out: list[dict] = []
    notes: list = []
    for row in rows:
        for column in CONVERSATIONS:
            if isinstance(row.get(column), list):
                fitted, said = to_template(row[column], found)
                row, notes = dict(row, **{column: fitted}), notes + said
        out.append(row)
    return out, list(dict.fromkeys(notes))


def stop_ids(tokenizer, model=None) -> list[int]:
    """The token ids a reply ends at: the model's end-of-sequence ids and the chat
    template's end-of-turn token (a model whose generation config names only `<eos>`
    would otherwise write on past `<end_of_turn>`)."""
    ids: list = []
    config = getattr(model, "generation_config", None)
    listed = getattr(config, "eos_token_id", None)
    ids += listed if isinstance(listed, list) else [listed]
    ids.append(getattr(tokenizer, "eos_token_id", None))
    found = habits(tokenizer)
    # gpt-oss ends a final answer with its own token; its <|end|> ends the reasoning
    # that comes before the final answer in the same reply, so it is no stop there.
    end = found.final_end or found.end_of_turn
    if end:
        ids.append(tokenizer.convert_tokens_to_ids(end))
    unknown = getattr(tokenizer, "unk_token_id", None)
    return list(dict.fromkeys(i for i in ids if isinstance(i, int) and i != unknown))


def stops_at_turn_end(model, tokenizer) -> None:
    """The model's generation config ends a reply at its chat template's end-of-turn
    token too (`stop_ids`): Gemma's names only `<eos>`, and a reply would run on past
    `<end_of_turn>`. Called where a model is loaded to answer or to train (Chat, a run,
    GRPO's first answers, the merged export): a run saves its config so."""
    config = getattr(model, "generation_config", None)
    if config is None:
        return
    ids = stop_ids(tokenizer, model)
    if ids:
        config.eos_token_id = ids[0] if len(ids) == 1 else ids
