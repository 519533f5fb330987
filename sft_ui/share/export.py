"""Export a run's model in the standard Hugging Face layout, with a model card: a LoRA adapter
as it is or merged into its base, or a full fine-tune's weights, in `<run>/export/<kind>/`
with a zip of it for download. Knows nothing of Gradio.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.data.chat_habits import stops_at_turn_end
from sft_ui.i18n.message import Message
from sft_ui.models import ModelError, resolve_model
from sft_ui.runs import Run, RunError, checkpoint_folder
from sft_ui.runs.run import base_model_name
from sft_ui.share.card import card_moved, write_card

EXPORT_SUBDIR = "export"


def source_folder(run: Run, checkpoint: str = "") -> Path:
    """The run's final model, or one of its checkpoints."""
    if checkpoint:
        return checkpoint_folder(run, checkpoint)
    if not run.model_dir or not Path(run.model_dir).exists():
        raise RunError(Message("Run {run_id} has no saved model yet (state: {state}). Export "
                               "one of its checkpoints, or wait until it finishes.",
                               run_id=run.id, state=Message(run.state)))
    return Path(run.model_dir)


def is_adapter(folder: Path) -> bool:
    return (folder / "adapter_config.json").exists()


def is_lora_run(run: Run) -> bool:
    """Whether the run trains a LoRA adapter, so that merging it into the base model means
    something: its settings say so, or its saved model is an adapter. (export_run with
    merged=True on a full fine-tune exports the full model.)"""
    if run.config.use_peft:
        return True
    return bool(run.model_dir) and is_adapter(Path(run.model_dir))


def export_run(run: Run, checkpoint: str = "", merged: bool = False) -> Path:
    """Write the export folder for a run (replacing an earlier one) and return it: the
    model, tokenizer, README.md (the card) and loss.png. An adapter loads with peft on its
    base; `merged` merges it into the base (`merge_and_unload`: loads with transformers
    alone); a full fine-tune has none, and exports its model as it is."""
    source = source_folder(run, checkpoint)
    adapter = is_adapter(source)
    kind = "merged" if adapter and merged else ("adapter" if adapter else "full")
    out = run.dir / EXPORT_SUBDIR / (kind + (f"-{checkpoint}" if checkpoint else ""))
    # Written beside its place and moved there whole: an export the app was killed in
    # the middle of is never later taken (pushed, converted) as a whole one.
    partial = out.with_name(out.name + PARTIAL)
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    if kind == "merged":
        _merge(source, partial)
    else:
        _copy_model_files(source, partial)
        if adapter:
            _portable_base(partial / "adapter_config.json", run.config)
    write_card(run, partial, kind, checkpoint)
    if out.exists():
        shutil.rmtree(out)
    partial.rename(out)
    card_moved(partial, out)  # (its lines as made, kept beside the folder)
    return out


PARTIAL = ".partial"  # an export being written (or one an ended app left half-written)


def zip_export(folder: Path) -> Path:
    """A zip of an export folder, next to it."""
    return Path(shutil.make_archive(str(folder), "zip", root_dir=folder))


MODEL_FILES = ("config.json", "generation_config.json", "model.safetensors",
               "model.safetensors.index.json", "adapter_config.json",
               "adapter_model.safetensors", "tokenizer.json", "tokenizer_config.json",
               "special_tokens_map.json", "chat_template.jinja", "vocab.json", "merges.txt",
               "tokenizer.model", "added_tokens.json")


def _copy_model_files(source: Path, out: Path) -> None:
    for path in source.iterdir():
        if path.name in MODEL_FILES or path.name.startswith("model-0"):
            shutil.copy2(path, out / path.name)


def _merge(source: Path, out: Path) -> None:
    import torch  # heavy: torch loaded on first use
    from peft import AutoPeftModelForCausalLM
    from transformers import AutoTokenizer
    model = AutoPeftModelForCausalLM.from_pretrained(str(source), dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    merged = model.merge_and_unload()
    stops_at_turn_end(merged, tokenizer)  # its replies end at the template's end of turn
    merged.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    _sentencepiece_file(source, out)


def _sentencepiece_file(adapter: Path, out: Path) -> None:
    """The base model's SentencePiece file (tokenizer.model) beside a merged model where
    the tokenizer did not write one: llama.cpp's converter reads the vocabulary of some
    architectures (Gemma 2) from it alone."""
    if (out / "tokenizer.model").exists():
        return
    try:
        config = json.loads((adapter / "adapter_config.json").read_text(encoding="utf-8"))
        base = Path(resolve_model(config["base_model_name_or_path"]))
    except (OSError, ValueError, KeyError, TypeError, ModelError):
        return
    if (base / "tokenizer.model").is_file():
        shutil.copy2(base / "tokenizer.model", out / "tokenizer.model")


def _portable_base(adapter_config: Path, cfg: RunConfig) -> None:
    """Point the adapter at the base model's Hub id rather than this machine's copy of
    it, when the run named one, so the adapter loads anywhere. The offline default model
    answers to its Hub id here too, through the Hugging Face cache (models.py)."""
    data = json.loads(adapter_config.read_text())
    name = base_model_name(cfg)
    if not Path(name).expanduser().exists() and "/" in name:
        if name == DEFAULT_MODEL_ID:
            resolve_model(name)  # prepares it, and links it into the Hub cache
        data["base_model_name_or_path"] = name
    else:
        data["base_model_name_or_path"] = str(resolve_model(name))
    adapter_config.write_text(json.dumps(data, indent=2))
