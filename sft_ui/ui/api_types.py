"""The API's values checked against each endpoint's signature before the endpoint runs:
JSON gives any type in any field, and a field of text that arrives as a number, a list
or a mapping gets a message naming the field and the type it takes (a null takes the
field's default). Knows nothing of the actions behind the endpoints."""
from __future__ import annotations

import functools
import inspect
import math
import typing

import gradio as gr

from sft_ui.i18n.message import Message
from sft_ui.ui.lang import say

# the type a field takes, as the message names it
KINDS = {str: Message("text"), int: Message("a whole number"), float: Message("a number"),
         bool: Message("true or false"), dict: Message("a mapping (a JSON object)"),
         list: Message("a list (a JSON array)")}


class _Missing:
    """A value the caller did not send (Studio.validate_inputs marks them)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def refusal(text: str) -> gr.Error:
    """The error an API client is answered with: the person-facing text, without a
    traceback in the server's log (a refusal is an answer, not a fault)."""
    return gr.Error(text, print_exception=False)


def checked(method):
    """`method` (an Api endpoint) with its values checked first; a generator stays one,
    so that Gradio streams it."""
    hints = typing.get_type_hints(method)
    signature = inspect.signature(method)

    def values(args, kwargs) -> inspect.BoundArguments:
        bound = signature.bind_partial(*args, **kwargs)
        for name, value in list(bound.arguments.items()):
            parameter = signature.parameters[name]
            if value is MISSING and parameter.default is inspect.Parameter.empty:
                raise refusal(say(Message("{field} is missing: send it, as {kind}.",
                                          field=name, kind=_kind_taken(hints.get(name)))))
            if (value is None or value is MISSING) and \
                    parameter.default is not inspect.Parameter.empty:
                bound.arguments[name] = parameter.default
            elif value is not None:
                _check(name, value, hints.get(name))
        return bound

    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def streamed(*args, **kwargs):
            bound = values(args, kwargs)
            yield from method(*bound.args, **bound.kwargs)
        return streamed

    @functools.wraps(method)
    def answered(*args, **kwargs):
        bound = values(args, kwargs)
        return method(*bound.args, **bound.kwargs)
    return answered


def _check(name: str, value, hint) -> None:
    """gr.Error where `value` is not of a type `hint` (str, int, float, bool, dict, list,
    or a union of them) takes."""
    allowed = _allowed(hint)
    if not allowed or any(_is(value, t) for t in allowed):
        return
    raise refusal(say(Message("{field} must be {kind}, not {given}.", field=name,
                               kind=KINDS[allowed[0]], given=_kind_of(value))))


def _allowed(hint) -> list[type]:
    """The types of KINDS a field's hint (a type or a union of them) takes."""
    return [t for t in (typing.get_args(hint) or (hint,)) if t in KINDS]


def _kind_taken(hint) -> Message:
    """The type a field takes, as a message names it (text where its hint says none)."""
    allowed = _allowed(hint)
    return KINDS[allowed[0]] if allowed else KINDS[str]


def _is(value, kind) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and \
            math.isfinite(value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool) or \
            isinstance(value, float) and value.is_integer()
    return isinstance(value, kind)


def _kind_of(value) -> Message:
    if isinstance(value, float) and not math.isfinite(value):
        return Message("a number that is not finite")
    return next((k for t, k in KINDS.items() if _is(value, t)), Message("another type"))
