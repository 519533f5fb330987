"""`make messages` (`python -m sft_ui.i18n.catalogues`): the catalogues (sft_ui/locale/) and
their template brought up to date with the messages the scan (i18n/scan.py) finds in the
source.
"""
from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from sft_ui import i18n
from sft_ui.i18n.scan import english_left
from sft_ui.i18n.scan import messages as scan_messages

ROOT = Path(__file__).resolve().parents[2]  # the repository

TEMPLATE = i18n.LOCALE / "messages.pot"
PROJECT = "SFT Studio"
WIDTH = 79  # as msgmerge and Poedit wrap


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang, abort_invalid=True)


def write(book: Catalog, path: Path) -> None:
    """A catalogue as gettext's tools write it: references without line numbers (they
    move with every edit), python-brace-format on each text with a {placeholder}."""
    for message in book:
        if message.id:
            message.flags.discard("python-format")  # Babel's guess: "50% of" is none
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, book, width=WIDTH, include_lineno=False)


def references(messages, ids) -> dict[str, set[str]]:
    """For each English text of `ids` (the messages' texts, context none), the modules
    of the messages whose template it is."""
    ids = {i.strip(): i for i in ids}
    found: dict[str, set[str]] = {}
    for m in messages:
        entry = ids.get(m.key.strip())
        if entry is not None:
            found.setdefault(entry, set()).add(f"sft_ui/{m.module}")
    return found


def uncovered(messages, ids) -> list:
    """The messages that no English text of `ids` is the template of: what a language
    translating every entry would leave English (a text of names and figures alone, such
    as a GPU's name, needs no entry)."""
    ids = {i.strip() for i in ids}
    return [m for m in messages if m.key.strip() not in ids and english_left(m.sample)]


def languages() -> list[str]:
    return [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]


def template(books: dict[str, Catalog]) -> Catalog:
    """Every English text of the catalogues, msgstr empty, with their comments for
    translators (#.), as the first language that has it writes them."""
    pot = read(TEMPLATE) if TEMPLATE.exists() else Catalog(project=PROJECT, fuzzy=True)
    for book in books.values():
        for m in book:
            if m.id and pot.get(m.id, context=m.context) is None:
                pot.add(m.id, "", context=m.context)
    for m in pot:
        first = next((b.get(m.id, context=m.context) for b in books.values()
                      if b.get(m.id, context=m.context) is not None), None)
        if m.id and first is not None:
            m.auto_comments = list(first.auto_comments)
    return pot


def update(messages=None) -> dict[str, int]:
    """Brings every catalogue and the template up to date; how many entries each
    language gained. A message not yet translated gets an entry (the English as msgid,
    msgstr empty: tools list it as untranslated) in every language and the template; each
    entry's references (#:) are named anew; translations, comments and flags are kept,
    and no entry is removed (one the scan no longer names may still be said as a value).
    A new language starts from a copy of the template (docs/languages.md)."""
    messages = scan_messages() if messages is None else messages
    books = {lang: read(i18n.catalogue_file(lang), lang) for lang in languages()}
    ids = {m.id for book in books.values() for m in book if m.id and not m.context}
    new = {m.key: m for m in uncovered(messages, ids)}
    gained = dict.fromkeys(books, 0)
    for lang, book in books.items():
        for key in new:
            if key not in book:
                book.add(key, "")
                gained[lang] += 1
    pot = template(books)
    for book in [*books.values(), pot]:
        for m in pot:
            if m.id and book.get(m.id, context=m.context) is None:
                book.add(m.id, "", auto_comments=m.auto_comments, context=m.context)
        found = references(messages, [m.id for m in book if m.id and not m.context])
        for m in book:
            if m.id and not m.context:  # (babel's types: an id may be plural, a line an int)
                m.locations = [(module, None)  # type: ignore[misc]
                               for module in sorted(found.get(m.id, ()))]  # type: ignore[arg-type]
    for lang, book in books.items():
        write(book, i18n.catalogue_file(lang))
    write(pot, TEMPLATE)
    return gained


if __name__ == "__main__":
    for code, count in update().items():
        print(f"{i18n.catalogue_file(code).relative_to(ROOT)}: {count} new "
              f"entr{'y' if count == 1 else 'ies'} to translate")
    print(f"{TEMPLATE.relative_to(ROOT)}: the template, every English text")
