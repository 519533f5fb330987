"""Tiny models of the families people pick, made offline: each family's architecture from
the config.json the planner ships (sft_ui/plan/model_configs/), shrunk to 2 layers of
width 64 with random weights; the default model's tokenizer with the family's special
tokens added; and a chat template written here that behaves as the family's does where
the studio cares: where a system message goes (a turn of its own, a default one when
none is given, refused, or merged into the first user turn), whether turns must
alternate, Llama 3's date header, the token that ends a turn, and with and without
`{% generation %}` marks. (Written from the families' documented behaviour; not their
templates.) And TRL_FAMILIES: today's templates as TRL ships them, on tiny models."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

try:
    import llama_cpp
except ImportError:  # only `make test-deps` installs it
    llama_cpp = None

CONFIGS = Path(__file__).resolve().parent.parent / "sft_ui" / "plan" / "model_configs"

_ALTERNATE = ("{%- if (m['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
              "{{ raise_exception('Conversation roles must alternate "
              "user/assistant/user/assistant/...') }}{%- endif -%}")
_SPLIT_SYSTEM = ("{%- if messages[0]['role'] == 'system' -%}"
                 "{%- set system = messages[0]['content'] -%}{%- set rest = messages[1:] -%}"
                 "{%- else -%}{%- set system = '' -%}{%- set rest = messages -%}{%- endif -%}")

CHATML_DEFAULT_SYSTEM = (  # Qwen2.5: a system turn of its own when none is given
    _SPLIT_SYSTEM +
    "{{ '<|im_start|>system\\n' + (system or 'You are Qwen, created by Alibaba Cloud. You are "
    "a helpful assistant.') + '<|im_end|>\\n' }}"
    "{%- for m in rest -%}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + "
    "'<|im_end|>\\n' }}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}")

CHATML_MARKED = (  # Qwen3 as trained with assistant-only loss: the answer in generation marks
    "{%- for m in messages -%}{%- if m['role'] == 'assistant' -%}"
    "{{ '<|im_start|>assistant\\n' }}{% generation %}{{ m['content'] + '<|im_end|>' }}"
    "{% endgeneration %}{{ '\\n' }}"
    "{%- else -%}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}"
    "{%- endif -%}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}")

LLAMA3_DATED = (  # Llama 3.2: a system header with today's date, always
    "{{- bos_token }}" + _SPLIT_SYSTEM +
    "{{- '<|start_header_id|>system<|end_header_id|>\\n\\nCutting Knowledge Date: December "
    "2023\\nToday Date: ' + strftime_now('%d %b %Y') + '\\n\\n' + system + '<|eot_id|>' }}"
    "{%- for m in rest -%}{{ '<|start_header_id|>' + m['role'] + '<|end_header_id|>\\n\\n' + "
    "m['content'] + '<|eot_id|>' }}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
    "{%- endif -%}")

GEMMA2_NO_SYSTEM = (  # Gemma 2: no system role, strict alternation, the answer as 'model'
    "{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}"
    "{{ raise_exception('System role not supported') }}{%- endif -%}"
    "{%- for m in messages -%}" + _ALTERNATE +
    "{%- set role = 'model' if m['role'] == 'assistant' else m['role'] -%}"
    "{{ '<start_of_turn>' + role + '\\n' + m['content'] | trim + '<end_of_turn>\\n' }}"
    "{%- endfor -%}{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}")

GEMMA3_MERGED = (  # Gemma 3: the system text opens the first user turn
    "{{ bos_token }}" + _SPLIT_SYSTEM +
    "{%- for m in rest -%}" + _ALTERNATE +
    "{%- set role = 'model' if m['role'] == 'assistant' else m['role'] -%}"
    "{%- set head = system + '\\n\\n' if (loop.first and system) else '' -%}"
    "{{ '<start_of_turn>' + role + '\\n' + head + m['content'] | trim + '<end_of_turn>\\n' }}"
    "{%- endfor -%}{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}")

PHI3 = (  # Phi-3: tags of its own, <|end|> after every turn
    "{%- for m in messages -%}{{ '<|' + m['role'] + '|>\\n' + m['content'] + '<|end|>\\n' }}"
    "{%- endfor -%}{%- if add_generation_prompt -%}{{ '<|assistant|>\\n' }}"
    "{%- else -%}{{ eos_token }}{%- endif -%}")

MISTRAL = (  # Mistral: [INST] blocks, the system text in the first one, strict alternation
    "{{ bos_token }}" + _SPLIT_SYSTEM +
    "{%- for m in rest -%}"
    "{%- if (m['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('After the optional system message, conversation roles must "
    "alternate user/assistant/user/assistant/...') }}{%- endif -%}"
    "{%- if m['role'] == 'user' -%}"
    "{{ '[INST] ' + (system + '\\n\\n' if (loop.first and system) else '') + m['content'] + "
    "'[/INST]' }}{%- else -%}{{ ' ' + m['content'] + eos_token }}{%- endif -%}{%- endfor -%}")


@dataclass(frozen=True)
class TinyFamily:
    name: str
    config: str                  # the shipped config.json it shrinks
    template: str
    end_of_turn: str             # the token that ends an answer
    tokens: dict                 # bos/eos/pad tokens (None: the family has none)
    specials: tuple = ()         # more special tokens of the family
    eos_only_in_generation_config: bool = False  # its generation config names only <eos>
    system: str = "own turn"     # chat_habits' word for where a system message goes
    alternates: bool = False
    default_system: bool = False
    dated: bool = False
    marks: bool = False
    shrink: dict = field(default_factory=dict)
    # What llama.cpp's converter says of the tiny model, where it cannot convert it (""
    # where it does): its tokenizer is SmolLM2's byte-level BPE, not the family's own.
    gguf: str = ""
    trl: str = ""                # the template is TRL's file of this name, not `template`
    # The token llama.cpp ends a reply at, where it is not end_of_turn (Cohere 2's
    # template writes <|END_OF_TURN_TOKEN|>, the end-of-text token, right after it).
    gguf_end: str = ""

    def chat_template(self) -> str:
        return trl_template(self.trl) if self.trl else self.template


# Gemma 2 and Phi-3: the converter reads their vocabulary from a SentencePiece file, which
# the real models ship and the tiny ones have not. Qwen2.5: transformers gives a model of
# type qwen2 Qwen2's pre-tokenizer, which over SmolLM2's vocabulary splits text in a way
# the converter does not know.
SENTENCEPIECE = "SentencePiece file (tokenizer.model)"
UNKNOWN_SPLIT = "does not know this model's tokenizer"


FAMILIES = (
    TinyFamily("qwen2.5", "Qwen2.5-0.5B-Instruct.json", CHATML_DEFAULT_SYSTEM, "<|im_end|>",
               {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
               default_system=True, gguf=UNKNOWN_SPLIT),
    TinyFamily("qwen3", "Qwen3-0.6B.json", CHATML_MARKED, "<|im_end|>",
               {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
               marks=True, shrink={"head_dim": 32}),
    TinyFamily("llama3.2", "Llama-3.2-1B-Instruct.json", LLAMA3_DATED, "<|eot_id|>",
               {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
                "pad_token": None},
               ("<|start_header_id|>", "<|end_header_id|>"), dated=True,
               shrink={"head_dim": 32}),
    TinyFamily("gemma2", "gemma-2-2b-it.json", GEMMA2_NO_SYSTEM, "<end_of_turn>",
               {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>"},
               ("<start_of_turn>",), eos_only_in_generation_config=True, system="refused",
               alternates=True, shrink={"head_dim": 32, "query_pre_attn_scalar": 32,
                                        "sliding_window": 64}, gguf=SENTENCEPIECE),
    TinyFamily("gemma3", "gemma-3-1b-it.json", GEMMA3_MERGED, "<end_of_turn>",
               {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>"},
               ("<start_of_turn>",), system="first user turn", alternates=True,
               shrink={"head_dim": 32, "query_pre_attn_scalar": 32, "sliding_window": 64}),
    TinyFamily("phi3", "Phi-3-mini-4k-instruct.json", PHI3, "<|end|>",
               {"bos_token": "<s>", "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"},
               ("<|system|>", "<|user|>", "<|assistant|>"), shrink={"sliding_window": 64},
               gguf=SENTENCEPIECE),
    TinyFamily("mistral", "Mistral-7B-Instruct-v0.3.json", MISTRAL, "</s>",
               {"bos_token": "<s>", "eos_token": "</s>", "pad_token": None},
               ("[INST]", "[/INST]"), system="first user turn", alternates=True,
               shrink={"head_dim": 32}),
)


def trl_template(name: str) -> str:
    """The chat template TRL ships as trl/chat_templates/<name>.jinja."""
    import trl
    return (Path(trl.__file__).parent / "chat_templates" / f"{name}.jinja").read_text(
        encoding="utf-8")


def template_tokens(template: str) -> tuple:
    """The special tokens a template writes (<|...|> and DeepSeek's <｜...｜>), each to be
    one token as the family's own tokenizer has it."""
    return tuple(sorted(set(re.findall(r"<[|｜][^<>\s]{1,40}?[|｜]>", template))))


# Today's templates as TRL ships them, each on a tiny model of SmolLM2's architecture
# (which llama.cpp converts with SmolLM2's tokenizer): thinking (Qwen3, DeepSeek-R1
# distills, Nemotron 3 Nano), gpt-oss' channels and final end, Cohere 2's and LFM2's tags.
_SMOL = "SmolLM2-135M-Instruct.json"
_CHATML = {"bos_token": None, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}
TRL_FAMILIES = (
    TinyFamily("qwen3-thinking", _SMOL, "", "<|im_end|>", _CHATML, trl="qwen3"),
    TinyFamily("deepseek-r1-distill", _SMOL, "", "<｜end▁of▁sentence｜>",
               {"bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>",
                "pad_token": "<|endoftext|>"}, trl="deepseek_r1_distill"),
    TinyFamily("nemotron-3-nano", _SMOL, "", "<|im_end|>", _CHATML, trl="nemotron_3_nano"),
    TinyFamily("gpt-oss", _SMOL, "", "<|return|>",
               {"bos_token": None, "eos_token": "<|return|>", "pad_token": "<|endoftext|>"},
               trl="gptoss"),
    TinyFamily("cohere2", _SMOL, "", "<|END_RESPONSE|>",
               {"bos_token": "<BOS_TOKEN>", "eos_token": "<|END_OF_TURN_TOKEN|>",
                "pad_token": "<PAD>"}, trl="cohere2", gguf_end="<|END_OF_TURN_TOKEN|>"),
    TinyFamily("lfm2", _SMOL, "", "<|im_end|>",
               {"bos_token": "<|startoftext|>", "eos_token": "<|im_end|>",
                "pad_token": "<|pad|>"}, trl="lfm2"),
)


def jsonl_files(folder: Path, **rows: list[dict]) -> dict[str, Path]:
    """Each list of rows written as <name>.jsonl in `folder`; name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, items in rows.items():
        out[name] = folder / f"{name}.jsonl"
        out[name].write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    return out


def bench_of(families, root: Path):
    """(tiny model folder of each family by name, root/data, a RunManager of root/runs)."""
    from sft_ui.models import prepare_default_model
    from sft_ui.runs import RunManager
    base = str(prepare_default_model())
    models = {f.name: str(build(f, root / "models" / f.name, base)) for f in families}
    return models, root / "data", RunManager(root / "runs")


def _tiny_config(family: TinyFamily, vocab: int, ids: dict) -> dict:
    config = json.loads((CONFIGS / family.config).read_text(encoding="utf-8"))
    config.update({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                   "num_attention_heads": 2, "num_key_value_heads": 1,
                   "max_position_embeddings": 512, "vocab_size": vocab,
                   "torch_dtype": "float32", "rope_scaling": None,
                   "bos_token_id": ids.get("bos_token"), "eos_token_id": ids["eos_token"],
                   "pad_token_id": ids.get("pad_token")})
    config.pop("max_window_layers", None)
    config.pop("layer_types", None)
    if "original_max_position_embeddings" in config:
        config["original_max_position_embeddings"] = 512
    config.update(family.shrink)
    return config


def build(family: TinyFamily, out: Path, base_tokenizer: str) -> Path:
    """The tiny model of `family` in `out` (config, weights, tokenizer, generation config)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    tok = AutoTokenizer.from_pretrained(base_tokenizer)
    named = {k: v for k, v in family.tokens.items() if v is not None}
    template = family.chat_template()
    extra = [t for t in (*named.values(), *family.specials, family.end_of_turn,
                         *(template_tokens(template) if family.trl else ()))
             if t not in tok.get_vocab()]
    tok.add_tokens(list(dict.fromkeys(extra)), special_tokens=True)
    for key, value in family.tokens.items():
        setattr(tok, key, value)
    tok.chat_template = template
    ids = {k: tok.convert_tokens_to_ids(v) for k, v in named.items()}
    config = AutoConfig.for_model(**_tiny_config(family, len(tok), ids))
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config)
    # Special tokens' (tied) embeddings at zero: greedy decoding of the random model
    # writes visible text instead of an immediate end of turn.
    with torch.no_grad():
        model.get_input_embeddings().weight[list(tok.added_tokens_decoder)] = 0
    end = tok.convert_tokens_to_ids(family.end_of_turn)
    eos = ids["eos_token"] if family.eos_only_in_generation_config else \
        list(dict.fromkeys([ids["eos_token"], end]))
    model.generation_config = GenerationConfig(
        bos_token_id=ids.get("bos_token"), eos_token_id=eos, pad_token_id=ids.get("pad_token"))
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def gguf_cell(family: TinyFamily, run, end: int, ask: str = "Name a fruit.") -> None:
    """The GGUF file loads in llama.cpp, answers a chat through the template stored in
    it, and llama.cpp ends a turn at the family's token; or, where llama.cpp's converter
    cannot read the model, the message says why and what to do."""
    from sft_ui.share.gguf_export import GgufError, export_gguf  # (the module is torch-free)
    try:
        gguf, _ = export_gguf(run)
    except GgufError as e:
        assert family.gguf and family.gguf in str(e), e  # (families.py says why)
        return
    assert not family.gguf, "converted, where the converter was expected to refuse"
    modelfile = (gguf.parent / "Modelfile").read_text(encoding="utf-8")
    assert f"PARAMETER stop {json.dumps(family.end_of_turn)}" in modelfile, modelfile
    llm = llama_cpp.Llama(str(gguf), n_ctx=1024, verbose=False)  # (Cohere 2: a long preamble)
    try:
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        assert llama_cpp.llama_vocab_is_eog(vocab, end), family.end_of_turn
        out = llm.create_chat_completion([{"role": "user", "content": ask}], max_tokens=6,
                                         temperature=0)
        assert isinstance(out["choices"][0]["message"]["content"], str)
    finally:
        llm.close()
