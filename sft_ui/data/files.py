"""Local data files read into rows (`Source`, as every reader returns them): type, size and
encoding checked, and JSON lines, JSON, CSV, TSV, text and Parquet parsed here rather than by
`datasets`, so that every problem names the file and line. Knows nothing of models,
training, formats or the UI.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from sft_ui.config import RunConfig
from sft_ui.data.documents import DOCUMENTS, document_text, is_document
from sft_ui.data.formats import DataError
from sft_ui.i18n.message import Message

TABLES = (".jsonl", ".json", ".csv", ".tsv", ".parquet", ".txt")
SUFFIXES = TABLES + DOCUMENTS  # (documents: one row of text a file, data/documents.py)
DEFAULT_MAX_DATA_MB = 1024
CHARS_PER_TOKEN = 4  # for cutting .txt files into chunks of about max_length tokens
# The encodings a file that is not UTF-8 may be in (those Windows and Excel write: UTF-16
# for "Unicode text", each locale's code page; EUC-JP), charset-normalizer choosing; Python's
# codec names, each the superset (cp932 reads Shift-JIS, gb18030 reads GBK and GB2312).
ENCODINGS = {"utf_16": "UTF-16", "utf_32": "UTF-32", "cp932": "Shift-JIS (cp932)",
             "euc_jp": "EUC-JP", "gb18030": "GB18030 (GBK)", "big5": "Big5",
             "cp949": "EUC-KR (cp949)", "cp874": "Thai (cp874)", "koi8_r": "KOI8-R",
             **{f"cp{n}": f"Windows-{n} (cp{n})" for n in range(1250, 1259)}}
# Codecs whose common characters lie in a core region (both bytes 0xA1 or above: KS X 1001,
# GB2312): text another encoding wrote reads as rare characters there.
CORE_REGION = ("cp949", "gb18030")
CLOSE_CHAOS = 0.05  # candidates this near the best one's "chaos" are compared by their core


@dataclass
class Source:
    """Raw rows of one source, and how to name a row in a message."""
    label: str
    rows: Sequence[dict]  # a list, or a datasets.Dataset
    columns: list[str]
    unit: str = "row"
    numbers: list[int] | None = None  # line numbers, when rows come from lines
    notes: list[str] = field(default_factory=list)  # what the person should know of it

    def where(self, i: int) -> str:
        n = self.numbers[i] if self.numbers else i + 1
        if self.unit == "line":
            return Message("{file} line {n}", file=self.label, n=n)
        if self.unit == "row":
            return Message("{file} row {n}", file=self.label, n=n)
        if self.unit == "chunk":  # (a .txt file cut into chunks)
            return Message("{file} chunk {n}", file=self.label, n=n)
        if self.unit == "document":  # (a file of a folder of documents, or the file)
            return Message("{file} document {n}", file=self.label, n=n)
        return f"{self.label} {self.unit} {n}"


def max_data_bytes() -> int:
    return int(float(os.environ.get("SFT_UI_MAX_DATA_MB", DEFAULT_MAX_DATA_MB)) * 2**20)


def read_file(path: Path, cfg: RunConfig) -> Source:
    check_file(path)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _read_parquet(path)
    if suffix in (".pdf", ".docx"):
        return Source(path.name, [{"text": document_text(path), "document": path.name}],
                      ["text", "document"], "document")
    text, note = read_text(path)
    if not text.strip():
        raise DataError(Message("{file} is empty: it has no rows to train on.", file=path.name))
    if suffix == ".jsonl":
        source = _read_jsonl(path.name, text)
    elif suffix == ".json":
        source = _read_json(path.name, text)
    elif suffix in (".csv", ".tsv"):
        source = _read_csv(path.name, text, "\t" if suffix == ".tsv" else ",")
    elif is_document(path):  # Markdown, HTML
        source = Source(path.name, [{"text": document_text(path, text),
                                     "document": path.name}], ["text", "document"],
                        "document")
    else:
        source = _read_txt(path.name, text, cfg)
    source.notes += [note] if note else []
    return source


def check_file(path: Path) -> None:
    """A supported file type within the size limit, or DataError."""
    if path.suffix.lower() not in SUFFIXES:
        raise DataError(Message("{file}: unsupported file type '{suffix}'. Use one of "
                                "{suffixes}.", file=path.name, suffix=path.suffix or "none",
                                suffixes=", ".join(SUFFIXES)))
    size, limit = path.stat().st_size, max_data_bytes()
    if size > limit:
        raise DataError(Message("{file} is {size} MB, over the limit of {limit} MB "
                                "(SFT_UI_MAX_DATA_MB). Use a smaller file, a Hub dataset, or "
                                "raise the limit.", file=path.name, size=f"{size / 2**20:.1f}",
                                limit=f"{limit / 2**20:.1f}"))


def read_text(path: Path) -> tuple[str, str | None]:
    """A file's text, and a note where it was not UTF-8 (with or without a BOM) but
    another encoding that charset-normalizer tells (Shift-JIS from Excel on a Japanese
    Windows, for one); DataError where none fits."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        found = _other_encoding(data, e.start)
        if found is None:
            line = data[:e.start].count(b"\n") + 1
            raise DataError(Message("{file}: line {line} is not UTF-8 text (byte {byte}). Save "
                                    "the file with UTF-8 encoding and upload it again.",
                                    file=path.name, line=line, byte=e.start)) from None
    text, codec = found
    return text, Message("{file} was read as {encoding}, not UTF-8.", file=path.name,
                         encoding=ENCODINGS.get(codec, codec))


def _other_encoding(data: bytes, first_error: int) -> tuple[str, str] | None:
    """(text, codec) of bytes that are not UTF-8, in the encoding of ENCODINGS that
    charset-normalizer finds; None for UTF-8 with a broken byte (the text before the
    error was UTF-8 beyond ASCII), binary data, or bytes no encoding reads. Of candidates
    about as likely, the one whose characters lie in its core region wins (a short
    Shift-JIS file also reads as rare Hangul in cp949)."""
    if any(b >= 0x80 for b in data[:first_error]):
        return None
    from charset_normalizer import from_bytes  # loaded only for a file that is not UTF-8
    found = list(from_bytes(data, cp_isolation=list(ENCODINGS)))
    close = [m for m in found if m.chaos <= found[0].chaos + CLOSE_CHAOS] if found else []
    best = max(close, key=lambda m: _core_share(str(m), m.encoding), default=None)
    if best is None:
        return None
    try:
        text = data.decode(best.encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    controls = sum(1 for c in text if c < " " and c not in "\t\n\r\f")
    return None if controls > len(text) / 100 else (text, best.encoding)


def _core_share(text: str, codec: str) -> float:
    """The share of a text's characters beyond ASCII that `codec` writes in its core
    region (1.0 for a codec without one)."""
    wide = [c for c in text if ord(c) >= 0x80]
    if codec not in CORE_REGION or not wide:
        return 1.0
    core = sum(1 for c in wide if len(b := c.encode(codec)) == 2 and min(b) >= 0xA1)
    return core / len(wide)


def _read_jsonl(label: str, text: str) -> Source:
    rows, numbers = [], []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataError(Message('{file}: line {line} is not valid JSON ({reason}, column '
                                    '{column}). Each line must be one JSON object, like '
                                    '{{"text": "..."}}.', file=label, line=n, reason=e.msg,
                                    column=e.colno)) from None
        if not isinstance(obj, dict):
            raise DataError(Message('{file}: line {line} is a JSON {kind}, not an object. Each '
                                    'line must be one JSON object, like {{"text": "..."}}.',
                                    file=label, line=n, kind=type(obj).__name__))
        rows.append(obj)
        numbers.append(n)
    return Source(label, rows, _columns(rows), "line", numbers)


def _read_json(label: str, text: str) -> Source:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":  # JSON lines in a .json file
            return _read_jsonl(label, text)
        raise DataError(Message("{file}: not valid JSON at line {line}, column {column} "
                                "({reason}). Use an array of objects or JSON lines.",
                                file=label, line=e.lineno, column=e.colno,
                                reason=e.msg)) from None
    if isinstance(data, dict):
        lists = {k: v for k, v in data.items() if isinstance(v, list)}
        if lists and len(lists) == len(data) and len({len(v) for v in lists.values()}) == 1 \
                and not all(isinstance(x, dict) for v in lists.values() for x in v):
            data = [dict(zip(lists, values)) for values in zip(*lists.values())]  # columns
        elif len(lists) == 1:
            data = next(iter(lists.values()))  # {"data": [...]} records
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DataError(Message("{file}: expected an array of objects ([{{...}}, {{...}}]) or "
                                "an object of equally long column lists.", file=label))
    if not data:
        raise DataError(Message("{file} is empty: the array has no rows.", file=label))
    return Source(label, data, _columns(data))


def _read_csv(label: str, text: str, delimiter: str) -> Source:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows, numbers = [], []
    try:
        for row in reader:
            if None in row:
                raise DataError(Message("{file}: line {line} has more fields than the header "
                                        "({fields}). Quote fields that contain the "
                                        "delimiter.", file=label, line=reader.line_num,
                                        fields=", ".join(reader.fieldnames or ())))
            rows.append(row)
            numbers.append(reader.line_num)
    except csv.Error as e:
        raise DataError(Message("{file}: line {line} cannot be read ({error}).", file=label,
                                line=reader.line_num, error=str(e))) from None
    if not rows:
        raise DataError(Message("{file} has a header but no rows.", file=label))
    return Source(label, rows, list(reader.fieldnames or []), "line", numbers)


def _read_txt(label: str, text: str, cfg: RunConfig) -> Source:
    if cfg.txt_mode == "chunks":
        size = cfg.max_length * CHARS_PER_TOKEN
        chunks, current = [], ""
        for piece in re.findall(r"\S+\s*", text):
            if current and len(current) + len(piece) > size:
                chunks.append(current)
                current = ""
            current += piece
        rows = [{"text": c} for c in chunks + [current] if c.strip()]
        return Source(label, rows, ["text"], "chunk")
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    return Source(label, [{"text": line} for _, line in numbered], ["text"], "line",
                  [n for n, _ in numbered])


def _read_parquet(path: Path) -> Source:
    import pyarrow.parquet as pq  # pyarrow: loaded on first use
    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as e:
        raise DataError(Message("{file} is not a readable Parquet file ({error}).",
                                file=path.name, error=first_line(e))) from None
    if not rows:
        raise DataError(Message("{file} is empty: it has no rows to train on.", file=path.name))
    return Source(path.name, rows, list(rows[0]))


def _columns(rows: list[dict]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows[:1000]:
        seen.update(dict.fromkeys(row))
    return list(seen)


def first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
