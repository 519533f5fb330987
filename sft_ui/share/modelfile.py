"""An Ollama `Modelfile` for an exported GGUF file: FROM the file, a TEMPLATE that writes a
conversation exactly as the model's own chat template does (or none, where it cannot),
its default system prompt, stop tokens and a few sampling PARAMETERs. Knows nothing of
Gradio or of the conversion.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sft_ui.data.chat_habits import habits

_MARK = {"system": "SYSTEM-7Q2", "user": "USER-7Q2", "assistant": "ASSISTANT-7Q2"}


@dataclass
class ChatShape:
    """The text around each role's content in a conversation."""
    before: dict[str, str]   # role -> text before its content
    after: str               # after every message but an unfinished last one
    default_system: str      # what the template writes when no system message is given


def _render(tokenizer, messages, generation_prompt: bool) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False,
                                         add_generation_prompt=generation_prompt)


def _common_prefix(texts: list[str]) -> str:
    out = texts[0]
    for text in texts[1:]:
        while not text.startswith(out):
            out = out[:-1]
    return out


def measure(tokenizer) -> ChatShape | None:
    """The shape of the tokenizer's chat template, or None when it has none or its
    output is not of the one-block-per-message shape. Ollama's templates are Go, not
    Jinja: the template is not translated but measured, rendered on marker messages for
    the text around each role's content, then checked against the Jinja rendering of a
    longer conversation (`_fits`). Where they differ (per-turn logic) the Modelfile
    leaves TEMPLATE out, so Ollama uses the chat template stored in the GGUF file."""
    if not getattr(tokenizer, "chat_template", None):
        return None
    m = _MARK
    try:
        full = _render(tokenizer, [{"role": r, "content": m[r]} for r in m], False)
        prompt = _render(tokenizer, [{"role": "user", "content": m["user"]}], True)
        shape = _measure(full, prompt)
        if shape is not None and _fits(tokenizer, shape):
            return shape
    except Exception:  # a template that refuses the marker conversation
        pass
    return None


def _measure(full: str, prompt: str) -> ChatShape | None:
    m = _MARK
    start, rest = full.split(m["system"], 1)
    between_su, rest = rest.split(m["user"], 1)
    between_ua, after_a = rest.split(m["assistant"], 1)
    after = _common_prefix([between_su, between_ua, after_a])
    if not after:
        return None
    before = {"system": start, "user": between_su[len(after):],
              "assistant": between_ua[len(after):]}
    # Without a system message the template may write a default one first.
    lead = prompt.split(m["user"], 1)[0]
    default = ""
    if lead != before["user"]:
        head, tail = before["system"], after + before["user"]
        if not (lead.startswith(head) and lead.endswith(tail)):
            return None
        default = lead[len(head):len(lead) - len(tail)]
    return ChatShape(before, after, default)


def render(shape: ChatShape, messages: list[dict]) -> str:
    """What the Modelfile's TEMPLATE writes for these messages (Ollama adds the SYSTEM
    line as a first system message when the conversation has none), ending with the
    assistant's opening when the last message is not the assistant's."""
    if shape.default_system and not any(x["role"] == "system" for x in messages):
        messages = [{"role": "system", "content": shape.default_system}] + messages
    out = ""
    for n, x in enumerate(messages):
        last = n == len(messages) - 1
        out += shape.before[x["role"]] + x["content"]
        if not last or x["role"] != "assistant":
            out += shape.after
        if last and x["role"] != "assistant":
            out += shape.before["assistant"]
    return out


def _fits(tokenizer, shape: ChatShape) -> bool:
    """Whether the shape writes a longer conversation, with and without a system
    message, exactly as the Jinja template does."""
    turns = [{"role": "user", "content": "Hi there"},
             {"role": "assistant", "content": "Hello! How can I help?"},
             {"role": "user", "content": "Name a colour.\nJust one."}]
    for messages in (turns, [{"role": "system", "content": "Be brief."}] + turns):
        if render(shape, messages) != _render(tokenizer, messages, True):
            return False
    return True


def go_template(shape: ChatShape) -> str:
    """The Go template of the shape (the TEMPLATE of the Modelfile); the same text as
    render() writes."""
    def lit(text: str) -> str:  # a literal: nothing in it may open an action
        return text.replace("{{", '{{ "{{" }}')
    b = shape.before
    return ("{{ range $i, $_ := .Messages }}{{ $last := eq (len (slice $.Messages $i)) 1 }}"
            f'{{{{ if eq .Role "system" }}}}{lit(b["system"])}'
            f'{{{{ else if eq .Role "user" }}}}{lit(b["user"])}'
            f'{{{{ else }}}}{lit(b["assistant"])}{{{{ end }}}}{{{{ .Content }}}}'
            f'{{{{ if or (not $last) (ne .Role "assistant") }}}}{lit(shape.after)}{{{{ end }}}}'
            f'{{{{ if and $last (ne .Role "assistant") }}}}{lit(b["assistant"])}{{{{ end }}}}'
            "{{ end }}")


def stop_tokens(tokenizer, shape: ChatShape | None) -> list[str]:
    """The chat template's end-of-turn token (data/chat_habits.py), the end-of-text
    token and every special token that opens or closes a turn; for a template with a
    final answer's own end (gpt-oss), that end and the end-of-text token alone: its
    reasoning ends a message (<|end|>) and a new one starts before the final answer."""
    found = habits(tokenizer)
    ends = (found.final_end or found.end_of_turn, tokenizer.eos_token)
    stops = [t for t in ends if t]
    if shape is not None and not found.final_end:
        text = "".join(shape.before.values()) + shape.after
        specials = [t for t in tokenizer.all_special_tokens + [
            str(t) for t in tokenizer.added_tokens_decoder.values() if t.special]]
        stops += [t for t in specials if t in text]
    return list(dict.fromkeys(stops))


def _quote(text: str) -> str:
    return '"""' + text.replace('"""', '\\"\\"\\"') + '"""'


def write_modelfile(folder: Path, gguf_name: str, model_folder: Path) -> Path:
    """Write `Modelfile` beside the GGUF file, from the tokenizer and config of the
    model folder it was converted from."""
    from transformers import AutoTokenizer  # heavy: transformers loaded on first use
    tokenizer = AutoTokenizer.from_pretrained(str(model_folder))
    shape = measure(tokenizer)
    generation = _json(model_folder / "generation_config.json")
    context = int(_json(model_folder / "config.json").get("max_position_embeddings") or 2048)
    lines = [f"FROM ./{gguf_name}", ""]
    if shape is not None:
        lines += [f"TEMPLATE {_quote(go_template(shape))}", ""]
        if shape.default_system:
            lines += [f"SYSTEM {_quote(shape.default_system)}", ""]
    else:
        lines += ["# The chat template has per-turn logic this file cannot copy: Ollama",
                  "# reads the one stored in the GGUF file.", ""]
    lines += [f"PARAMETER temperature {float(generation.get('temperature') or 0.7):g}",
              f"PARAMETER top_p {float(generation.get('top_p') or 0.9):g}",
              f"PARAMETER num_ctx {min(context, 4096)}"]
    lines += [f"PARAMETER stop {json.dumps(t)}" for t in stop_tokens(tokenizer, shape)]
    path = folder / "Modelfile"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}
