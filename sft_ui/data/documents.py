"""A person's documents (PDF, Word .docx, HTML, Markdown; a folder of them) as plain-text rows,
one a file, with headings marked as Markdown's so data/windows.py can split at them; a file
that gives no text is named with what to do. Knows nothing of models or training.
"""
from __future__ import annotations

import re
from pathlib import Path

from sft_ui.data.formats import DataError
from sft_ui.errors import said
from sft_ui.i18n.message import Message

DOCUMENTS = (".pdf", ".docx", ".html", ".htm", ".md", ".markdown")
BLOCKS = ("p", "li", "div", "section", "article", "tr", "pre", "blockquote", "table",
          "ul", "ol", "dl", "dd", "dt", "header", "footer", "main", "aside", "br")


def is_document(path: Path) -> bool:
    return path.suffix.lower() in DOCUMENTS


def document_text(path: Path, text: str | None = None) -> str:
    """A document's text (`text`: a Markdown or HTML file's, already read and decoded);
    DataError naming the file and what to do where it gives none."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        found = _pdf(path)
    elif suffix == ".docx":
        found = _docx(path)
    elif suffix in (".html", ".htm"):
        found = _html(text if text is not None else path.read_text(errors="replace"))
    else:  # Markdown: text as it is
        found = text if text is not None else path.read_text(errors="replace")
    found = re.sub(r"\n{3,}", "\n\n", found).strip()
    if not found:
        raise DataError(Message("{file} holds no text to train on. Check that it is not "
                                "empty.", file=path.name))
    return found


def read_documents(paths: list[Path], label: str, read=None) -> tuple[list[dict], list]:
    """(a row {"text", "document"} a file that gives text, a sentence for each file that
    does not); `read(path)`: a file's decoded text for Markdown and HTML (default: UTF-8)."""
    rows, notes = [], []
    for path in sorted(paths):
        try:
            text = read(path) if read and path.suffix.lower() not in (".pdf", ".docx") \
                else None
            rows.append({"text": document_text(path, text), "document": path.name})
        except DataError as e:
            notes.append(said(e))
    if not rows:
        raise DataError(Message("No document of {folder} gives text to train on: {why}",
                                folder=label, why=notes[0] if notes else ""))
    return rows, notes


def _pdf(path: Path) -> str:
    from pypdf import PdfReader  # loaded for a PDF only
    from pypdf.errors import FileNotDecryptedError, PdfReadError
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileNotDecryptedError("password")
        pages = [page.extract_text() or "" for page in reader.pages]
    except FileNotDecryptedError:
        raise DataError(Message("{file} is encrypted with a password: save an unprotected "
                                "copy (print it to PDF, or remove the password in the "
                                "program that made it) and upload that.",
                                file=path.name)) from None
    except (PdfReadError, ValueError, KeyError, OSError) as e:
        raise DataError(Message("{file} is not a readable PDF ({error}): open it and save "
                                "it again as PDF, or export its text.", file=path.name,
                                error=str(e).splitlines()[0] if str(e) else
                                type(e).__name__)) from None
    if not any(p.strip() for p in pages):
        raise DataError(Message("{file} has no text layer, only images of its {pages} pages "
                                "(a scan?): run text recognition (OCR) on it first, for "
                                "example with ocrmypdf, or export its text.",
                                file=path.name, pages=len(pages)))
    return "\n\n".join(p.strip() for p in pages if p.strip())


def _docx(path: Path) -> str:
    import zipfile  # (what a broken .docx raises: loaded with it)

    from docx import Document  # python-docx: loaded for a .docx only
    from docx.opc.exceptions import PackageNotFoundError
    try:
        document = Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError):
        raise DataError(Message("{file} is not a readable Word document: open it in Word or "
                                "LibreOffice and save it again as .docx.",
                                file=path.name)) from None
    parts = []
    for paragraph in document.paragraphs:
        style = (paragraph.style.name or "") if paragraph.style is not None else ""
        level = re.match(r"Heading (\d)", style)
        text = paragraph.text.strip()
        if text:
            parts.append("#" * int(level.group(1)) + " " + text if level else
                         "# " + text if style == "Title" else text)
    for table in document.tables:
        parts += [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
    return "\n\n".join(parts)


def _html(text: str) -> str:
    from bs4 import BeautifulSoup  # loaded for HTML only
    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    for tag in soup.find_all(re.compile(r"^h[1-6]$")):
        tag.insert_before("\n\n" + "#" * int(tag.name[1]) + " ")
        tag.insert_after("\n\n")
    for tag in soup.find_all(BLOCKS):
        tag.insert_after("\n\n" if tag.name != "br" else "\n")
    lines = [" ".join(line.split()) for line in soup.get_text("").splitlines()]
    return "\n".join(lines)
