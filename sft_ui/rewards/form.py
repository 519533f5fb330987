"""The form a `regex` reward asks for, written out: the shortest text its pattern matches with
a given value in its first group (`fill`), and the values an answer offers for that group
(`values_in`), for GRPO's warm-up (train/grpo_warmup.py).
"""
from __future__ import annotations

# Python's own regex parser, as re.compile uses it (private modules: typeshed has no stubs)
import re
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _parse  # type: ignore[attr-defined]

# a category's plain member: what \s, \d and \w are written as
_CATEGORY = {_c.CATEGORY_SPACE: " ", _c.CATEGORY_DIGIT: "0", _c.CATEGORY_WORD: "a"}


class _Unwritable(Exception):
    """The pattern holds a construct `fill` does not write."""


def _write(items, value: str, group: int) -> str:
    out = []
    for op, arg in items:
        if op is _c.LITERAL:
            out.append(chr(arg))
        elif op is _c.AT:
            continue  # ^ $ \b: no text of their own
        elif op is _c.SUBPATTERN:
            number, _, _, inner = arg
            out.append(value if number == group else _write(inner, value, group))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
            low, _, inner = arg
            out.append(_write(inner, value, group) * low)
        elif op is _c.IN:
            out.append(_member(arg))
        elif op is _c.BRANCH:
            out.append(_write(arg[1][0], value, group))
        elif op is _c.ANY:
            out.append("x")
        else:
            raise _Unwritable(str(op))
    return "".join(out)


def _member(members) -> str:
    """A plain character of a class ([a-z], \\s, [0-9+-]); a negated class is not written."""
    for op, arg in members:
        if op is _c.LITERAL:
            return chr(arg)
        if op is _c.RANGE:
            return chr(arg[0])
        if op is _c.CATEGORY and arg in _CATEGORY:
            return _CATEGORY[arg]
    raise _Unwritable("class")


def _group_pattern(pattern: str) -> str | None:
    """The source of the pattern's first group, or None without one."""
    depth, start = 0, None
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "(" and not pattern.startswith("(?", i):
            if start is None:
                start, depth = i + 1, 1
            elif depth:
                depth += 1
        elif ch == "(" and depth:
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                return pattern[start:i]
        i += 1
    return None


def fill(pattern: str, value: str = "") -> str | None:
    """The shortest text `pattern` matches, its first group holding `value` (a pattern
    without a group: its fixed text; `value` unused), read by Python's own parser
    (re._parser). None where that is not written (a lookaround, a backreference, a class
    without a plain member) or the pattern does not find the value in it again."""
    try:
        items = _parse.parse(pattern)
        text = _write(items, value, 1)
    except (_Unwritable, re.error, TypeError, IndexError):
        return None
    found = re.search(pattern, text)
    if not found:
        return None
    if found.re.groups and found.group(1) != value:
        return None
    return text


def writable(pattern: str) -> bool:
    """Whether `fill` can write the pattern's form at all (some value may still not fit
    its group)."""
    try:
        _write(_parse.parse(pattern), "", 1)
    except (_Unwritable, re.error, TypeError, IndexError):
        return False
    return True


def values_in(pattern: str, text: str) -> list[str]:
    """What `text` offers for the pattern's first group: each match of the group's own
    pattern in it, the last first (an answer's value tends to come at its end), each once.
    Empty for a pattern without a group."""
    inner = _group_pattern(pattern)
    if not inner:
        return []
    try:
        found = [m.group(0) for m in re.finditer(inner, text) if m.group(0)]
    except re.error:
        return []
    return list(dict.fromkeys(reversed(found)))
