"""How a reply is generated, whatever the model: the settings (GenSettings, checked),
the conversation as the model's chat template writes it (render_prompt, fitted to its
habits: data/chat_habits.py) or, asked as text, the message as typed for the model to
continue (asked), and a batch of replies streamed as they grow from a thread
that stops when the reader goes (generate_streaming). Knows nothing of runs or of Gradio.
"""
from __future__ import annotations

import contextlib
import queue
import threading
from dataclasses import dataclass
from typing import Iterator

from sft_ui.data import thinking as think
from sft_ui.data.chat_habits import habits, to_template
from sft_ui.i18n.message import Message
from sft_ui.limits import lower_this_thread
from sft_ui.runs import RunError

# a message as the user's turn, or as text to continue ("": as the model is asked by
# default: ChatService.ask_as)
ASK_AS = ("chat", "text", "")
THINKING = ("", *think.CHOICES)  # "" and "default": as the model's template thinks


@dataclass
class GenSettings:
    """How a reply is generated; temperature 0 means greedy; `ask_as` "text": the
    message is the opening of a text the model continues, as typed (no chat template,
    no history): how a model trained on plain text is tried. `thinking` "on"/"off": a
    thinking model's template asked with enable_thinking so (data/thinking.py)."""
    system_prompt: str = ""
    max_new_tokens: int = 200
    temperature: float = 0.0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    thinking: str = ""
    ask_as: str = ""

    def __post_init__(self):
        # A blank system prompt box can arrive as None (Gradio) or as a non-string (API).
        self.system_prompt = "" if self.system_prompt is None else str(self.system_prompt)
        self.ask_as = "" if self.ask_as is None else self.ask_as
        self.thinking = "" if self.thinking is None else self.thinking

    @property
    def as_text(self) -> bool:
        return self.ask_as == "text"

    def check(self) -> None:
        try:
            numbers = [float(v) for v in (self.max_new_tokens, self.temperature, self.top_p,
                                          self.repetition_penalty)]
        except (TypeError, ValueError):
            raise RunError(Message("Max new tokens, temperature, top-p and repetition penalty "
                                   "must be numbers.")) from None
        if any(n != n for n in numbers):
            raise RunError(Message("Generation settings must be numbers, not NaN."))
        if not 1 <= int(self.max_new_tokens) <= 4096:
            raise RunError(Message("Max new tokens must be between 1 and 4096."))
        if not 0 <= float(self.temperature) <= 5:
            raise RunError(Message("Temperature must be between 0 (greedy) and 5."))
        if not 0 < float(self.top_p) <= 1:
            raise RunError(Message("Top-p must be above 0 and at most 1."))
        if not 0.5 <= float(self.repetition_penalty) <= 3:
            raise RunError(Message("Repetition penalty must be between 0.5 and 3 (1 = off)."))
        if self.ask_as not in ASK_AS:
            raise RunError(Message("Ask as must be chat (the model's chat template) or "
                                   "text (the message continued as typed)."))
        if self.thinking not in THINKING:
            raise RunError(Message("Thinking must be on, off, or default (as the model's "
                                   "chat template thinks)."))

    def template_for(self, tokenizer):
        """The tokenizer asked with this thinking choice (a copy where it changes), and
        what to say of it: None, or that the model's template has no switch."""
        if self.as_text:
            return tokenizer, None
        return think.applied(tokenizer, self.thinking)

    def generate_kwargs(self) -> dict:
        if float(self.temperature) <= 0:
            return {"do_sample": False, "repetition_penalty": float(self.repetition_penalty)}
        return {"do_sample": True, "temperature": float(self.temperature),
                "top_p": float(self.top_p), "repetition_penalty": float(self.repetition_penalty)}


THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


def split_reasoning(text: str) -> tuple[str, str]:
    """(the reasoning, the answer) of a reply a thinking model wrote: what comes before
    "</think>" (after "<think>" where the reply opens it; a template that opens it in
    the prompt, as Qwen3's, leaves the reply to close it), and what follows. A reply
    still thinking is all reasoning; one with no thought, ("", the reply)."""
    opened = text.lstrip().startswith(THINK_OPEN)
    body = text.lstrip().removeprefix(THINK_OPEN) if opened else text
    if THINK_CLOSE in body:
        thought, answer = body.split(THINK_CLOSE, 1)
        return thought.strip(), answer.strip()
    return (body.strip(), "") if opened else ("", text)


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
        if (item.get("metadata") or {}).get("title"):  # a reply's reasoning, shown apart:
            continue  # (templates drop earlier turns' reasoning)
        content = item.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") if isinstance(p, dict) else str(p)
                              for p in content)
        out.append({"role": item["role"], "content": str(content or "")})
    return out


def render_prompt(tokenizer, messages: list[dict]) -> str:
    """The model's chat template (the conversation fitted to its habits: chat_habits.to_template),
    or a plain transcript for models without one."""
    if getattr(tokenizer, "chat_template", None):
        fitted, _ = to_template(messages, habits(tokenizer))
        return tokenizer.apply_chat_template(fitted, tokenize=False,
                                             add_generation_prompt=True)
    return "\n".join(m["content"] for m in messages) + "\n"


class StopOnEvent:
    """A StoppingCriteria that ends generation when the reader has gone."""

    def __init__(self, event: threading.Event):
        self.event = event

    def __call__(self, input_ids, scores, **kwargs) -> bool:
        return self.event.is_set()


class _RowsStreamer:
    """The growing texts of a generation's rows (transformers' text streamers take one
    row): `put` receives the prompt first, then each step's new token of every row."""

    def __init__(self, tokenizer, rows: int):
        self.tokenizer = tokenizer
        self.ids: list[list[int]] = [[] for _ in range(rows)]
        self.queue: queue.Queue = queue.Queue()
        self._prompt_seen = False

    def put(self, value) -> None:
        if not self._prompt_seen:
            self._prompt_seen = True
            return
        for ids, token in zip(self.ids, value.reshape(-1).tolist()):
            ids.append(token)
        texts = self.texts()
        if not any(t.endswith("\ufffd") for t in texts):  # not half a character
            self.queue.put(texts)

    def texts(self) -> list[str]:
        return [self.tokenizer.decode(ids, skip_special_tokens=True) for ids in self.ids]

    def end(self, problem: BaseException | None = None) -> None:
        if problem is None:
            self.queue.put(self.texts())
        self.queue.put(problem or StopIteration())


def checked(message: str, settings: GenSettings | None) -> GenSettings:
    settings = settings or GenSettings()
    settings.check()
    if not (message or "").strip():
        raise RunError(Message("The message is empty: type something to send."))
    return settings


def conversation(history: list[dict], message: str, settings: GenSettings) -> list[dict]:
    """The conversation, the new message and the system prompt."""
    messages = history + [{"role": "user", "content": message}]
    if settings.system_prompt.strip():
        messages = [{"role": "system", "content": settings.system_prompt.strip()}] + \
            [m for m in messages if m["role"] != "system"]
    return messages


def chat_prompt(tokenizer, history: list[dict], message: str, settings: GenSettings) -> str:
    """The text the model sees for the conversation (render_prompt), or asked as text,
    the message as it is."""
    if settings.as_text:
        return message
    tokenizer, _ = settings.template_for(tokenizer)
    return render_prompt(tokenizer, conversation(history, message, settings))


class _FewerThreads:
    """While a reply that yields to a training run generates (a visitor's, `pause` given
    while a run trains), this process's torch computes on one thread: two processes'
    thread teams on the same cores make the training run's wait for each other (its
    steps slowed most where the cores were fullest). Restored when the last such reply
    ends."""

    def __init__(self):
        self.lock, self.count, self.saved = threading.Lock(), 0, 0

    def __enter__(self):
        import torch  # (loaded already: a model is generating)
        with self.lock:
            if not self.count:
                self.saved = torch.get_num_threads()
            self.count += 1
            torch.set_num_threads(1)

    def __exit__(self, *exc):
        import torch  # (loaded already, as above)
        with self.lock:
            self.count -= 1
            if not self.count:
                torch.set_num_threads(self.saved)


FEWER_THREADS = _FewerThreads()


def generate_streaming(model, tokenizer, texts: list[str], settings: GenSettings,
                       pause=None, **extra) -> Iterator[list[str]]:
    """Yield the replies to `texts` (one batch) as they grow; closing the generator ends
    the generation. `pause`: one more stopping criterion, called after each token
    (limits.Pause)."""
    from transformers import StoppingCriteriaList  # heavy: loaded on first use
    # (a text asked as text gets the special tokens its tokenizer adds, as in training)
    enc = tokenizer(texts, return_tensors="pt",
                    add_special_tokens=settings.as_text).to(model.device)
    streamer, stop = _RowsStreamer(tokenizer, len(texts)), threading.Event()

    yields = pause is not None and pause.training()

    def run() -> None:
        if yields:
            lower_this_thread(19)  # (a thread per reply: the priority ends with it)
        try:
            with FEWER_THREADS if yields else contextlib.nullcontext():
                model.generate(**enc, streamer=streamer,
                               max_new_tokens=int(settings.max_new_tokens), use_cache=True,
                               pad_token_id=tokenizer.pad_token_id,
                               stopping_criteria=StoppingCriteriaList(
                                   [StopOnEvent(stop), *([pause] if pause else [])]),
                               **settings.generate_kwargs(), **extra)
            streamer.end()
        except Exception as e:  # raised to the reader
            streamer.end(e)

    threading.Thread(target=run, daemon=True).start()
    try:
        while not isinstance(item := streamer.queue.get(), BaseException):
            yield item
        if not isinstance(item, StopIteration):
            raise item
    finally:
        stop.set()


