"""The models a person talks to after (or during) training, named by a reference ("latest",
a run id, "<run id>/checkpoint-N", "<run id>/base", "base"): loaded and cached, their
replies streamed, two of them compared (ChatService). Generation itself: chat/generation.py.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Iterator

from sft_ui.chat.generation import (
    GenSettings,
    chat_prompt,
    checked,
    conversation,
    generate_streaming,
    normalise_history,
)
from sft_ui.config import DEFAULT_MODEL_ID
from sft_ui.data.chat_habits import habits, stops_at_turn_end, to_template
from sft_ui.data.thinking import switchable
from sft_ui.i18n.message import Message
from sft_ui.models import ModelError, load_for_inference, load_tokenizer, resolve_model
from sft_ui.runs import (
    RunError,
    RunManager,
    checkpoint_folder,
    checkpoints,
    display_name,
    latest_checkpoint,
)
from sft_ui.runs.folder import BEST_MARK

LATEST, BASE = "latest", "base"

@functools.lru_cache(maxsize=8)
def _chat_template(path: str) -> str | None:
    """The chat template of the model at `path` (a base model's folder does not change:
    each Compare does not load its tokenizer again)."""
    return getattr(load_tokenizer(path), "chat_template", None)


def _trained_on(adapter: Path, base: Path) -> bool:
    """Whether the folder `adapter` holds a LoRA adapter trained on the model at `base`."""
    try:
        config = json.loads((adapter / "adapter_config.json").read_text(encoding="utf-8"))
        return Path(resolve_model(config["base_model_name_or_path"])).resolve() == \
            base.resolve()
    except (OSError, ValueError, KeyError, TypeError, ModelError):
        return False


class ChatService:
    """Resolves model references, keeps a few models loaded, streams replies."""

    def __init__(self, manager: RunManager, max_loaded: int | None = None):
        self.manager = manager
        self.max_loaded = max_loaded or int(os.environ.get("SFT_UI_MAX_LOADED_MODELS", 2))
        self._models: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()

    # ---- which model ---------------------------------------------------------
    def choices(self) -> list[tuple[str, str]]:
        """(label, reference) of everything one can chat with, newest runs first, the best
        trial of each sweep before them (its name ends with sweeps/trial.py's mark)."""
        out: list[tuple[str, str]] = [(Message("latest finished run"), LATEST),
                                      (Message("base: {model}", model=DEFAULT_MODEL_ID), BASE)]
        runs = self.manager.all_runs()
        best = [run for run in runs if run.name.endswith(BEST_MARK)]
        for run in best + [run for run in runs if run not in best]:
            name = display_name(run)
            if run.model_dir and Path(run.model_dir).exists():
                out.append((Message("{name} (final model)", name=name), run.id))
            for ckpt in checkpoints(run.dir):
                out.append((f"{name} / {ckpt.name}", f"{run.id}/{ckpt.name}"))
            out.append((Message("{name} / base model ({model})", name=name,
                                model=run.config.model_name_or_path), f"{run.id}/{BASE}"))
        return out

    def latest_text(self) -> str:
        """Which run "latest finished run" is now."""
        latest = self.manager.latest_finished()
        return (Message("Latest finished run: {name}", name=display_name(latest)) if latest
                else Message("Latest finished run: none yet."))

    def model_path(self, ref: str | None) -> Path:
        """The folder a reference loads from, or RunError saying what is missing.
        "latest": the latest finished run's model; "<run id>": that run's saved model (while
        it trains: its newest checkpoint); "<run id>/checkpoint-N": one checkpoint;
        "<run id>/base": the model that run started from; "base": the default model."""
        ref = (ref or LATEST).strip()
        if ref == LATEST:
            run = self.manager.latest_finished()
            if run is None:
                raise RunError(Message("No finished run yet: train a model on the Train tab "
                                       "first, then chat with it here."))
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
            raise RunError(Message("Run {run_id} has no saved model or checkpoint yet (state: "
                                   "{state}). Wait for a checkpoint, or set 'Save every N "
                                   "steps'.", run_id=run.id, state=Message(run.state)))
        return checkpoint

    def ask_as(self, *refs: str | None) -> str:
        """How the models of `refs` are asked by default: "text" where one was trained on
        plain text (its run's samples continued text: data/sized.py), else "chat"."""
        for ref in refs:
            ref = (ref or LATEST).strip()
            run_id, _, part = ref.partition("/")
            try:
                run = self.manager.latest_finished() if ref == LATEST else \
                    None if BASE in (ref, part) else self.manager.get(run_id)
            except RunError:  # (an unknown reference: its reply says so)
                run = None
            if run is not None and run.config.samples_as == "text":
                return "text"
        return "chat"

    def _asked(self, settings: GenSettings, *refs: str | None) -> GenSettings:
        """settings, asking as the models' default where they leave it open."""
        if settings.ask_as:
            return settings
        return dataclasses.replace(settings, ask_as=self.ask_as(*refs))

    def load(self, ref: str | None):
        """(model, tokenizer) for a reference, from the cache when it is there."""
        return self._load(self.model_path(ref))

    def _load(self, path: Path):
        key = str(path)
        with self._lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            loaded = load_for_inference(key)
            loaded[0].eval()
            stops_at_turn_end(*loaded)  # replies end at the template's end of turn
            self._models[key] = loaded
            while len(self._models) > self.max_loaded:
                self._models.popitem(last=False)
            return loaded

    def loaded(self) -> list[str]:
        return list(self._models)

    # ---- replies ---------------------------------------------------------------
    def stream(self, message: str, history=None, ref: str | None = None,
               settings: GenSettings | None = None, pause=None) -> Iterator[str]:
        """Yield the growing reply to `message` after `history`. Closing the generator
        (a Stop in the page) ends the generation too. `pause`: a stopping criterion that
        pauses between tokens (limits.Pause: a visitor's reply while a run trains)."""
        settings = self._asked(checked(message, settings), ref)
        model, tokenizer = self.load(ref)  # after the cheap checks
        text = chat_prompt(tokenizer, normalise_history(history), message, settings)
        for replies in generate_streaming(model, tokenizer, [text], settings, pause):
            yield replies[0]

    def notes(self, message: str, history=None, ref: str | None = None,
              settings: GenSettings | None = None) -> list:
        """What the model's chat template changes in this conversation (chat_habits.to_template:
        a system prompt it has no role for, turns of one role in a row), as sentences."""
        settings = self._asked(settings or GenSettings(), ref)
        if settings.as_text:
            return []  # (no template: the text as typed)
        _, tokenizer = self.load(ref)
        if not getattr(tokenizer, "chat_template", None):
            return []
        tokenizer, no_switch = settings.template_for(tokenizer)
        messages = conversation(normalise_history(history), message or "", settings)
        return to_template(messages, habits(tokenizer))[1] + ([no_switch] if no_switch and
                                                     not switchable(tokenizer) else [])

    def compare(self, message: str, ref_a: str, ref_b: str,
                settings: GenSettings | None = None, pause=None) -> Iterator[tuple[str, str]]:
        """Both models answer the same message; yield (reply A, reply B) as they grow.
        In one batch where one loaded model gives both answers (the same model twice, or
        a LoRA run and the base it trained on: peft's mixed-adapter batch, the base rows
        with the adapter off); else one after the other, as two generations at once on
        a CPU share its cores and each takes more than twice as long."""
        settings = self._asked(checked(message, settings), ref_a, ref_b)
        one = self._one_batch(self.model_path(ref_a), self.model_path(ref_b))
        if one is None:
            self.load(ref_a), self.load(ref_b)  # load errors show before anything streams
            first = ""
            for first in self.stream(message, None, ref_a, settings, pause):
                yield first, ""
            for second in self.stream(message, None, ref_b, settings, pause):
                yield first, second
            return
        model, tokenizer, adapters = one
        text = chat_prompt(tokenizer, [], message, settings)
        extra = {"adapter_names": adapters} if adapters else {}
        for replies in generate_streaming(model, tokenizer, [text, text], settings, pause,
                                          **extra):
            yield replies[0], replies[1]

    def _one_batch(self, path_a: Path, path_b: Path):
        """(model, tokenizer, peft adapter names per row or None) that answers as A and
        as B in one batch, or None when the two need models of their own."""
        if path_a.resolve() == path_b.resolve():
            return (*self._load(path_a), None)
        for adapter, base, names in ((path_a, path_b, ["default", "__base__"]),
                                     (path_b, path_a, ["__base__", "default"])):
            if _trained_on(adapter, base):
                model, tokenizer = self._load(adapter)
                if getattr(tokenizer, "chat_template", None) == _chat_template(str(base)):
                    return model, tokenizer, names
        return None

    def compare_batch(self, prompts: list[str], ref_a: str, ref_b: str,
                      max_new_tokens: int = 64, ask_as: str = "",
                      thinking: str = "") -> list[dict]:
        """Greedy answers of both models to every prompt, as table rows."""
        *_, rows = self.compare_batch_steps(prompts, ref_a, ref_b, max_new_tokens, ask_as,
                                            thinking)
        return rows

    def compare_batch_steps(self, prompts: list[str], ref_a: str, ref_b: str,
                            max_new_tokens: int = 64,
                            ask_as: str = "", thinking: str = "") -> Iterator[list[dict]]:
        """compare_batch's rows as they fill: model A's answers (B's still ""), then
        both. What is wrong with the request is raised here, before any row."""
        if not isinstance(prompts, (list, tuple)) or not all(isinstance(p, str) for p in prompts):
            raise RunError(Message('Prompts must be a list of texts, one prompt each, like '
                                   '["Hi", "What is 2+2?"].'))
        text = GenSettings(max_new_tokens=max_new_tokens, ask_as=ask_as, thinking=thinking)
        text.check()
        prompts = [p.strip() for p in prompts if p and p.strip()]
        if not prompts:
            raise RunError(Message("Add at least one prompt (one per line)."))
        return self._rows(prompts, ref_a, ref_b, self._asked(text, ref_a, ref_b))

    def _rows(self, prompts: list[str], ref_a: str, ref_b: str, text: GenSettings
              ) -> Iterator[list[dict]]:
        from sft_ui.train.answering import generate_batch  # torch: only when generating
        answers = []
        for ref in (ref_a, ref_b):
            model, tokenizer = self.load(ref)
            answers.append(generate_batch(model, text.template_for(tokenizer)[0], prompts,
                                          int(text.max_new_tokens), as_text=text.as_text))
            if len(answers) == 1:
                yield [{"prompt": p, "a": a.strip(), "b": ""}
                       for p, a in zip(prompts, answers[0])]
        first, second = answers
        yield [{"prompt": p, "a": a.strip(), "b": b.strip()}
               for p, a, b in zip(prompts, first, second)]

