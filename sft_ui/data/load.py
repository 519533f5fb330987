"""Load training (and eval) data from the demo set, a file, a save_to_disk folder or
the Hub, check every row, and hand TRL rows in one of its shapes (see formats.py).

Local files are parsed here, not by `datasets`, so that every problem names the
file and line: bad JSON, an empty file, a file that is neither UTF-8 nor another
encoding told by charset-normalizer (a CSV that Excel saved as Shift-JIS is read, with a
note), a size over the limit (SFT_UI_MAX_DATA_MB). Knows nothing of models, training or
the UI.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from sft_ui import models
from sft_ui.config import DEMO_DATASET, RunConfig
from sft_ui.data import formats
from sft_ui.data.demo import demo_rows
from sft_ui.data.formats import DataError

SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".parquet", ".txt")
DEFAULT_MAX_DATA_MB = 1024
MAX_FOLDER_FILES = 10_000  # more entries than this: not a dataset folder
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

__all__ = ["DataError", "Source", "TrainData", "read_source", "load_data", "check_dataset",
           "store_upload"]


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
        return f"{self.label} {self.unit} {n}"


@dataclass
class TrainData:
    """What the trainer gets: rows in TRL's shapes, plus what the page reports."""
    train: list[dict]
    eval: list[dict] | None
    format: str
    source: Source
    skipped: int = 0  # rows with empty text, left out
    notes: list[str] = field(default_factory=list)
    as_chat: bool = False  # text prompts made the user's turn (formats.as_chat)

    def datasets(self):
        from datasets import Dataset  # heavy: datasets loaded on first use
        return (Dataset.from_list(self.train),
                Dataset.from_list(self.eval) if self.eval else None)


def max_data_bytes() -> int:
    return int(float(os.environ.get("SFT_UI_MAX_DATA_MB", DEFAULT_MAX_DATA_MB)) * 2**20)


# ---- sources ---------------------------------------------------------------
def read_source(name: str, cfg: RunConfig, split: str) -> Source:
    """Rows of the demo set, a local file or folder, or a Hub dataset's split."""
    name = name.strip()
    if name == DEMO_DATASET:
        rows = demo_rows()
        return Source("demo set", rows, list(rows[0]))
    path = Path(name).expanduser()
    if os.path.isdir(path):
        return _read_folder(path, split)
    if os.path.exists(path):
        return _read_file(path, cfg)
    if path.suffix.lower() in SUFFIXES or name.startswith(("/", "./", "~", "..")):
        raise DataError(f"The file {name} does not exist. Check the path, or upload the file.")
    return _read_hub(name, cfg.dataset_config, split)


def _read_file(path: Path, cfg: RunConfig) -> Source:
    _check_file(path)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _read_parquet(path)
    text, note = _read_text(path)
    if not text.strip():
        raise DataError(f"{path.name} is empty: it has no rows to train on.")
    if suffix == ".jsonl":
        source = _read_jsonl(path.name, text)
    elif suffix == ".json":
        source = _read_json(path.name, text)
    elif suffix in (".csv", ".tsv"):
        source = _read_csv(path.name, text, "\t" if suffix == ".tsv" else ",")
    else:
        source = _read_txt(path.name, text, cfg)
    source.notes += [note] if note else []
    return source


def _check_file(path: Path) -> None:
    """A supported file type within the size limit, or DataError."""
    if path.suffix.lower() not in SUFFIXES:
        raise DataError(f"{path.name}: unsupported file type '{path.suffix or 'none'}'. "
                        f"Use one of {', '.join(SUFFIXES)}.")
    size, limit = path.stat().st_size, max_data_bytes()
    if size > limit:
        raise DataError(f"{path.name} is {size / 2**20:.1f} MB, over the limit of "
                        f"{limit / 2**20:.1f} MB (SFT_UI_MAX_DATA_MB). Use a smaller file, "
                        "a Hub dataset, or raise the limit.")


def _read_text(path: Path) -> tuple[str, str | None]:
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
            raise DataError(f"{path.name}: line {line} is not UTF-8 text (byte {e.start}). "
                            "Save the file with UTF-8 encoding and upload it again.") from None
    text, codec = found
    return text, f"{path.name} was read as {ENCODINGS.get(codec, codec)}, not UTF-8."


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
            raise DataError(f"{label}: line {n} is not valid JSON ({e.msg}, column {e.colno}). "
                            'Each line must be one JSON object, like {"text": "..."}.') from None
        if not isinstance(obj, dict):
            raise DataError(f"{label}: line {n} is a JSON {type(obj).__name__}, not an object. "
                            'Each line must be one JSON object, like {"text": "..."}.')
        rows.append(obj)
        numbers.append(n)
    return Source(label, rows, _columns(rows), "line", numbers)


def _read_json(label: str, text: str) -> Source:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if e.msg == "Extra data":  # JSON lines in a .json file
            return _read_jsonl(label, text)
        raise DataError(f"{label}: not valid JSON at line {e.lineno}, column {e.colno} "
                        f"({e.msg}). Use an array of objects or JSON lines.") from None
    if isinstance(data, dict):
        lists = {k: v for k, v in data.items() if isinstance(v, list)}
        if lists and len(lists) == len(data) and len({len(v) for v in lists.values()}) == 1 \
                and not all(isinstance(x, dict) for v in lists.values() for x in v):
            data = [dict(zip(lists, values)) for values in zip(*lists.values())]  # columns
        elif len(lists) == 1:
            data = next(iter(lists.values()))  # {"data": [...]} records
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DataError(f"{label}: expected an array of objects ([{{...}}, {{...}}]) or "
                        "an object of equally long column lists.")
    if not data:
        raise DataError(f"{label} is empty: the array has no rows.")
    return Source(label, data, _columns(data))


def _read_csv(label: str, text: str, delimiter: str) -> Source:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows, numbers = [], []
    try:
        for row in reader:
            if None in row:
                raise DataError(f"{label}: line {reader.line_num} has more fields than the "
                                f"header ({', '.join(reader.fieldnames)}). Quote fields that "
                                "contain the delimiter.")
            rows.append(row)
            numbers.append(reader.line_num)
    except csv.Error as e:
        raise DataError(f"{label}: line {reader.line_num} cannot be read ({e}).") from None
    if not rows:
        raise DataError(f"{label} has a header but no rows.")
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
        raise DataError(f"{path.name} is not a readable Parquet file ({_first_line(e)}).") \
            from None
    if not rows:
        raise DataError(f"{path.name} is empty: it has no rows to train on.")
    return Source(path.name, rows, list(rows[0]))


def folder_files(path: Path, limit: int = MAX_FOLDER_FILES) -> list[Path]:
    """The files in a dataset folder and below (hidden folders and unreadable entries left
    out); DataError once it holds more than `limit` entries, so that a system folder such as
    / or /usr is refused at once instead of being searched for data."""
    found, seen = [], 0
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        seen += len(dirs) + len(files)
        if seen > limit:
            raise DataError(f"The folder {path} holds more than {limit:,} files and folders: "
                            "it is not a dataset folder. Choose the folder written by "
                            "save_to_disk, or upload a single file.")
        found += [Path(root, f) for f in files]
    return found


def _read_folder(path: Path, split: str) -> Source:
    import datasets  # heavy: datasets loaded on first use
    folder_files(path)
    try:
        if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists():
            data = datasets.load_from_disk(str(path))
        else:
            data = datasets.load_dataset(str(path))
    except Exception as e:
        raise DataError(f"The folder {path} is not a dataset ({_first_line(e)}). Use a "
                        "folder written by save_to_disk, or upload a single file.") from None
    if isinstance(data, datasets.DatasetDict):
        if split not in data:
            raise DataError(f"The dataset {path.name} has no split '{split}'. Its splits: "
                            f"{', '.join(data)}.")
        data = data[split]
    return Source(f"{path.name} ({split})", data, list(data.column_names))


def _read_hub(name: str, config: str, split: str) -> Source:
    import datasets  # heavy: datasets loaded on first use

    if not models.hub_reachable():
        raise DataError(
            f"'{name}' is not a local file or folder, and the Hugging Face Hub cannot be "
            "reached to load it as a dataset id: this machine is offline. Use 'demo', "
            "or upload a .jsonl/.csv/.parquet file.")
    try:
        data = datasets.load_dataset(name, config or None, split=split)
    except Exception as e:
        raise DataError(f"Could not load the Hub dataset {name} (config "
                        f"{config or 'default'}, split {split}): {_first_line(e)}") from None
    return Source(f"{name} ({split})", data, list(data.column_names))


# ---- rows for the trainer ----------------------------------------------------
def resolve_format(source: Source, cfg: RunConfig) -> str:
    """The format to apply (auto-detected or chosen), after checking every row."""
    fmt = cfg.dataset_format
    if fmt == "auto":
        fmt = formats.detect(source.rows, source.columns, cfg.dataset_text_field, source.where)
    for i, row in enumerate(source.rows):
        formats.check_row(row, fmt, cfg, source.where(i))
    return fmt


def normalised_rows(source: Source, fmt: str, cfg: RunConfig, chat: bool) -> tuple[list, int]:
    """Rows in TRL's shapes, without empty texts; and how many were left out."""
    rows = [formats.normalise(r, fmt, cfg, chat) for r in source.rows]
    kept = [r for r in rows if "text" not in r or r["text"].strip()]
    if not kept:
        raise DataError(f"Every row of {source.label} is empty: nothing to train on.")
    return kept, len(rows) - len(kept)


def load_data(cfg: RunConfig, chat: bool = True) -> TrainData:
    """Train rows (limited to max_train_samples) and optional eval rows for cfg."""
    source = read_source(cfg.dataset_name, cfg, cfg.dataset_train_split)
    fmt = resolve_format(source, cfg)
    train, skipped = normalised_rows(source, fmt, cfg, chat)
    notes = source.notes + ([f"{skipped} empty rows left out."] if skipped else [])
    as_chat = formats.became_chat(source.rows[0], train[0])
    if as_chat:
        notes.append(formats.chat_note(cfg.model_name_or_path))
    eval_rows = None
    eval_name, eval_split = eval_source(cfg)
    if eval_name:
        held = read_source(eval_name, cfg, eval_split)
        eval_rows, _ = normalised_rows(held, resolve_format(held, cfg), cfg,
                                       chat)
        notes += held.notes + [f"Eval: {len(eval_rows)} rows from {held.label}."]
    elif cfg.eval_fraction > 0:
        train, eval_rows = hold_out(train, cfg.eval_fraction, cfg.seed)
        notes.append(f"Eval: {len(eval_rows)} rows held out (seed {cfg.seed}).")
    if cfg.max_train_samples and cfg.max_train_samples < len(train):
        notes.append(f"Training on the first {cfg.max_train_samples} of {len(train)} rows.")
        train = train[:cfg.max_train_samples]
    return TrainData(train, eval_rows, fmt, source, skipped, notes, as_chat)


def eval_source(cfg: RunConfig) -> tuple[str, str]:
    """(name, split) of a run's eval data read from a file, folder, Hub id or split: the
    eval dataset, or the training data's eval split; ("", "") when there is none (then a
    held-out fraction may give some: hold_out)."""
    name = cfg.eval_dataset_name.strip() or (
        cfg.dataset_name if cfg.dataset_test_split.strip() else "")
    return (name, cfg.dataset_test_split.strip() or "test") if name else ("", "")


def training_rows(cfg: RunConfig, rows) -> list:
    """The rows a run of cfg trains on, of those its training data holds (for the plan):
    a held-out eval fraction out where no eval data is named, then at most
    max_train_samples."""
    rows = list(rows)
    if cfg.eval_fraction > 0 and not eval_source(cfg)[0]:
        rows, _ = hold_out(rows, cfg.eval_fraction, cfg.seed)
    return rows[:cfg.max_train_samples or None]


def hold_out(rows: list, fraction: float, seed: int) -> tuple[list, list]:
    """(train rows, eval rows): `fraction` of the rows held out, chosen by the seed, each
    part in the rows' order."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    n_eval = max(1, round(fraction * len(rows)))
    if n_eval >= len(rows):
        raise DataError(f"Holding out {fraction:.0%} of {len(rows)} rows leaves nothing to "
                        "train on. Lower the eval fraction or add rows.")
    held = set(order[:n_eval])
    return ([r for i, r in enumerate(rows) if i not in held],
            [rows[i] for i in sorted(held)])


def check_dataset(cfg: RunConfig) -> str:
    """Quick check before a run starts: local data is read and every row checked;
    a Hub id only needs the Hub to be reachable (the download happens in the run)."""
    names = [cfg.dataset_name.strip(), cfg.eval_dataset_name.strip()]
    if all(not n or n == DEMO_DATASET or os.path.exists(Path(n).expanduser()) for n in names):
        return load_data(cfg).format
    if not models.hub_reachable():
        hub = next(n for n in names if n and n != DEMO_DATASET
                   and not os.path.exists(Path(n).expanduser()))
        read_source(hub, cfg, cfg.dataset_train_split)  # raises the clear message
    return "hub"


def store_upload(path: str | Path, folder: Path) -> str:
    """Copy an uploaded file, under its own name, into a folder of `folder` named by its
    content (kept with the runs, so a run resumes without the upload); return that path."""
    path = Path(path)
    _check_file(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
    name = re.sub(r"[^\w.-]", "_", path.name)[-100:]
    target = folder / digest / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        shutil.copyfile(path, target)
    return str(target)


def _columns(rows: list[dict]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows[:1000]:
        seen.update(dict.fromkeys(row))
    return list(seen)


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
