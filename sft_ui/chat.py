"""Chat with a trained run: load its saved model (cached) and stream replies.

Owns history normalisation (Gradio gives content as a list of parts), the
choice of model (a run id, default the latest finished run) and streaming
through TextIteratorStreamer. Knows nothing of Gradio widgets.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Iterator

from .models import load_model_and_tokenizer
from .runs import RunError, RunManager


def normalise_history(history) -> list[dict]:
    """Messages as {"role", "content": str}, whatever shape the client sent."""
    out = []
    for item in history or []:
        if isinstance(item, (list, tuple)) and len(item) == 2:  # [user, assistant] pairs
            out += [{"role": "user", "content": str(item[0] or "")},
                    {"role": "assistant", "content": str(item[1] or "")}]
            continue
        if not isinstance(item, dict) or item.get("role") not in ("user", "assistant", "system"):
            continue
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") if isinstance(p, dict) else str(p)
                              for p in content)
        out.append({"role": item["role"], "content": str(content or "")})
    return out


class ChatService:
    """Keeps up to `max_loaded` models in memory and streams replies from them."""

    def __init__(self, manager: RunManager, max_loaded: int = 1):
        self.manager, self.max_loaded = manager, max_loaded
        self._models: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()

    def model_dir_for(self, run_id: str | None) -> Path:
        if not run_id:
            run = self.manager.latest_finished()
            if run is None:
                raise RunError("No finished run yet: train a model on the Train tab first, "
                               "then chat with it here.")
        else:
            run = self.manager.get(run_id)
        if not run.model_dir or not Path(run.model_dir).exists():
            raise RunError(f"Run {run.id} has no saved model yet (state: {run.state}).")
        return Path(run.model_dir)

    def _load(self, path: Path):
        key = str(path)
        with self._lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            loaded = load_model_and_tokenizer(key)
            loaded[0].eval()
            self._models[key] = loaded
            while len(self._models) > self.max_loaded:
                self._models.popitem(last=False)
            return loaded

    def stream(self, message: str, history=None, run_id: str | None = None,
               max_new_tokens: int = 200) -> Iterator[str]:
        """Yield the growing reply to `message` after `history`."""
        from transformers import TextIteratorStreamer
        if not (message or "").strip():
            raise RunError("The message is empty: type something to send.")
        model, tokenizer = self._load(self.model_dir_for(run_id))
        messages = normalise_history(history) + [{"role": "user", "content": message}]
        if getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template(messages, tokenize=False,
                                                 add_generation_prompt=True)
        else:
            text = "\n".join(m["content"] for m in messages) + "\n"
        enc = tokenizer(text, return_tensors="pt", add_special_tokens=False).to(model.device)
        streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
        kwargs = dict(**enc, streamer=streamer, max_new_tokens=max_new_tokens, do_sample=False,
                      use_cache=True, pad_token_id=tokenizer.pad_token_id)
        threading.Thread(target=model.generate, kwargs=kwargs, daemon=True).start()
        reply = ""
        for piece in streamer:
            reply += piece
            yield reply
