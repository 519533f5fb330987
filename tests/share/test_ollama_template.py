"""The Ollama Modelfile's TEMPLATE (a Go template), rendered by a small renderer of the Go
template syntax it uses (tested here too), writes the prompt the chat template writes."""
from __future__ import annotations

import json
import re

from sft_ui.models import prepare_default_model
from sft_ui.share.modelfile import write_modelfile

# --- Ollama's TEMPLATE: a renderer of the Go template syntax the Modelfile uses ----------

def _go_actions(template: str) -> list[tuple[str, str]]:
    """The template as ("text", literal) and ("action", inside of {{ }}) pieces, with
    Go's trim markers ({{- and -}}) applied."""
    out, at, trim = [], 0, False
    while True:
        start = template.find("{{", at)
        text = template[at:] if start < 0 else template[at:start]
        if trim:  # the action before ended with -}}
            text = text.lstrip()
        if start < 0:
            out.append(("text", text))
            return out
        i, quoted = start + 2, False
        while quoted or not template.startswith("}}", i):  # a "}}" in a string is text
            if i >= len(template):
                raise ValueError(f"unclosed action at {start}")
            if template[i] == "\\" and quoted:
                i += 1
            elif template[i] == '"':
                quoted = not quoted
            i += 1
        action, at = template[start + 2:i], i + 2
        if action.startswith("- "):
            text, action = text.rstrip(), action[2:]
        trim = action.endswith(" -")
        out += [("text", text), ("action", (action[:-2] if trim else action).strip())]


def _go_parse(pieces: list, at: int = 0, closers=("end",)) -> tuple[list, int, str]:
    """A list of nodes up to one of `closers`; (nodes, next index, the closer)."""
    nodes = []
    while at < len(pieces):
        kind, value = pieces[at]
        at += 1
        if kind == "text":
            nodes.append(("text", value))
            continue
        word = value.split(None, 1)[0] if value else ""
        if word in ("end", "else"):
            if word not in closers:
                raise ValueError(f"unexpected {{{{ {value} }}}}")
            return nodes, at, value
        if word == "if":
            branches, closer = [], value
            while closer != "end":  # if / else if ... / else
                cond = closer[3:] if closer.startswith("if ") else \
                    closer[8:] if closer.startswith("else if ") else "true"
                body, at, closer = _go_parse(pieces, at, ("end", "else"))
                branches.append((cond, body))
            nodes.append(("if", branches))
        elif word == "range":
            m = re.fullmatch(r"range\s+(?:(\$\w*)\s*,\s*(\$\w*)\s*:=\s*)?(.+)", value, re.S)
            body, at, closer = _go_parse(pieces, at, ("end",))
            nodes.append(("range", m.group(1), m.group(2), m.group(3), body))
        elif re.match(r"\$\w+\s*:=", value):
            name, expr = value.split(":=", 1)
            nodes.append(("set", name.strip(), expr))
        else:
            nodes.append(("print", value))
    return nodes, at, ""


def _go_tokens(expr: str) -> list[str]:
    return re.findall(r'"(?:\\.|[^"\\])*"|\(|\)|\$?[\w]*(?:\.\w+)+|\$\w*|\.|[\w]+', expr)


def _go_truth(value) -> bool:
    return value not in (None, False, 0, "") and not (hasattr(value, "__len__")
                                                      and len(value) == 0)


FUNCS = {
    "eq": lambda a, *b: any(a == x for x in b), "ne": lambda a, b: a != b,
    "not": lambda a: not _go_truth(a), "len": len,
    "slice": lambda x, *i: x[i[0]:(i[1] if len(i) > 1 else None)] if i else x,
    "index": lambda x, i: x[i],
}


def _go_eval(expr: str, scope: dict):
    tokens = _go_tokens(expr)

    def term(i):
        tok = tokens[i]
        if tok == "(":
            value, i = command(i + 1)
            assert tokens[i] == ")", expr
            return value, i + 1
        if tok.startswith('"'):
            return json.loads(tok), i + 1
        if tok.isdigit():
            return int(tok), i + 1
        if tok == "true" or tok == "false":
            return tok == "true", i + 1
        if tok.startswith("$") or tok.startswith("."):
            head, *fields = tok.split(".")
            value = scope[head] if head else scope["."]
            for name in fields:
                if name:
                    value = value[name]
            return value, i + 1
        raise ValueError(f"not a value: {tok} in {expr}")

    def command(i):
        tok = tokens[i]
        if tok in FUNCS or tok in ("and", "or"):
            args, i = [], i + 1
            while i < len(tokens) and tokens[i] != ")":
                value, i = term(i)
                args.append(value)
            if tok == "and":  # Go: the first false argument, else the last one
                return next((a for a in args if not _go_truth(a)), args[-1]), i
            if tok == "or":
                return next((a for a in args if _go_truth(a)), args[-1]), i
            return FUNCS[tok](*args), i
        return term(i)

    value, end = command(0)
    assert end == len(tokens), f"unread: {tokens[end:]} in {expr}"
    return value


def _go_exec(nodes: list, scope: dict) -> str:
    out = ""
    for node in nodes:
        kind = node[0]
        if kind == "text":
            out += node[1]
        elif kind == "print":
            value = _go_eval(node[1], scope)
            out += ("true" if value else "false") if isinstance(value, bool) else str(value)
        elif kind == "set":
            scope[node[1]] = _go_eval(node[2], scope)
        elif kind == "if":
            for cond, body in node[1]:
                if _go_truth(_go_eval(cond, scope)):
                    out += _go_exec(body, dict(scope))
                    break
        elif kind == "range":
            _, key, item, expr, body = node
            for n, element in enumerate(_go_eval(expr, scope)):
                inner = {**scope, ".": element}
                if key:
                    inner[key] = n
                if item:
                    inner[item] = element
                out += _go_exec(body, inner)
    return out


def render_go_template(template: str, data: dict) -> str:
    """What Go's text/template writes for `data` (the syntax the Modelfile uses: range,
    if / else if / else, variables, fields, eq ne not and or len slice index)."""
    nodes, at, closer = _go_parse(_go_actions(template))
    assert not closer, "an {{ end }} without its block"
    return _go_exec(nodes, {"$": data, ".": data})


def _modelfile(text: str) -> dict[str, str]:
    """The TEMPLATE and SYSTEM of a Modelfile (triple-quoted, as Ollama reads them)."""
    found = {}
    for m in re.finditer(r'^(TEMPLATE|SYSTEM) """(.*?)"""$', text, re.S | re.M):
        found[m.group(1)] = m.group(2).replace('\\"\\"\\"', '"""')
    return found


def _ollama_prompt(modelfile: dict, messages: list[dict]) -> str:
    """The prompt Ollama writes for a chat: the Modelfile's SYSTEM as a first system
    message where the chat has none, then the TEMPLATE over the messages."""
    if "SYSTEM" in modelfile and not any(m["role"] == "system" for m in messages):
        messages = [{"role": "system", "content": modelfile["SYSTEM"]}] + messages
    data = {"Messages": [{"Role": m["role"], "Content": m["content"]} for m in messages],
            "System": modelfile.get("SYSTEM", ""), "Prompt": ""}
    return render_go_template(modelfile["TEMPLATE"], data)


def test_the_go_renderer_reads_go_templates():
    data = {"Messages": [{"Role": "user", "Content": "a"}, {"Role": "bot", "Content": "b"}]}
    template = ('{{- range $i, $m := .Messages }}{{ $last := eq (len (slice $.Messages $i)) 1 }}'
                '[{{ $i }}:{{ if eq .Role "user" }}U{{ else if eq $m.Role "x" }}X{{ else }}'
                '{{ .Role }}{{ end }}={{ .Content }}{{ if $last }}!{{ end }}]{{ end }}'
                '{{ "{{" }} {{ or "" "z" }}{{ and 1 0 }}{{ not 0 }}   {{- " t" -}}   .')
    assert render_go_template(template, data) == "[0:U=a][1:bot=b!]{{ z0true t."


def test_the_modelfile_template_writes_the_chat_templates_prompt(tmp_path):
    """Ollama, fed the exported Modelfile, writes the prompt the model was trained on: a
    two-turn conversation with a system message, and a conversation without one (where
    the Modelfile's SYSTEM stands for the template's default system message)."""
    from transformers import AutoTokenizer
    model = prepare_default_model()
    tokenizer = AutoTokenizer.from_pretrained(str(model))
    modelfile = _modelfile(write_modelfile(tmp_path, "m.gguf", model).read_text())
    assert set(modelfile) == {"TEMPLATE", "SYSTEM"}
    two_turns = [{"role": "system", "content": "You are Captain Byte, a pirate."},
                 {"role": "user", "content": "What is the capital of Italy?"},
                 {"role": "assistant", "content": "Arr, matey! Rome. Yo-ho-ho!"},
                 {"role": "user", "content": "And of Spain?\nJust the name."}]
    for messages in (two_turns, two_turns[1:], two_turns[1:2]):
        expected = tokenizer.apply_chat_template(messages, tokenize=False,
                                                 add_generation_prompt=True)
        assert _ollama_prompt(modelfile, messages) == expected
    # Ending with the assistant's message, Ollama continues it (as a prefill): the
    # template's text up to that message's content, no end-of-turn after it.
    assert _ollama_prompt(modelfile, two_turns[:3]) == tokenizer.apply_chat_template(
        two_turns[:3], tokenize=False, continue_final_message=True)
