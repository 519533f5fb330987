"""Long texts and documents as plain-text data: a text longer than max_length is split into
windows with nothing cut and the trainer gets every token of it; PDF, Word and other
documents give their text, a folder of them loads each and names the ones that cannot, and
a single bad document is refused with what to do."""
from __future__ import annotations

import pytest

from sft_ui import i18n
from sft_ui.data.documents import document_text
from sft_ui.data.formats import DataError
from sft_ui.data.load import load_data
from sft_ui.data.windows import split_rows, windows
from tests.data.test_text import _corpus, _text_run
from tests.i18n.test_i18n import english_left

# ---- long texts and documents ---------------------------------------------------------
LONG = ("# The harbour\n\nThe harbour was built in 1820. " + " ".join(
    f"Ship {n} came in with {n * 3} barrels of oil and left two days later." for n in range(40))
    + "\n\n## 港の話\n\n" + "港には毎朝たくさんの漁船が集まります。" * 30)


def _no_space(text: str) -> str:
    return "".join(text.split())


def test_a_text_longer_than_max_length_is_split_into_windows_and_nothing_is_cut(tokenizer):
    pieces = windows(LONG, tokenizer, 62)
    assert len(pieces) > 4
    assert max(len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p in pieces) <= 62
    assert _no_space("".join(pieces)) == _no_space(LONG)  # every character kept, in order
    assert pieces[0].startswith("# The harbour")
    assert any(p.startswith("## 港の話") for p in pieces)  # a heading starts a window
    assert windows("Short text.", tokenizer, 62) == ["Short text."]
    rows, said = split_rows([{"text": LONG}, {"text": "Short."}], tokenizer, 64)
    assert rows[-1] == {"text": "Short."} and len(rows) == len(pieces) + 1
    assert str(said).startswith(f"1 texts longer than Max length (64 tokens) split into "
                                f"{len(pieces)} rows")


def test_the_trainer_gets_every_token_of_a_long_text(tmp_path, tiny_model_dir, tokenizer):
    from sft_ui.data.tokens import load_training_data, tokenize_rows
    cfg = _text_run(tiny_model_dir, _corpus(tmp_path, [LONG]))
    data = load_training_data(cfg, tokenizer)
    assert len(data.train) > 4 and any("split into" in str(n) for n in data.notes)
    tokens = tokenize_rows(cfg, tokenizer, data.train)
    assert all(len(t["input_ids"]) <= cfg.max_length for t in tokens)
    assert _no_space("".join(r["text"] for r in data.train)) == _no_space(LONG)


def _pdf(path, lines):
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas
    pdfmetrics.registerFont(UnicodeCIDFont("HeiseiMin-W3"))
    page = canvas.Canvas(str(path))
    page.setFont("HeiseiMin-W3", 12)
    for n, line in enumerate(lines):
        page.drawString(72, 750 - 20 * n, line)
    page.showPage()
    page.save()
    return path


def _docx(path):
    from docx import Document
    document = Document()
    document.add_heading("Lighthouse manual", level=1)
    document.add_paragraph("Light the lamp at dusk.")
    document.add_heading("灯台の手入れ", level=2)
    document.add_paragraph("レンズは毎週磨きます。")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "oil", "2 litres"
    document.save(str(path))
    return path


def test_each_document_type_gives_its_text(tmp_path):
    ja = _pdf(tmp_path / "ja.pdf", ["富士山は日本で一番高い山です。", "Mount Fuji is 3776 m high."])
    text = document_text(ja)
    assert "富士山は日本で一番高い山です。" in text and "3776" in text
    word = document_text(_docx(tmp_path / "manual.docx"))
    assert word.startswith("# Lighthouse manual") and "## 灯台の手入れ" in word
    assert "レンズは毎週磨きます。" in word and "oil | 2 litres" in word
    html = tmp_path / "page.html"
    html.write_text("<html><head><title>t</title><style>p{}</style></head><body>"
                    "<h1>Tides</h1><p>High tide at <b>six</b>.</p><script>x()</script>"
                    "<ul><li>潮の満ち引き</li></ul></body></html>", encoding="utf-8")
    page = document_text(html)
    assert page.startswith("# Tides") and "High tide at six." in page
    assert "潮の満ち引き" in page and "x()" not in page and "p{}" not in page
    md = tmp_path / "notes.md"
    md.write_text("# Notes\n\nKeep the log.\n", encoding="utf-8")
    assert document_text(md) == "# Notes\n\nKeep the log."


def test_a_folder_of_documents_loads_each_and_names_the_ones_that_cannot(
        tmp_path, tiny_model_dir, tokenizer):
    from pypdf import PdfWriter
    folder = tmp_path / "docs"
    folder.mkdir()
    _pdf(folder / "a.pdf", ["The lamp burns whale oil."])
    _docx(folder / "b.docx")
    (folder / "c.md").write_text(LONG, encoding="utf-8")
    scan = PdfWriter()
    scan.add_blank_page(200, 200)  # a page with no text layer
    scan.write(str(folder / "scan.pdf"))
    locked = PdfWriter()
    locked.add_blank_page(200, 200)
    locked.encrypt("secret")
    locked.write(str(folder / "locked.pdf"))
    (folder / "broken.docx").write_bytes(b"not a zip")
    cfg = _text_run(tiny_model_dir, str(folder), max_length=64)
    data = load_data(cfg)
    assert data.format == "text" and len(data.train) == 3
    said = " ".join(str(n) for n in data.notes)
    assert "scan.pdf has no text layer" in said and "OCR" in said
    assert "locked.pdf is encrypted with a password" in said
    assert "broken.docx is not a readable Word document" in said
    for note in data.notes:
        assert not english_left(i18n.translate(note, "ja")), note
    from sft_ui.data.tokens import load_training_data
    trained = load_training_data(cfg, tokenizer)
    assert len(trained.train) > 3  # c.md split into windows


def test_a_single_bad_document_is_refused_with_what_to_do(tmp_path, tiny_model_dir):
    from pypdf import PdfWriter
    scan = PdfWriter()
    scan.add_blank_page(200, 200)
    scan.write(str(tmp_path / "scan.pdf"))
    with pytest.raises(DataError, match="scan.pdf has no text layer"):
        load_data(_text_run(tiny_model_dir, str(tmp_path / "scan.pdf")))
