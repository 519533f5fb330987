"""A model's shape: the sizes in its config.json that decide its memory and its time,
read without loading a weight (a listed model's config ships with the app,
plan/catalog.py; a finished run's LoRA folder has its base's shape). Knows nothing of
Gradio, runs or the data.
"""
from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

from sft_ui.i18n.message import Message
from sft_ui.models import ModelError, resolve_model
from sft_ui.plan import catalog

UNGATED = {"gpt2", "gpt_bigcode", "gpt_neox", "gptj", "opt", "bloom", "falcon", "phi",
           "codegen", "mpt"}  # model types whose MLP has two matrices, not three
# Model types whose blocks fuse q, k and v into one linear layer, gate and up into another.
FUSED = {"phi3"}


@dataclasses.dataclass(frozen=True)
class ModelShape:
    """The sizes in a model's config.json that decide its memory."""
    hidden: int
    layers: int
    intermediate: int
    vocab: int
    heads: int
    kv_heads: int
    head_dim: int
    tied: bool
    gated: bool
    fused: bool = False  # one linear for q, k and v, one for gate and up (Phi-3)

    @classmethod
    def from_config(cls, config: dict) -> "ModelShape":
        c = config.get("text_config") or config

        def pick(*names, default=None):
            for name in names:
                if c.get(name) is not None:
                    return int(c[name])
            if default is None:
                raise ModelError(Message("The model's config.json has no {name}: its memory "
                                         "cannot be estimated.", name=names[0]))
            return default
        hidden = pick("hidden_size", "n_embd", "d_model")
        heads = pick("num_attention_heads", "n_head")
        return cls(hidden, pick("num_hidden_layers", "n_layer", "num_layers"),
                   pick("intermediate_size", "n_inner", "ffn_dim", default=4 * hidden),
                   pick("vocab_size"), heads, pick("num_key_value_heads", default=heads),
                   pick("head_dim", default=hidden // heads),
                   bool(c.get("tie_word_embeddings", True)), c.get("model_type") not in UNGATED,
                   c.get("model_type") in FUSED)

    def linears(self) -> dict[str, tuple[int, int]]:
        """(in, out) features of each linear layer in one block, by Llama's names."""
        h, q, kv, i = self.hidden, self.heads * self.head_dim, self.kv_heads * self.head_dim, \
            self.intermediate
        if self.fused:
            return {"qkv_proj": (h, q + 2 * kv), "o_proj": (q, h),
                    "gate_up_proj": (h, 2 * i), "down_proj": (i, h)}
        shapes = {"q_proj": (h, q), "k_proj": (h, kv), "v_proj": (h, kv), "o_proj": (q, h),
                  "up_proj": (h, i), "down_proj": (i, h)}
        if self.gated:
            shapes["gate_proj"] = (h, i)
        return shapes

    def adapted(self, targets: str) -> dict[str, tuple[int, int]]:
        """The linear layers LoRA adapts: all of them, or those named in `targets`."""
        if targets.strip() == "all-linear":
            return self.linears()
        names = {t.strip() for t in targets.split(",")}
        return {n: s for n, s in self.linears().items() if n in names}

    def params(self) -> int:
        block = sum(a * b for a, b in self.linears().values()) + 2 * self.hidden  # + norms
        embeddings = self.vocab * self.hidden * (1 if self.tied else 2)
        return self.layers * block + embeddings + self.hidden  # + the final norm

    def adapter_params(self, r: int, targets: str) -> int:
        """LoRA's trainable parameters: r x (in + out) for each adapted layer."""
        return self.layers * sum(r * (a + b) for a, b in self.adapted(targets).values())


@functools.lru_cache(maxsize=16)
def _shape_at(path: str) -> ModelShape:
    """The shape in a model's config.json; a LoRA adapter's folder (a finished run's
    model) has the shape of the base its adapter_config.json names."""
    folder = Path(path)
    adapter = folder / "adapter_config.json"
    if folder.is_dir() and adapter.exists() and not (folder / "config.json").exists():
        base = json.loads(adapter.read_text(encoding="utf-8"))["base_model_name_or_path"]
        return model_shape(base)
    file: str | Path
    if folder.is_dir():
        file = folder / "config.json"
    else:
        from huggingface_hub import hf_hub_download  # huggingface_hub: loaded on first use
        try:
            file = hf_hub_download(path, "config.json")
        except Exception as e:
            raise ModelError(Message("Could not read the config.json of {path} ({error_type}), "
                                     "so its memory cannot be estimated.", path=path,
                                     error_type=type(e).__name__)) from None
    return ModelShape.from_config(json.loads(Path(file).read_text(encoding="utf-8")))


def model_shape(name: str) -> ModelShape:
    """The shape of a model: a listed one's from its shipped config.json (offline, before
    any download, unless a local folder has that name), else from its own config.json."""
    shipped = None if Path(name.strip()).expanduser().exists() else \
        catalog.shipped_config(name)
    if shipped is not None:
        return ModelShape.from_config(shipped)
    return _shape_at(resolve_model(name))
