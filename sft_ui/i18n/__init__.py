"""English and Japanese: which language a person reads, and the text in that language. The
English written in the code is the key, as with gettext: each language's messages.po (read
with Babel, no compile step) maps it to its translation (docs/languages.md). Knows nothing
of Gradio.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from sft_ui.i18n.message import Message, from_json, spaced

LANGUAGES = {"en": "English", "ja": "日本語"}  # a new language: its line here, and its .po
DEFAULT = "en"
LOCALE = Path(__file__).resolve().parent.parent / "locale"
# A language's forms of figures ("{minutes}m {seconds}s" -> "{minutes}分{seconds}秒"): entries of
# this msgctxt, kept apart from the messages.
FORMAT = "format"

PLACEHOLDER = re.compile(r"\{(\w+)\}")


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
        code = language(tag)
        if code and quality > 0:
            ranked.append((-quality, n, code))
    return min(ranked)[2] if ranked else DEFAULT


def placeholders(template: str) -> set[str]:
    return set(PLACEHOLDER.findall(template))


def catalogue_file(lang: str) -> Path:
    """A language's catalogue: gettext's .po, as Poedit, Weblate or Crowdin edit it."""
    return LOCALE / lang / "LC_MESSAGES" / "messages.po"


@functools.lru_cache(maxsize=None)
def _read(lang: str) -> tuple[dict, dict]:
    """(messages, forms of figures) of a language: English -> its own, for each entry
    translated and not marked fuzzy, both without the space around them."""
    from babel.messages.pofile import read_po  # Babel read when a language is first asked
    with catalogue_file(lang).open("rb") as f:
        book = read_po(f, ignore_obsolete=True)
    tables: dict = {None: {}, FORMAT: {}}
    for message in book:
        if message.id and isinstance(message.id, str) and isinstance(message.string, str) \
                and message.string and not message.fuzzy and message.context in tables:
            # (keyed without the space around it: the text looked up keeps its own)
            tables[message.context][message.id.strip()] = message.string.strip()
    return tables[None], tables[FORMAT]


def entries(lang: str) -> dict:
    """Every message of a language's catalogue: English -> its translation."""
    return dict(_read(lang)[0]) if lang != DEFAULT else {}


def translate(text: str, lang: str | None) -> str:
    """`text` in `lang`: a Message (message.py) rendered from its template's entry and its
    values; any other text by its own entry, exactly, whole; what the catalogue does not
    know stays English (English rather than ids as keys, so the code reads as the page
    does and an untranslated text is still readable). Nothing is parsed back from
    finished English: a message with values is a Message."""
    lang = language(lang) or DEFAULT
    text = from_json(text)  # a Message kept in JSON (a notice's English)
    if isinstance(text, Message):  # a value: rendered from its template, nothing parsed
        return str(text) if lang == DEFAULT else text.render(_read(lang)[0].get)
    if lang == DEFAULT or not text or not isinstance(text, str):
        return text
    return spaced(text, _read(lang)[0].get(text.strip())) or text


def has_entry(text: str, lang: str) -> bool:
    """Whether `lang`'s catalogue has an entry for `text` (its template, for a Message)."""
    key = text.template if isinstance(text, Message) else text
    return key.strip() in _read(lang)[0]


def formats(lang: str) -> dict:
    """A language's forms of figures (English form -> its own), if it has any: its
    catalogue's entries of context FORMAT."""
    return {} if lang == DEFAULT else dict(_read(lang)[1])


def formatted(form: str, lang: str | None, **values) -> str:
    """A figure such as a duration, written by `form` ("{minutes}m {seconds}s", its values
    given already formatted) or by `lang`'s form of it ("{minutes}分{seconds}秒")."""
    lang = language(lang) or DEFAULT
    return (_read(lang)[1].get(form, form) if lang != DEFAULT else form).format(**values)
