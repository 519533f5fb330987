"""Reward functions the person writes in the page: which functions the code defines, and
running them in a worker process of their own (sandbox.py) with a time limit per call, so a
function that hangs or crashes stops its worker, never the app or the training.
"""
from __future__ import annotations

import ast
import json
import math
import os
import queue
import re
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

from sft_ui.i18n.message import Message, from_json
from sft_ui.rewards import RewardError
from sft_ui.rewards.sandbox import FILENAME
from sft_ui.rewards.scores import TRL_EXTRAS, text_of

ROOT = Path(__file__).resolve().parents[2]  # the folder holding the sft_ui package
# -I: none of the user's site, PYTHON* variables or current folder; the package by path.
START = f"import sys; sys.path.insert(0, {str(ROOT)!r}); " \
        "from sft_ui.rewards.sandbox import main; main()"
ARGUMENTS = frozenset({"prompts", "completions", "completion_ids"}) | TRL_EXTRAS
SECRET = re.compile(r"TOKEN|SECRET|PASSW|API_?KEY|CREDENTIAL", re.I)  # kept from the code
LOAD_S = 30.0  # seconds the code gets to load (its imports), beyond one call's limit
GRACE_S = 2.0  # seconds a worker gets to end once its input is closed, before it is killed
EXAMPLE = ("def my_reward(completions, **kwargs):\n"
           "    return [1.0 if len(text_of(c)) < 200 else 0.0 for c in completions]")


def _parse(code: str) -> ast.Module:
    try:
        return ast.parse(code, FILENAME)
    except SyntaxError as e:
        where = f" (`{e.text.strip()}`)" if e.text and e.text.strip() else ""
        raise RewardError(Message("The reward code has a syntax error at line {lineno}: "
                                  "{msg}{where}. Fix it and test the rewards again.",
                                  lineno=e.lineno, msg=e.msg, where=where)) from None


def _functions(code: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    found = [node for node in _parse(code).body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and not node.name.startswith("_")]
    if not found:
        raise RewardError(Message(
            "The reward code defines no reward function. Define one at the top level, for "
            "example:\n\n{EXAMPLE}\n\nIt gets the completions (texts, or message lists: "
            "text_of(c) gives the text), the prompts and every column of the data by name, and "
            "returns one number per completion (None to skip one). Names starting with _ are "
            "helpers.", EXAMPLE=EXAMPLE))
    return list({node.name: node for node in found}.values())


def function_names(code: str) -> list[str]:
    """The reward functions the code defines: its top-level functions not starting with _."""
    return [node.name for node in _functions(code)]


def function_columns(code: str) -> dict[str, tuple[str, ...]]:
    """Each reward function's columns: the parameters it needs (no default) besides those
    TRL passes anyway; the data must have them."""
    out = {}
    for node in _functions(code):
        args = node.args
        plain = args.posonlyargs + args.args
        required = plain[:len(plain) - len(args.defaults)] + [
            a for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
        out[node.name] = tuple(a.arg for a in required if a.arg not in ARGUMENTS)
    return out


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not SECRET.search(k)}


def _read(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _stop(process: subprocess.Popen) -> None:
    """End the worker: its input closed, then killed after a short wait; waited for."""
    assert process.stdin is not None  # (started with stdin=PIPE)
    try:
        process.stdin.close()
    except OSError:  # its end is gone already
        pass
    try:
        process.wait(GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class _Gone(Exception):
    """The worker ended or stopped answering."""


class _Worker:
    """One worker process running the code, and the thread reading its replies."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", START], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=_environment(), encoding="utf-8")
        self.lines: queue.Queue = queue.Queue()
        self.reader = threading.Thread(target=_read, args=(self.process.stdout, self.lines),
                                       name=f"reward-worker-{self.process.pid}", daemon=True)
        self.reader.start()
        self._finalizer = weakref.finalize(self, _stop, self.process)

    def ask(self, message: dict, timeout: float) -> dict:
        """The reply to `message`; _Gone (with None, or "slow") when none comes."""
        try:
            self.process.stdin.write(_dumps(message) + "\n")
            self.process.stdin.flush()
        except OSError:
            raise _Gone(None) from None
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise _Gone("slow") from None
        if line is None:
            raise _Gone(None)
        return json.loads(line)

    def close(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        self._finalizer()
        self.reader.join(timeout=GRACE_S)
        self.process.stdout.close()


def _dumps(message: dict) -> str:
    """JSON of a request; values JSON cannot carry go as their str()."""
    try:
        return json.dumps(message, default=str)
    except (TypeError, ValueError):  # e.g. keys that are not strings
        kwargs = {k: [v if _carries(v) else str(v) for v in values]
                  for k, values in message.get("kwargs", {}).items()}
        return json.dumps({**message, "kwargs": kwargs}, default=str)


def _carries(value) -> bool:
    try:
        json.dumps(value, default=str)
    except (TypeError, ValueError):
        return False
    return True


def _preview(completions, i: int) -> str:
    return repr(text_of(completions[i])[:80])


def _checked(name: str, reply: dict, completions: list) -> list[float | None]:
    """The scores of a reply (one finite number, or None: skip, per completion), or a
    RewardError naming the function, the completion and what to do."""
    if "not_list" in reply:
        got = reply["not_list"]
        raise RewardError(Message(
            "The reward {name} returned {repr} ({type}), not a list: return a list with one "
            "number per completion (None to skip one), e.g. [1.0 if ... else 0.0 for c in "
            "completions].", name=name, repr=got["repr"], type=got["type"]))
    scores, n = reply["result"], len(completions)
    if len(scores) != n:
        where = (Message("completion {scores} ({preview}) got none", scores=len(scores),
                         preview=_preview(completions, len(scores)))
                 if len(scores) < n else Message("there are only {n}", n=n))
        raise RewardError(Message(
            "The reward {name} returned {scores} scores for {n} completions ({where}): return "
            "exactly one number per completion, in their order (None to skip one).",
            name=name, scores=len(scores), n=n, where=where))
    out = []
    for i, score in enumerate(scores):
        if isinstance(score, dict):
            raise RewardError(Message(
                "The reward {name} gave completion {i} ({preview}) the score {repr} ({bad}), "
                "not a number: return an int or float per completion, or None to skip it.",
                name=name, i=i, preview=_preview(completions, i), repr=score["repr"],
                bad=score["bad"]))
        if score is not None:
            try:
                score = float(score)
            except OverflowError:
                score = math.inf
            if not math.isfinite(score):
                raise RewardError(Message(
                    "The reward {name} gave completion {i} ({preview}) the score {score}: a "
                    "score must be a finite number; return None to skip a completion that "
                    "cannot be scored.", name=name, i=i, preview=_preview(completions, i),
                    score=f"{score}"))
        out.append(score)
    return out


def _failed(name: str | None, error: dict) -> RewardError:
    """What the worker reports of an exception (its message a Message where the worker
    made it one: sandbox.py) as a RewardError."""
    where = Message(" at line {line}", line=error["line"]) if error.get("line") else ""
    source = f" (`{error['source']}`)" if error.get("source") else ""
    values = dict(type=error["type"], message=from_json(error["message"]), where=where,
                  source=source)
    if name:
        return RewardError(Message("The reward {name} raised {type}: {message}{where}{source}. "
                                   "Fix the code and test the rewards again.", name=name,
                                   **values))
    return RewardError(Message("The reward code failed when loaded with {type}: "
                               "{message}{where}{source}. Fix the code and test the rewards "
                               "again.", **values))


class WrittenReward:
    """One function of the code as TRL calls it; named by its def."""

    def __init__(self, owner: WrittenRewards, name: str):
        self.__name__ = name
        self._owner = owner

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs):
        return self._owner.call(self.__name__, prompts, completions or [], completion_ids,
                                kwargs)

    def __repr__(self) -> str:
        return f"WrittenReward({self.__name__!r})"


class WrittenRewards:
    """The reward functions of `code`, run in one worker process (started on first call)
    that gets `timeout_s` seconds a call; after a hang or a crash the next call starts a
    fresh worker. A context manager; `close()` ends the worker and waits for it."""

    def __init__(self, code: str, timeout_s: float = 10.0):
        self.code = code
        self.names = function_names(code)
        self.timeout_s = timeout_s
        self._worker: _Worker | None = None
        self._lock = threading.Lock()

    def functions(self) -> list[Callable]:
        return [WrittenReward(self, name) for name in self.names]

    def call(self, name: str, prompts, completions: list, completion_ids,
             kwargs: dict) -> list[float | None]:
        """`name`'s scores of the completions (the row columns in `kwargs`)."""
        n = len(completions)
        columns = {k: list(v) for k, v in kwargs.items() if k not in ARGUMENTS
                   and isinstance(v, (list, tuple)) and len(v) == n}
        request = {"call": name, "kwargs": {"prompts": prompts, "completions": completions,
                                            "completion_ids": completion_ids, **columns}}
        with self._lock:
            reply = self._ask(name, request, self.timeout_s, n)
        if "error" in reply:
            raise _failed(name, reply["error"])
        return _checked(name, reply, completions)

    def _ask(self, name: str, request: dict, timeout: float, n: int) -> dict:
        worker = self._worker or self._start()
        try:
            return worker.ask(request, timeout)
        except _Gone as gone:
            self._discard(kill=True)
            if gone.args[0] == "slow":
                raise RewardError(Message(
                    "The reward {name} took more than {timeout} s for {n} completions, so it "
                    "was stopped. Make it faster (no endless loop, no slow calls per "
                    "completion), or raise its time limit.", name=name, timeout=f"{timeout:g}",
                    n=n)) from None
            raise RewardError(Message(
                "The reward code's process ended while {name} ran (exit status {returncode}): "
                "the code may exit the process or use too much memory. Fix it and test the "
                "rewards again.", name=name, returncode=worker.process.returncode)) from None

    def _start(self) -> _Worker:
        self._worker = worker = _Worker()
        try:
            reply = worker.ask({"code": self.code, "names": self.names},
                               self.timeout_s + LOAD_S)
        except _Gone as gone:
            self._discard(kill=True)
            if not gone.args[0]:
                raise RewardError(Message("The reward code could not start: it runs once when "
                                          "loaded, so keep slow work inside the functions."
                                          )) from None
            slow = Message("took more than {value} s to load",
                           value=f"{self.timeout_s + LOAD_S:g}")
            raise RewardError(Message("The reward code {slow}: it runs once when loaded, so keep "
                                      "slow work inside the functions.", slow=slow)) from None
        if "error" in reply:
            self._discard()
            raise _failed(None, reply["error"])
        missing = [n for n in self.names if n not in reply["names"]]
        if missing:
            self._discard()
            raise RewardError(Message("After the code ran, {join} is no function: give each "
                                      "reward function a name of its own.",
                                      join=", ".join(missing)))
        return worker

    def _discard(self, kill: bool = False) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close(kill=kill)

    def close(self) -> None:
        """End the worker, if one runs, and wait for it."""
        with self._lock:
            self._discard()

    def __enter__(self) -> WrittenRewards:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
