"""English and Japanese: which language a person reads, and the text in that language.

The English text written in the code is the key, as with gettext: a label, a help
text, or a message template such as "Run {run_id} is {state}: ...". A catalogue per
language, in gettext's format (sft_ui/locale/<code>/LC_MESSAGES/messages.po, read here
with Babel, no compile step), maps each English text (msgid) to its translation (msgstr).
English rather than ids, so that the code reads as the page does, a text without an entry
still shows readable English, and tests/test_i18n.py finds every message in the source.
Adding or rewording a message is one edit in the code plus one entry, the same English as
msgid, in each language's messages.po (`make messages` adds it untranslated; the test
fails, naming it, until it is translated). Entries marked fuzzy or left empty are not used.
`translate` renders a Message (message.py: its template and values, made where it is
said) from its template's entry, its nested Messages alike, parsing nothing. Text that is
not yet a Message is looked up as a finished English message: the whole text,
else each line, else each sentence, exactly or against the templates,
whose placeholders carry the values across. Where several templates fit, the one that
translates the most of the text wins (so "The data could not be measured: {error}" is
read as a heading and a nested message, not as a file name "The data could ...: x.csv"
in front of a message about x.csv). Text without an entry stays English. Figures such
as durations are written by `formatted` from a language's entries of context "format".
Static labels reach the browser through gr.I18n (sft_ui/ui/lang.py builds it from
the same catalogue). Knows nothing of Gradio.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from sft_ui.i18n.message import Message, from_json, joined_sentences

LANGUAGES = {"en": "English", "ja": "日本語"}  # a new language: its line here, and its .po
DEFAULT = "en"
LOCALE = Path(__file__).resolve().parent.parent / "locale"
# A language's forms of figures ("{minutes}m {seconds}s" -> "{minutes}分{seconds}秒"): entries of
# this msgctxt, kept apart from the messages (as a template, "{seconds}s" would match any text
# that ends in "s").
FORMAT = "format"

PLACEHOLDER = re.compile(r"\{(\w+)\}")
# Placeholders whose values are English text themselves (a reason inside a message,
# a run's state, a field's label): they are translated too, other values are kept.
# A number at the end of a name only tells two placeholders apart: {duration2} is nested.
NESTED = frozenset({"message", "error", "state", "label", "what", "advice", "steps", "text",
                    "same", "room", "kind", "where", "action", "reason", "fit",
                    "description", "device", "duration"})
# Placeholders that may hold several sentences; any other value ends within its sentence
# (and its line), so "{text} The effective batch stays {n}." is not read as one sentence's
# long ending, nor "**Cannot preview:**\n\n- x.csv is empty: ..." as a file name
# "**Cannot preview:**\n\n- x.csv", nor "**Time:** ... (2 threads)). 2 steps: 14 s." as
# the count of "{count} steps: {duration}." (a sentence may begin with a figure).
SENTENCES = frozenset({"text", "advice", "error", "message", "reason"})
_ONE_SENTENCE = r"(?:(?!\.\s+[A-Z0-9])[^\n])*?"
_PREFIX = re.compile(r"^(\s*(?:[-*] |#{1,6} |> )?)(.*?)(\s*)$", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LABELLED = re.compile(r"^(.+) \((\w+)\)$")  # "Batch size per device (per_device_...)"
_BOLD = re.compile(r"\*\*(.+)\*\*", re.S)  # a heading in bold, known without the stars
_NUMBERED = re.compile(r"^(\d+\. )(.+)$", re.S)  # "2. shorten max_length (...)"


@dataclass(frozen=True)
class _Template:
    pattern: re.Pattern
    translation: str
    literal: str  # the longest literal part: a cheap test before the pattern
    names: tuple  # its placeholders in order, each time it appears


@dataclass(frozen=True)
class Catalogue:
    exact: dict
    templates: tuple


def language(tag: str | None) -> str | None:
    """The supported language of a tag such as 'ja-JP' or 'en', else None."""
    code = (tag or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else None


def accepted_language(header: str | None) -> str:
    """The language an Accept-Language header asks for first among ours, else English."""
    ranked = []
    for n, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if language(tag) and quality > 0:
            ranked.append((-quality, n, language(tag)))
    return min(ranked)[2] if ranked else DEFAULT


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))


def _base(name: str) -> str:
    return name.rstrip("0123456789")


def _compile(template: str, translation: str) -> _Template:
    parts, seen, regex = PLACEHOLDER.split(template), set(), []
    for n, part in enumerate(parts):
        if n % 2 == 0:
            regex.append(re.escape(part))
        else:
            inner = ".*?" if _base(part) in SENTENCES else _ONE_SENTENCE
            if parts[n - 1].endswith("`") and parts[n + 1].startswith("`"):
                inner = "[^`]*"  # `{folder}`: a path or name in code marks, whatever it holds
            regex.append(f"(?P={part})" if part in seen else f"(?P<{part}>{inner})")
            seen.add(part)
    return _Template(re.compile("".join(regex), re.S), translation,
                     max(parts[::2], key=len), tuple(parts[1::2]))


def catalogue_file(lang: str) -> Path:
    """A language's catalogue: gettext's .po, as Poedit, Weblate or Crowdin edit it."""
    return LOCALE / lang / "LC_MESSAGES" / "messages.po"


@functools.lru_cache(maxsize=None)
def _read(lang: str) -> tuple[dict, dict]:
    """(messages, forms of figures) of a language: English -> its own, for each entry
    translated and not marked fuzzy."""
    from babel.messages.pofile import read_po  # Babel read when a language is first asked
    with catalogue_file(lang).open("rb") as f:
        book = read_po(f, ignore_obsolete=True)
    tables: dict = {None: {}, FORMAT: {}}
    for message in book:
        if message.id and isinstance(message.id, str) and isinstance(message.string, str) \
                and message.string and not message.fuzzy and message.context in tables:
            tables[message.context][message.id] = message.string
    return tables[None], tables[FORMAT]


def entries(lang: str) -> dict:
    """Every message of a language's catalogue: English -> its translation."""
    return dict(_read(lang)[0]) if lang != DEFAULT else {}


def compiled(entries: dict) -> Catalogue:
    """Entries as the translator looks them up: texts without placeholders as they are,
    templates tried most specific (longest literal text) first."""
    entries = {k.strip(): v for k, v in entries.items()}
    exact = {k: v for k, v in entries.items() if not PLACEHOLDER.search(k)}
    keys = sorted((k for k in entries if PLACEHOLDER.search(k)),
                  key=lambda k: -len(PLACEHOLDER.sub("", k)))
    return Catalogue(exact, tuple(_compile(k, entries[k]) for k in keys))


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> Catalogue:
    """Every entry of a language, compiled for lookup."""
    return compiled(_read(lang)[0])


def _fill(template: _Template, match: re.Match, lang: str, depth: int) -> tuple[str, int]:
    """The template's translation with the match's values, and how many characters of
    the English it translated (all but the values carried over as they are)."""
    values = match.groupdict()
    nested = {name: _value(found, lang, depth + 1) for name, found in values.items()
              if found is not None and _base(name) in NESTED and depth < 4}
    kept = sum(len(values[name] or "") - (nested[name][1] if name in nested else 0)
               for name in template.names)

    def value(m: re.Match) -> str:
        name = m.group(1)
        if values.get(name) is None:
            return m.group(0)
        return nested[name][0] if name in nested else values[name]
    return PLACEHOLDER.sub(value, template.translation), len(match.group(0)) - kept


def _phrase(text: str, lang: str, depth: int = 0) -> str | None:
    """The translation of one whole message, or None when the catalogue has none."""
    found = _best(text, lang, depth)
    return None if found is None else found[0]


def _best(text: str, lang: str, depth: int = 0) -> tuple[str, int] | None:
    """(translation, characters translated) of one whole message: its exact entry, else
    the template that translates the most of it (the most specific first among equals),
    else None."""
    book = catalogue(lang)
    key = text.strip()
    if key in book.exact:
        return book.exact[key], len(key)
    best = None
    for template in book.templates:
        if template.literal in key:
            match = template.pattern.fullmatch(key)
            if match:
                found = _fill(template, match, lang, depth)
                if best is None or found[1] > best[1]:
                    best = found
                if best[1] >= len(key):
                    break
    if best is not None:
        return best
    bold = _BOLD.fullmatch(key)
    if bold:
        inner = _best(bold.group(1), lang, depth)
        return None if inner is None else (f"**{inner[0]}**", inner[1] + 4)
    return None


def _value(text: str, lang: str, depth: int) -> tuple[str, int]:
    """A placeholder's value (a message of its own, a list of them, or a field's label)
    translated, and how many of its characters were."""
    found = _best(text, lang, depth)
    if found is not None:
        return found
    if "; " in text:
        parts = [_value(part, lang, depth) for part in text.split("; ")]
        return "; ".join(p[0] for p in parts), sum(p[1] for p in parts)
    numbered = _NUMBERED.match(text)
    if numbered:
        inner = _value(numbered.group(2), lang, depth)
        return numbered.group(1) + inner[0], len(numbered.group(1)) + inner[1]
    labelled = _LABELLED.match(text)
    if labelled and labelled.group(1) in catalogue(lang).exact:
        return (f"{catalogue(lang).exact[labelled.group(1)]} ({labelled.group(2)})",
                len(text))
    if "\n" in text:
        return _lines(text, lang)
    if _SENTENCE.search(text):
        return _sentences(text, lang, with_count=True)
    return text, 0


def _sentences(text: str, lang: str, with_count: bool = False):
    """Each sentence of `text` translated where the catalogue knows it (and, with
    `with_count`, how many characters were)."""
    out, count = [], 0
    for sentence in _SENTENCE.split(text):
        found = _best(sentence, lang)
        out.append(sentence if found is None else found[0])
        count += 0 if found is None else found[1]
    return (joined_sentences(out), count) if with_count else joined_sentences(out)


def _lines(text: str, lang: str) -> tuple[str, int]:
    """Each Markdown line of `text` translated (list marks and heading marks kept), else
    its sentences; and how many characters were."""
    lines, count = [], 0
    for line in text.split("\n"):
        head, body, tail = _PREFIX.match(line).groups()
        found = _best(body, lang) if body else (body, 0)
        if found is None:
            found = _sentences(body, lang, with_count=True)
        lines.append(head + found[0] + tail)
        count += found[1]
    return "\n".join(lines), count


def translate(text: str, lang: str | None) -> str:
    """`text` (English, possibly several Markdown lines) in `lang`; what the catalogue
    does not know stays English. A Message (message.py) is rendered from its template and
    its arguments; other text is looked up whole, else by line and sentence, against the
    templates."""
    lang = language(lang) or DEFAULT
    text = from_json(text)  # a Message kept in JSON (a notice's English)
    if isinstance(text, Message):  # a value: rendered from its template, nothing parsed
        return str(text) if lang == DEFAULT else text.render(_read(lang)[0].get)
    if lang == DEFAULT or not text or not isinstance(text, str):
        return text
    whole = _phrase(text, lang)
    if whole is not None:
        return whole
    return _lines(text, lang)[0]


def has_entry(text: str, lang: str) -> bool:
    """Whether the catalogue translates `text` as a whole (exactly or by a template)."""
    return _phrase(text, lang) is not None


def formats(lang: str) -> dict:
    """A language's forms of figures (English form -> its own), if it has any."""
    return {} if lang == DEFAULT else dict(_read(lang)[1])


def formatted(form: str, lang: str | None, **values) -> str:
    """A figure such as a duration, written by `form` ("{minutes}m {seconds}s", its values
    given already formatted) or by `lang`'s form of it ("{minutes}分{seconds}秒")."""
    lang = language(lang) or DEFAULT
    return (_read(lang)[1].get(form, form) if lang != DEFAULT else form).format(**values)
