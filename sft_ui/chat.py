"""Talk to models after (or during) training: stream replies, compare two models.

A model is named by a reference string:
  "latest"                  the latest finished run's model
  "<run id>"                that run's saved model (while it trains: its newest checkpoint)
  "<run id>/checkpoint-N"   one checkpoint of a run
  "<run id>/base"           the model that run started from
  "base"                    the default model
Loaded models are cached (at most SFT_UI_MAX_LOADED_MODELS, default 2).
Knows nothing of Gradio widgets.
"""
from __future__ import annotations

import os
import queue
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.models import load_model_and_tokenizer, resolve_model
from sft_ui.runs import (
    RunError,
    RunManager,
    checkpoint_folder,
    checkpoints,
    display_name,
    latest_checkpoint,
)

LATEST, BASE = "latest", "base"


@dataclass
class GenSettings:
    """How a reply is generated; temperature 0 means greedy."""
    system_prompt: str = ""
    max_new_tokens: int = 200
    temperature: float = 0.0
    top_p: float = 1.0
    repetition_penalty: float = 1.0

    def __post_init__(self):
        # A blank system prompt box can arrive as None (Gradio) or as a non-string (API).
        self.system_prompt = "" if self.system_prompt is None else str(self.system_prompt)

    def check(self) -> None:
        try:
            numbers = [float(v) for v in (self.max_new_tokens, self.temperature, self.top_p,
                                          self.repetition_penalty)]
        except (TypeError, ValueError):
            raise RunError("Max new tokens, temperature, top-p and repetition penalty must "
                           "be numbers.") from None
        if any(n != n for n in numbers):
            raise RunError("Generation settings must be numbers, not NaN.")
        if not 1 <= int(self.max_new_tokens) <= 4096:
            raise RunError("Max new tokens must be between 1 and 4096.")
        if not 0 <= float(self.temperature) <= 5:
            raise RunError("Temperature must be between 0 (greedy) and 5.")
        if not 0 < float(self.top_p) <= 1:
            raise RunError("Top-p must be above 0 and at most 1.")
        if not 0.5 <= float(self.repetition_penalty) <= 3:
            raise RunError("Repetition penalty must be between 0.5 and 3 (1 = off).")

    def generate_kwargs(self) -> dict:
        if float(self.temperature) <= 0:
            return {"do_sample": False, "repetition_penalty": float(self.repetition_penalty)}
        return {"do_sample": True, "temperature": float(self.temperature),
                "top_p": float(self.top_p), "repetition_penalty": float(self.repetition_penalty)}


def normalise_history(history) -> list[dict]:
    """Messages as {"role", "content": str}, whatever shape the client sent."""
    if history is not None and not isinstance(history, (list, tuple)):
        raise RunError('The chat history must be a list of messages, like [{"role": "user", '
                       '"content": "Hi"}], or empty.')
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


def render_prompt(tokenizer, messages: list[dict]) -> str:
    """The model's chat template, or a plain transcript for models without one."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False,
                                             add_generation_prompt=True)
    return "\n".join(m["content"] for m in messages) + "\n"


class _StopOnEvent:
    """A StoppingCriteria that ends generation when the reader has gone."""

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores, **kwargs) -> bool:
        return self.event.is_set()


class ChatService:
    """Resolves model references, keeps a few models loaded, streams replies."""

    def __init__(self, manager: RunManager, max_loaded: int | None = None):
        self.manager = manager
        self.max_loaded = max_loaded or int(os.environ.get("SFT_UI_MAX_LOADED_MODELS", 2))
        self._models: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()

    # ---- which model ---------------------------------------------------------
    def choices(self) -> list[tuple[str, str]]:
        """(label, reference) of everything one can chat with, newest runs first."""
        out = [("latest finished run", LATEST), (f"base: {DEFAULT_MODEL_ID}", BASE)]
        for run in self.manager.all_runs():
            name = display_name(run)
            if run.model_dir and Path(run.model_dir).exists():
                out.append((f"{name} (final model)", run.id))
            for ckpt in checkpoints(run.dir):
                out.append((f"{name} / {ckpt.name}", f"{run.id}/{ckpt.name}"))
            out.append((f"{name} / base model ({run.config.model_name_or_path})",
                        f"{run.id}/{BASE}"))
        return out

    def latest_text(self) -> str:
        """Which run "latest finished run" is now."""
        latest = self.manager.latest_finished()
        return (f"Latest finished run: {display_name(latest)}" if latest else
                "Latest finished run: none yet.")

    def model_path(self, ref: str | None) -> Path:
        """The folder a reference loads from, or RunError saying what is missing."""
        ref = (ref or LATEST).strip()
        if ref == LATEST:
            run = self.manager.latest_finished()
            if run is None:
                raise RunError("No finished run yet: train a model on the Train tab first, "
                               "then chat with it here.")
            return Path(run.model_dir)
        if ref == BASE:
            return Path(resolve_model(DEFAULT_MODEL_ID))
        run_id, _, part = ref.partition("/")
        run = self.manager.get(run_id)
        if part == BASE:
            return Path(resolve_model(run.config.model_name_or_path))
        if part:
            return checkpoint_folder(run, part)
        if run.model_dir and Path(run.model_dir).exists():
            return Path(run.model_dir)
        checkpoint = latest_checkpoint(run.dir)
        if checkpoint is None:
            raise RunError(f"Run {run.id} has no saved model or checkpoint yet (state: "
                           f"{run.state}). Wait for a checkpoint, or set 'Save every N steps'.")
        return checkpoint

    def load(self, ref: str | None):
        """(model, tokenizer) for a reference, from the cache when it is there."""
        key = str(self.model_path(ref))
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

    def loaded(self) -> list[str]:
        return list(self._models)

    # ---- replies ---------------------------------------------------------------
    def stream(self, message: str, history=None, ref: str | None = None,
               settings: GenSettings | None = None) -> Iterator[str]:
        """Yield the growing reply to `message` after `history`. Closing the generator
        (a Stop in the page) ends the generation too."""
        # heavy: transformers loaded on first use
        from transformers import StoppingCriteriaList, TextIteratorStreamer
        settings = settings or GenSettings()
        settings.check()
        if not (message or "").strip():
            raise RunError("The message is empty: type something to send.")
        messages = normalise_history(history) + [{"role": "user", "content": message}]
        model, tokenizer = self.load(ref)  # after the cheap checks
        if settings.system_prompt.strip():
            messages = [{"role": "system", "content": settings.system_prompt.strip()}] + \
                [m for m in messages if m["role"] != "system"]
        enc = tokenizer(render_prompt(tokenizer, messages), return_tensors="pt",
                        add_special_tokens=False).to(model.device)
        streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
        stop = threading.Event()
        kwargs = dict(**enc, streamer=streamer, max_new_tokens=int(settings.max_new_tokens),
                      use_cache=True, pad_token_id=tokenizer.pad_token_id,
                      stopping_criteria=StoppingCriteriaList([_StopOnEvent(stop)]),
                      **settings.generate_kwargs())
        threading.Thread(target=model.generate, kwargs=kwargs, daemon=True).start()
        reply = ""
        try:
            for piece in streamer:
                reply += piece
                yield reply
        finally:
            stop.set()

    def compare(self, message: str, ref_a: str, ref_b: str,
                settings: GenSettings | None = None) -> Iterator[tuple[str, str]]:
        """Both models answer the same message at once; yield (reply A, reply B) as they
        grow."""
        self.load(ref_a), self.load(ref_b)  # load errors show before anything streams
        updates: queue.Queue = queue.Queue()
        cancelled = threading.Event()

        def pump(side: int, ref: str) -> None:
            stream = self.stream(message, None, ref, settings)
            try:
                for text in stream:
                    if cancelled.is_set():
                        break
                    updates.put((side, text, None))
            except Exception as e:  # raised to the reader below
                updates.put((side, None, e))
            finally:
                stream.close()  # ends the generation
                updates.put((side, None, StopIteration()))

        for side, ref in enumerate((ref_a, ref_b)):
            threading.Thread(target=pump, args=(side, ref), daemon=True).start()
        replies, done = ["", ""], 0
        try:
            while done < 2:
                side, text, problem = updates.get()
                if isinstance(problem, StopIteration):
                    done += 1
                elif problem is not None:
                    raise problem
                else:
                    replies[side] = text
                    yield replies[0], replies[1]
        finally:
            cancelled.set()

    def compare_batch(self, prompts: list[str], ref_a: str, ref_b: str,
                      max_new_tokens: int = 64) -> list[dict]:
        """Greedy answers of both models to every prompt, as table rows."""
        if not isinstance(prompts, (list, tuple)) or not all(isinstance(p, str) for p in prompts):
            raise RunError("Prompts must be a list of texts, one prompt each, like "
                           '["Hi", "What is 2+2?"].')
        GenSettings(max_new_tokens=max_new_tokens).check()
        prompts = [p.strip() for p in prompts if p and p.strip()]
        if not prompts:
            raise RunError("Add at least one prompt (one per line).")
        from sft_ui.train.generation import generate_batch  # torch: only when generating
        answers = [generate_batch(*self.load(ref), prompts, int(max_new_tokens))
                   for ref in (ref_a, ref_b)]
        return [{"prompt": p, "a": a.strip(), "b": b.strip()}
                for p, a, b in zip(prompts, *answers)]

