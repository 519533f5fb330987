"""The catalogue's coverage: every setting's label and help, every message the code can
produce, and every text, column and series name of the page has its Japanese entry (what
to add is written out as messages.po entries); the scan sees words put together anywhere,
and no text of the page bypasses the catalogue."""
import ast
import dataclasses
import importlib
import io
import re

from sft_ui import i18n
from sft_ui.config import RunConfig
from sft_ui.i18n.scan import (
    AS_WRITTEN,
    KEPT,
    NO_MESSAGES,
    NOT_SHOWN,
    ROOT,
    VALUE,
    Message,
    as_kept,
    english_left,
    every_message,
    messages,
    modules,
    page_messages,
)


def test_every_setting_has_a_japanese_label_and_help():
    for f in dataclasses.fields(RunConfig):
        for text in (f.metadata["label"], f.metadata["help"]):
            assert i18n.has_entry(text, "ja"), (
                f"{f.name}: translate {text!r} in {i18n.catalogue_file('ja')} "
                "(`make messages` adds it there)")


def catalogue_file(lang: str = "ja") -> str:
    """Where the entries of a language go: its messages.po (from the repository root)."""
    return i18n.catalogue_file(lang).relative_to(ROOT.parent).as_posix()


def po_entries(missing: list[Message], lang: str = "ja") -> str:
    """The entries of messages.po for these texts, as gettext writes them: the English as
    msgid (each value {name}) and where the code makes it."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po
    book = Catalog(locale=lang)
    for m in missing:
        if m.key not in book:
            book.add(m.key, "")
        book[m.key].locations.append((f"sft_ui/{m.module}", m.line))
        book[m.key].flags.discard("python-format")  # ("50% of" is no %-format)
    out = io.BytesIO()
    write_po(out, book, omit_header=True)
    return out.getvalue().decode("utf-8")


def what_to_add(missing: list[Message], lang: str = "ja") -> str:
    """The entries to add, ready to fill in, and what the page shows for each now."""
    shown = "\n".join(f"- sft_ui/{m.module}:{m.line}: {i18n.translate(m.sample, lang)!r}"
                      for m in missing)
    return (f"Add the Japanese of these texts to {catalogue_file(lang)} (`make messages` "
            "adds them there, msgstr empty, for Poedit or any .po editor): the English "
            "exactly as msgid, the Japanese as msgstr with the same {placeholders} (each a "
            "value the code fills in; a value that is a Message is said in the same language)."
            " A text that is not shown to a person goes into "
            "sft_ui/i18n/scan.py's NOT_SHOWN instead.\n\n" + po_entries(missing, lang) +
            "\nShown now (each value X):\n" + shown)


def test_every_setting_name_of_one_word_is_a_word_japanese_keeps():
    """A setting's name in a translation stays as written (a name of two words has an
    underscore, which english_left passes by rule)."""
    names = {f.name for f in dataclasses.fields(RunConfig)}
    assert not {n for n in names if "_" not in n and not any(ch.isdigit() for ch in n)} - KEPT
    assert english_left("packing を オン にします") == []


def test_every_message_in_the_code_has_japanese():
    """Each message the code can produce has its entry: its template, exactly, as msgid
    (a text of names and figures alone, such as a GPU's name, needs none)."""
    missing = [m for m in messages() if VALUE not in m.template and
               not i18n.has_entry(m.key, "ja") and english_left(m.sample)]
    assert not missing, what_to_add(missing)


def test_no_message_is_made_as_finished_english():
    """A message with values is a Message (sft_ui/i18n/message.py): its template and its
    values, rendered in the reader's language. Words put together with values (an f-string,
    +, .format) reach the page as finished English, which nothing reads back."""
    made = [f"sft_ui/{m.module}:{m.line}: {m.key!r}" for m in messages() if VALUE in m.template]
    assert not made, ("make these Messages, Message(template, name=value), the template "
                      f"exactly the msgid of their entry: {made}")


def _plain_words(call: ast.Call) -> list[str]:
    """A Message call's values that are words written in the code (a literal, or a choice
    of literals) and have an entry of their own: given plain, they would stay English. A
    value the template quotes ('{column}', `{name}`) is a name, kept as it is."""
    template = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) \
        else ""
    out = []
    for keyword in call.keywords:
        value = keyword.value
        if re.search(f"['`]{{{keyword.arg}}}['`]", template):
            continue
        texts = [value] if isinstance(value, ast.Constant) else [value.body, value.orelse] \
            if isinstance(value, ast.IfExp) else []
        out += [t.value for t in texts if isinstance(t, ast.Constant) and
                isinstance(t.value, str) and i18n.has_entry(t.value, "ja")]
    return out


def test_the_scan_sees_words_put_together_anywhere_in_the_page():
    """An f-string of words in a page's module is seen as finished English, also when it
    reaches note() or a table through a name."""
    tree = ast.parse('queued = f"Queued as {q}, place {p}."\nnotice = note(queued)\n'
                     'row = [f"Best: trial {n}", f"cfg-{name}"]\n')
    made = [m.template for m in page_messages("ui/example.py", tree) if VALUE in m.template]
    assert len(made) == 2 and made[0].startswith("Queued as"), made


def test_words_given_to_a_message_are_messages_too():
    """A value of a Message that is words with an entry of their own ("done", a heading) is
    passed as a Message (as_message), so that it is said in the reader's language."""
    plain = []
    for module in modules():
        for node in ast.walk(ast.parse((ROOT / module).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Message":
                plain += [f"sft_ui/{module}:{node.lineno}: {w!r}" for w in _plain_words(node)]
    assert not plain, f"wrap these values in as_message(...): {plain}"


def test_the_lists_name_modules_and_texts_that_exist():
    """The modules left out of the scan are modules of the package (a module moved: move
    its name there too), and each text NOT_SHOWN or AS_WRITTEN is one that the code still
    makes."""
    gone = [f"sft_ui/i18n/scan.py: NO_MESSAGES names {m}, which is not in sft_ui/"
            for m in NO_MESSAGES if not (ROOT / m).exists()]
    assert not gone, gone
    assert len(modules()) > 60 and "plan/budget.py" in modules()
    made = {as_kept(m) for m in every_message()}
    stale = sorted((NOT_SHOWN | AS_WRITTEN) - made)
    assert not stale, f"no module makes these any more; remove them from this file: {stale}"


# ---- the page ------------------------------------------------------------------------
def test_every_text_of_the_page_has_japanese(tmp_path):
    from sft_ui.runs import RunManager
    from sft_ui.ui import build_app, lang
    build_app(RunManager(tmp_path))
    missing = [t for t in lang.marked_texts() if english_left(i18n.translate(t, "ja")) or
               not (i18n.translate(t, "ja") != t or i18n.has_entry(t, "ja"))]
    marked = {m.key: m for m in every_message() if m.table == "PAGE"}  # where T marks it
    assert not missing, what_to_add([marked.get(t, Message("ui/", 0, t, "PAGE"))
                                     for t in missing])
    tables = lang.translations()
    assert set(tables) == {"en", "ja"} and set(tables["ja"]) <= set(tables["en"])
    assert tables["en"][lang.T("Start").key] == "Start"
    assert tables["ja"][lang.T("Batch size per device").key] == "デバイスあたりのバッチサイズ"


def test_every_column_and_series_name_has_japanese():
    """The English names of table columns and plot series (the UI modules' *COLUMNS and
    *COLOURS) that the page writes in its language at run time."""
    missing = []
    for path in sorted((ROOT / "ui").glob("*.py")):
        module = importlib.import_module(f"sft_ui.ui.{path.stem}")
        for name, value in vars(module).items():
            if name.isupper() and name.endswith(("COLUMNS", "COLOURS")):
                missing += [Message(f"ui/{path.name}", 0, text, "PAGE") for text in value
                            if not i18n.has_entry(text, "ja")]
    assert not missing, what_to_add(missing)


def test_no_component_text_bypasses_the_catalogue():
    """Labels, help, placeholders, buttons, tabs, accordions and Markdown in the UI are
    marked with T, errors and notices pass through say (a plain string would stay
    English in a Japanese page)."""
    plain = []
    for path in sorted((ROOT / "ui").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and getattr(node.func.value, "id", "") == "gr"):
                continue
            texts = [k.value for k in node.keywords if k.arg in ("label", "info", "placeholder")]
            if node.func.attr in ("Button", "Tab", "Accordion", "Markdown", "Error", "Warning",
                                  "Info") and node.args:
                texts.append(node.args[0])
            plain += [f"ui/{path.name}:{node.lineno}" for t in texts
                      if isinstance(t, (ast.Constant, ast.JoinedStr)) and
                      re.search("[A-Za-z]{2}", ast.unparse(t)) and
                      not ast.unparse(t).strip("'\"").startswith("your-name/")]
    assert not plain, f"wrap these in T(...) (or say(...) for gr.Error): {plain}"
