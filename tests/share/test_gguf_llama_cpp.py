"""The GGUF export as llama.cpp itself runs it (llama-cpp-python, from requirements-test.txt):
a short LoRA run on the demo persona set that visibly learned ("Arr, matey!" where the base
model answers plainly) is exported to f16 and q8_0, each file is loaded by llama.cpp and
answers a chat prompt through llama.cpp's own handling of the chat template stored in the
file: with the learned answer (so the merged weights went in, not the base), and stopping
at the end-of-turn token. And the Ollama Modelfile's TEMPLATE (a Go template), rendered by a
small renderer of the Go template syntax it uses, writes the prompt the chat template writes.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.data.demo import CLOSE, OPEN
from sft_ui.models import prepare_default_model
from sft_ui.runs import RunManager
from sft_ui.share.gguf_export import export_gguf
from sft_ui.share.modelfile import write_modelfile
from tests.conftest import HANG, wait_for

try:
    import llama_cpp
except ImportError:  # only `make test-deps` installs it
    llama_cpp = None

needs_llama_cpp = pytest.mark.skipif(
    llama_cpp is None, reason="llama-cpp-python is not installed (llama_cpp cannot be "
    "imported): `make test-deps` installs it from requirements-test.txt")

# Held out of the demo set (no training example names Italy): the style must carry over.
QUESTION = [{"role": "user", "content": "What is the capital of Italy?"}]
STYLE = OPEN  # "Arr, matey!": how every answer of the demo set starts ("Yo-ho-ho!" ends it)
SAME_TOKENS = 16  # the f16 file's answer is the merged model's for at least these tokens
MAX_TOKENS = 64


def _greedy(model_dir: Path, f16_weights: bool = False) -> tuple[list[int], str]:
    """The transformers greedy answer to QUESTION: its token ids (up to and with the
    end-of-turn token) and its text without special tokens."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    if f16_weights:  # as the f16 file holds them: the matrices in f16, the 1-D norms in f32
        with torch.no_grad():
            for weight in model.parameters():
                if weight.ndim >= 2:
                    weight.copy_(weight.half().float())
    enc = tokenizer.apply_chat_template(QUESTION, add_generation_prompt=True,
                                        return_tensors="pt", return_dict=True)
    with torch.no_grad():
        out = model.generate(**enc, max_new_tokens=MAX_TOKENS, do_sample=False)
    ids = out[0, enc["input_ids"].shape[1]:].tolist()
    return ids, tokenizer.decode(ids, skip_special_tokens=True)


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """A LoRA run of 12 steps at a high learning rate on the demo set (about a minute on
    two CPU cores), its merged export's greedy answer, and the base model's."""
    manager = RunManager(tmp_path_factory.mktemp("runs"))
    run_id = manager.start({"model_name_or_path": DEFAULT_MODEL_ID, "dataset_name": "demo",
                            "use_peft": True, "lora_r": 8, "lora_alpha": 16, "max_steps": 12,
                            "per_device_train_batch_size": 4,
                            "gradient_accumulation_steps": 1, "max_length": 64,
                            "learning_rate": 2e-3, "lr_scheduler_type": "constant",
                            "sample_steps": 0})
    wait_for(lambda: manager.get(run_id).state not in ("queued", "running"), timeout=2 * HANG)
    run = manager.get(run_id)
    assert run.state == "done", run.snapshot()["error"]
    from sft_ui.share.export import export_run
    merged = export_run(run, "", merged=True)  # what export_gguf converts
    base_ids, base_text = _greedy(prepare_default_model())
    ids, text = _greedy(merged)
    f16_ids, f16_text = _greedy(merged, f16_weights=True)
    print(f"\nbase: {base_text!r}\nlearned: {text!r}\nlearned, f16 weights: {f16_text!r}")
    # The run visibly learned: its answer has the persona's style, the base's has not.
    assert text.startswith(STYLE) and not base_text.startswith(STYLE), (base_text, text)
    assert base_ids[:SAME_TOKENS] != f16_ids[:SAME_TOKENS]
    return {"run": run, "merged": merged, "text": text, "f16_ids": f16_ids,
            "f16_text": f16_text}


def _chat(file: Path, messages: list[dict]) -> tuple[dict, dict, object]:
    """llama.cpp's greedy answer to a chat, with the file's chat template: (its choice,
    its usage, the model)."""
    llm = llama_cpp.Llama(model_path=str(file), n_ctx=256, n_threads=2, seed=0,
                          verbose=False)
    out = llm.create_chat_completion(messages=messages, temperature=0.0, max_tokens=MAX_TOKENS)
    return out["choices"][0], out["usage"], llm


def _assert_one_turn(choice: dict) -> str:
    """The answer ended at the end-of-turn token, with no text of a next turn."""
    text = choice["message"]["content"]
    assert choice["finish_reason"] == "stop", (choice["finish_reason"], text)
    for run_on in ("<|im_start|>", "<|im_end|>", "<|endoftext|>", "\nuser", "user\n",
                   "assistant\n"):
        assert run_on not in text, (run_on, text)
    return text


def _answer(learned: dict, quantisation: str):
    """The learned run exported as a `quantisation` GGUF file and asked QUESTION in
    llama.cpp: its one-turn answer, the token usage and the loaded model."""
    file, _ = export_gguf(learned["run"], "", quantisation)
    choice, usage, llm = _chat(file, QUESTION)
    text = _assert_one_turn(choice)
    print(f"\nllama.cpp {quantisation}: {text!r}")
    return text, usage, llm


@needs_llama_cpp
def test_llama_cpp_answers_the_f16_file_as_the_merged_model(learned):
    from transformers import AutoTokenizer
    text, usage, llm = _answer(learned, "f16")
    assert text.startswith(STYLE)
    # The merged model's own greedy answer (weights rounded to f16 as the file holds them).
    tokenizer = AutoTokenizer.from_pretrained(str(learned["merged"]))
    assert text.startswith(tokenizer.decode(learned["f16_ids"][:SAME_TOKENS]).strip())
    # And it ends as that answer ends: the persona's sign-off, then the end of the turn.
    assert learned["f16_ids"][-1] == tokenizer.convert_tokens_to_ids("<|im_end|>")
    assert text.rstrip().endswith(CLOSE) and learned["f16_text"].rstrip().endswith(CLOSE)
    # llama.cpp formatted the chat with the template stored in the file (the tokenizer's,
    # not one of its built-in formats), into the tokenizer's prompt, token for token.
    assert llm.chat_format == "chat_template.default"
    assert llm.metadata["tokenizer.chat_template"] == tokenizer.chat_template
    prompt = tokenizer.apply_chat_template(QUESTION, tokenize=False, add_generation_prompt=True)
    ids = tokenizer(prompt)["input_ids"]
    assert llm.tokenize(prompt.encode(), add_bos=True, special=True) == ids
    assert usage["prompt_tokens"] == len(ids) and usage["completion_tokens"] < MAX_TOKENS


@needs_llama_cpp
def test_llama_cpp_answers_the_q8_0_file_in_the_learned_style(learned):
    text, usage, _ = _answer(learned, "q8_0")
    assert text.startswith(STYLE) and "Rome" in text
    assert usage["completion_tokens"] < MAX_TOKENS


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
