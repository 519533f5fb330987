"""A message as a value: its English template and its arguments, made where it is said and
rendered in the reader's language at the edge, so nothing is parsed back from finished
English. Imports nothing of the studio.
"""
from __future__ import annotations

import json
import string
from typing import Callable

_FIELDS = string.Formatter()


class Message(str):
    """English `template` ("Run {run_id} is {state}.") filled with `args`. Also a str, its
    English, so code that logs, joins, compares or stores it as English keeps working;
    only rendering looks inside. An argument that is a Message is rendered in the same
    language; any other value is kept as it is (a name, a number, a path)."""

    template: str
    args: dict

    def __new__(cls, template: str, /, **args) -> "Message":
        names = {name for _, name, _, _ in _FIELDS.parse(template) if name}
        assert names == set(args), f"{template!r}: arguments {sorted(args)}, not {sorted(names)}"
        self = super().__new__(cls, template.format_map(args) if args else template)
        self.template, self.args = template, dict(args)
        return self

    def __reduce__(self):  # pickled (a run's error sent between processes) as itself
        return (_rebuilt, (self.template, self.args))

    def render(self, lookup: Callable[[str], str | None]) -> str:
        """The message in another language: `lookup(English template)` gives its
        translation (None: none, the English stays), nested Messages rendered alike."""
        own = spaced(self.template, lookup(self.template.strip())) or self.template
        values = {name: value.render(lookup) if isinstance(value, Message) else value
                  for name, value in self.args.items()}
        try:
            return own.format_map(values)
        except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder
            return self.template.format_map(values)

    def as_json(self) -> dict:
        return {"message": self.template,
                "args": {name: value.as_json() if isinstance(value, Message) else value
                         for name, value in self.args.items()}}


def spaced(text: str, found: str | None) -> str | None:
    """A translation `found` for `text` looked up without the space around it, with that
    space again (" ({setting} shortened)" stays a piece that follows another)."""
    if found is None:
        return None
    return text[:len(text) - len(text.lstrip())] + found + text[len(text.rstrip()):]


def as_message(text: str) -> Message:
    """English words given as a value (an action, a label, a fit) as a Message of their
    own, rendered in the reader's language inside the message that holds them (a Message
    as it is)."""
    return text if isinstance(text, Message) else Message(text)


def joined(parts, separator: str = " ") -> Message:
    """Messages (or text) one after the other, `separator` between them, as one Message:
    each rendered from its own template (the template that places them needs no entry)."""
    parts = list(parts)
    return Message(separator.join(f"{{part{n}}}" for n in range(len(parts))),
                   **{f"part{n}": part for n, part in enumerate(parts)})


# Where a sentence of a language ends in a full stop of its own, the next one follows it
# without a space ("。" in Japanese); else a space.
FULL_STOPS = ("。", "）", "」", "！", "？")


def joined_sentences(sentences) -> str:
    """Sentences one after the other, as the language writes them (FULL_STOPS)."""
    out = ""
    for sentence in sentences:
        out += ("" if not out or out.endswith(FULL_STOPS) else " ") + sentence
    return out


def _rebuilt(template: str, args: dict) -> Message:
    return Message(template, **args)


def from_json(value):
    """A Message back from `as_json` (any other value as it is)."""
    if isinstance(value, dict) and set(value) == {"message", "args"}:
        return Message(value["message"], **{name: from_json(v)
                                            for name, v in value["args"].items()})
    return value


def as_json(value):
    """A Message as JSON can hold it (any other value as it is)."""
    return value.as_json() if isinstance(value, Message) else value


def saved_messages(data: dict, keys: tuple) -> dict:
    """The Messages among `data`'s `keys` (a run's saved status), as JSON holds them
    (their template and values), to keep beside their English (runs/run.py's state.json);
    a value JSON cannot hold leaves its key to the English alone."""
    said = {}
    for key in keys:
        value = data[key]
        if isinstance(value, Message) or (isinstance(value, list) and
                                          any(isinstance(v, Message) for v in value)):
            kept = [as_json(v) for v in value] if isinstance(value, list) else as_json(value)
            try:
                json.dumps(kept)
            except (TypeError, ValueError):
                continue
            said[key] = kept
    return said


def read_messages(value):
    """A Message (or a list of them) back from saved_messages' JSON; None for a value
    that is not one (a file edited by hand: its English stays)."""
    try:
        return [from_json(v) for v in value] if isinstance(value, list) else from_json(value)
    except (AssertionError, AttributeError, TypeError, ValueError):
        return None  # (a file edited by hand: its English stays)
