"""The worker process that runs the reward code the person wrote (its parent: written.py): one
JSON request a line on stdin, one reply a line on stdout (`main`). It ends at the end of
stdin, or when its parent is gone.
"""
from __future__ import annotations

import asyncio
import inspect
import json
import linecache
import os
import sys
import threading
import time
import traceback

from sft_ui.i18n.message import Message
from sft_ui.rewards.scores import text_of

FILENAME = "<reward code>"  # the code's name in tracebacks, by which its lines are found


def _protocol():
    """The request and reply streams; fd 0 and 1 become /dev/null and stderr, so the code's
    input() and print() (its child processes' too) cannot reach them."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin, sys.stdout = open(os.devnull, encoding="utf-8"), sys.stderr
    return requests, replies


def _watch_parent() -> None:
    """End this process when the one that started it is gone, even mid-call."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _error(e: BaseException) -> dict:
    """The exception as the parent words it, with the innermost line of the code."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == FILENAME]
    line, source = (frames[-1].lineno, frames[-1].line) if frames else (None, None)
    if isinstance(e, SyntaxError) and e.filename == FILENAME:
        line, source = e.lineno, (e.text or "").strip()
    return {"type": type(e).__name__, "message": str(e), "line": line, "source": source}


def _arguments(fn, kwargs: dict) -> dict:
    """The keyword arguments `fn` takes: all of them with **kwargs, else those it names."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return kwargs
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return {k: v for k, v in kwargs.items() if k in named}


def _score(value):
    """A score as JSON carries it: numbers (numpy's and torch's scalars too) and None as
    they are, anything else described for the parent's message."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if not isinstance(value, (str, bytes)) and hasattr(type(value), "__float__"):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    return {"bad": type(value).__name__, "repr": repr(value)[:80]}


def _reply_to(result) -> dict:
    if isinstance(result, (str, bytes, dict)) or not hasattr(result, "__iter__"):
        return {"not_list": {"type": type(result).__name__, "repr": repr(result)[:80]}}
    return {"result": [_score(v) for v in result]}


def _load(request: dict) -> dict:
    """The namespace of the code, run once; its `text_of` helps with message lists."""
    code = request["code"]
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
    namespace = {"__name__": "reward_code", "text_of": text_of}
    exec(compile(code, FILENAME, "exec"), namespace)
    return namespace


def _call(namespace: dict, request: dict) -> dict:
    fn = namespace.get(request["call"])
    if not callable(fn):
        said = Message("the code defines no function {call}", call=repr(request["call"]))
        return {"error": {"type": "NameError", "line": None, "source": None,
                          "message": said.as_json()}}
    result = fn(**_arguments(fn, request["kwargs"]))
    if inspect.iscoroutine(result):  # an async def
        result = asyncio.run(result)
    return _reply_to(result)


def main() -> None:
    """The protocol, which owns stdin and stdout. The first request carries the code and
    the names of its functions; the code runs once and the reply is `{"names": [...]}`.
    Then each `{"call": name, "kwargs": {...}}` is answered `{"result": [...]}` (a score
    that is no number: `{"bad": type, "repr": ...}`; no list at all: `{"not_list": ...}`),
    and what goes wrong `{"error": {"type", "message", "line", "source"}}`, the line being
    that of the person's code (a message of the worker's own as a Message's as_json)."""
    requests, replies = _protocol()
    _watch_parent()

    def reply(message: dict) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()
    first = requests.readline()
    if not first:
        return
    request = json.loads(first)
    try:
        namespace = _load(request)
    except BaseException as e:  # the person's code: whatever it raises is reported
        reply({"error": _error(e)})
        return
    reply({"names": [n for n in request["names"] if callable(namespace.get(n))]})
    for line in requests:
        try:
            message = _call(namespace, json.loads(line))
        except BaseException as e:  # likewise, SystemExit and KeyboardInterrupt included
            message = {"error": _error(e)}
        reply(message)


if __name__ == "__main__":
    main()
