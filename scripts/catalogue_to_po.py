"""Once: the Japanese catalogue of Python dicts (sft_ui/i18n/ja.py and its ja_*.py parts)
written as gettext's sft_ui/locale/ja/LC_MESSAGES/messages.po, and the template
sft_ui/locale/messages.pot (scripts/messages.py then keeps them up to date).

Each entry as ja.py's ENTRIES has it (a text in several tables or parts: once, with the
translation that wins there), in the order of the files (ja.py, then the parts by name)
and of their tables; FORMATS under msgctxt "format". The comments above an entry (or
beside it) become its comments for translators (#.); its references (#:), the modules
whose messages it translates whole. Checks that the .po reads back as the dicts.
"""
from __future__ import annotations

import ast
import io
import sys
import tokenize
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import messages  # noqa: E402

from sft_ui import i18n  # noqa: E402
from sft_ui.i18n import ja  # noqa: E402

I18N = ROOT / "sft_ui" / "i18n"
TABLES = ("PAGE", "SETTINGS", "MESSAGES", "FORMATS")
HEADER = """\
Japanese for SFT Studio's English text. The msgid is the English as the
code writes it, {name} a value the code fills in (msgstr has the same
placeholders, in any order); msgctxt "format" writes figures such as
durations. `make messages` adds what the code gained; docs/languages.md
says how to edit, update and add a language.
"""


def _comments(source: str) -> dict[int, str]:
    """Line -> the text of the comment on it."""
    return {tok.start[0]: tok.string.lstrip("#").strip()
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT}


def entries(path: Path) -> list[tuple[str, str, list[str]]]:
    """(table, English, comments) of each entry of a file's tables, in file order."""
    source = path.read_text(encoding="utf-8")
    notes, out = _comments(source), []
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and
                getattr(node.targets[0], "id", "") in TABLES and
                isinstance(node.value, ast.Dict)):
            continue
        before = node.lineno
        for key, value in zip(node.value.keys, node.value.values):
            above = [notes[n] for n in range(before + 1, key.lineno) if n in notes]
            beside = [notes[n] for n in range(key.lineno, value.end_lineno + 1) if n in notes]
            out.append((node.targets[0].id, ast.literal_eval(key), above + beside))
            before = value.end_lineno
    return out


def convert() -> Catalog:
    files = [I18N / "ja.py", *sorted(I18N.glob("ja_*.py"))]
    now = datetime.now(timezone.utc)
    book = Catalog(locale="ja", project=messages.PROJECT, header_comment="",
                   creation_date=now, revision_date=now, fuzzy=False,
                   language_team="Japanese")
    for path in files:
        for table, english, notes in entries(path):
            context = i18n.FORMAT if table == "FORMATS" else None
            translation = (ja.FORMATS if context else ja.ENTRIES)[english]
            known = book.get(english, context=context)
            if known is None:
                book.add(english, translation, auto_comments=notes, context=context)
            else:
                known.auto_comments += [n for n in notes if n not in known.auto_comments]
    book.header_comment = "".join(f"# {line}\n" for line in HEADER.splitlines()).rstrip()
    written = {m.id for m in book if m.id and not m.context}
    assert written == set(ja.ENTRIES), set(ja.ENTRIES) ^ written
    found = messages.references(messages.scan(), sorted(written))
    for m in book:
        if m.id and not m.context:
            m.locations = [(module, None) for module in sorted(found.get(m.id, ()))]
    return book


def main() -> None:
    book = convert()
    path = i18n.catalogue_file("ja")
    messages.write(book, path)
    back = messages.read(path, "ja")
    assert {m.id: m.string for m in back if m.id and not m.context} == ja.ENTRIES
    assert {m.id: m.string for m in back if m.context == i18n.FORMAT} == ja.FORMATS
    if messages.TEMPLATE.exists():
        messages.TEMPLATE.unlink()
    pot = messages.template({"ja": back})
    pot.creation_date = pot.revision_date = book.creation_date
    pot.header_comment = book.header_comment.replace("Japanese for", "The template of")
    for m in pot:
        m.locations = list(back.get(m.id, context=m.context).locations) if m.id else []
    messages.write(pot, messages.TEMPLATE)
    print(f"{path.relative_to(ROOT)}: {len(back)} entries, "
          f"{sum(1 for m in back if m.locations)} with references; "
          f"{messages.TEMPLATE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
