"""The model picker's list: popular instruct models with their size, licence and whether
the Hub gates them, and their config.json shipped with the app (model_configs/), so the
memory plan works offline and before any download.

Owns the list and the shipped configs; knows nothing of memory, runs or the UI.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from sft_ui.i18n.message import Message

CONFIGS_DIR = Path(__file__).parent / "model_configs"


@dataclass(frozen=True)
class CatalogModel:
    id: str            # the Hub id
    params: float      # parameters, as the model card advertises them
    licence: str
    gated: bool        # the Hub asks to accept its conditions before a download

    @property
    def config_file(self) -> Path:
        return CONFIGS_DIR / f"{self.id.split('/')[-1]}.json"

    def size_text(self) -> str:
        return f"{self.params / 1e9:.1f}B" if self.params >= 1e9 else \
            f"{self.params / 1e6:.0f}M"

    def label(self) -> str:
        """What the picker shows: id, size, licence, and gated where it is (a Message, its
        note said in the page's language by ui/lang.py's relabel)."""
        listed = f"{self.id} · {self.size_text()} · {self.licence}"
        return Message("{listed} · gated: accept its licence on the Hub and sign in",
                       listed=listed) if self.gated else listed


MODELS = (
    CatalogModel("HuggingFaceTB/SmolLM2-135M-Instruct", 135e6, "Apache-2.0", False),
    CatalogModel("HuggingFaceTB/SmolLM2-360M-Instruct", 362e6, "Apache-2.0", False),
    CatalogModel("HuggingFaceTB/SmolLM2-1.7B-Instruct", 1.71e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen2.5-0.5B-Instruct", 0.49e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen2.5-1.5B-Instruct", 1.54e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen2.5-3B-Instruct", 3.09e9, "Qwen Research License (non-commercial)",
                 False),
    CatalogModel("Qwen/Qwen2.5-7B-Instruct", 7.61e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen3-0.6B", 0.596e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen3-1.7B", 1.72e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen3-4B", 4.02e9, "Apache-2.0", False),
    CatalogModel("Qwen/Qwen3-8B", 8.19e9, "Apache-2.0", False),
    CatalogModel("meta-llama/Llama-3.2-1B-Instruct", 1.24e9, "Llama 3.2 Community License",
                 True),
    CatalogModel("meta-llama/Llama-3.2-3B-Instruct", 3.21e9, "Llama 3.2 Community License",
                 True),
    CatalogModel("meta-llama/Llama-3.1-8B-Instruct", 8.03e9, "Llama 3.1 Community License",
                 True),
    CatalogModel("google/gemma-2-2b-it", 2.61e9, "Gemma Terms of Use", True),
    CatalogModel("google/gemma-3-270m-it", 268e6, "Gemma Terms of Use", True),
    CatalogModel("google/gemma-3-1b-it", 1.0e9, "Gemma Terms of Use", True),
    CatalogModel("microsoft/Phi-3-mini-4k-instruct", 3.82e9, "MIT", False),
    CatalogModel("mistralai/Mistral-7B-Instruct-v0.3", 7.25e9, "Apache-2.0", True),
)


def find(name: str) -> CatalogModel | None:
    """The listed model of this Hub id (any case), or None."""
    key = (name or "").strip().lower()
    return next((m for m in MODELS if m.id.lower() == key), None)


@functools.lru_cache(maxsize=None)
def shipped_config(name: str) -> dict | None:
    """The config.json shipped for a listed model, or None for any other name."""
    model = find(name)
    if model is None:
        return None
    return json.loads(model.config_file.read_text(encoding="utf-8"))


def choices() -> list[tuple[str, str]]:
    """(label, Hub id) for the model field's list."""
    return [(m.label(), m.id) for m in MODELS]


def describe(name: str) -> str:
    """One line on a listed model (size, licence, gated), or "" for any other name."""
    model = find(name)
    return model.label() if model else ""
