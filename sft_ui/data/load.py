"""Load training (and eval) data from the demo set, a file (read by files.py), a
save_to_disk folder or the Hub, check every row, and hand TRL rows in one of its shapes
(see formats.py); the eval split, the check before a run, and uploads kept with the runs.
Knows nothing of models, training or the UI.
"""
from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sft_ui import models
from sft_ui.config import DEMO_DATASET, RunConfig
from sft_ui.data import formats
from sft_ui.data.demo import demo_rows
from sft_ui.data.documents import is_document, read_documents
from sft_ui.data.files import SUFFIXES, Source, check_file, first_line, read_file, read_text
from sft_ui.data.formats import DataError
from sft_ui.i18n.message import Message

MAX_FOLDER_FILES = 10_000  # more entries than this: not a dataset folder

__all__ = ["DataError", "TrainData", "read_source", "load_data", "check_dataset",
           "store_upload"]


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


# ---- sources ---------------------------------------------------------------
def read_source(name: str, cfg: RunConfig, split: str) -> Source:
    """Rows of the demo set, a local file or folder, or a Hub dataset's split."""
    name = name.strip()
    if name == DEMO_DATASET:
        rows = demo_rows()
        return Source(Message("demo set"), rows, list(rows[0]))
    path = Path(name).expanduser()
    if os.path.isdir(path):
        return _read_folder(path, split)
    if os.path.exists(path):
        return read_file(path, cfg)
    if path.suffix.lower() in SUFFIXES or name.startswith(("/", "./", "~", "..")):
        raise DataError(Message("The file {name} does not exist. Check the path, or upload "
                                "the file.", name=name))
    return _read_hub(name, cfg.dataset_config, split)


def folder_files(path: Path, limit: int = MAX_FOLDER_FILES) -> list[Path]:
    """The files in a dataset folder and below (hidden folders and unreadable entries left
    out); DataError once it holds more than `limit` entries, so that a system folder such as
    / or /usr is refused at once instead of being searched for data."""
    found, seen = [], 0
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        seen += len(dirs) + len(files)
        if seen > limit:
            raise DataError(Message("The folder {folder} holds more than {limit} files and "
                                    "folders: it is not a dataset folder. Choose the folder "
                                    "written by save_to_disk, or upload a single file.",
                                    folder=str(path), limit=f"{limit:,}"))
        found += [Path(root, f) for f in files]
    return found


def _read_folder(path: Path, split: str) -> Source:
    import datasets  # heavy: datasets loaded on first use
    files = [f for f in folder_files(path) if f.suffix.lower() in SUFFIXES]
    if any(is_document(f) for f in files) and \
            all(is_document(f) or f.suffix.lower() == ".txt" for f in files):
        # a folder of documents (and text files): a row of text a file that gives text
        rows, notes = read_documents(files, path.name, read=lambda f: read_text(f)[0])
        return Source(path.name, rows, ["text", "document"], "document", notes=notes)
    try:
        if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists():
            data = datasets.load_from_disk(str(path))
        else:
            data = datasets.load_dataset(str(path))
    except Exception as e:
        raise DataError(Message("The folder {folder} is not a dataset ({error}). Use a folder "
                                "written by save_to_disk, or upload a single file.",
                                folder=str(path), error=first_line(e))) from None
    if isinstance(data, datasets.DatasetDict):
        if split not in data:
            raise DataError(Message("The dataset {name} has no split '{split}'. Its splits: "
                                    "{splits}.", name=path.name, split=split,
                                    splits=", ".join(data)))
        data = data[split]
    return Source(f"{path.name} ({split})", data, list(data.column_names))


def _read_hub(name: str, config: str, split: str) -> Source:
    import datasets  # heavy: datasets loaded on first use

    if not models.hub_reachable():
        raise DataError(Message(
            "'{name}' is not a local file or folder, and the Hugging Face Hub cannot be "
            "reached to load it as a dataset id: this machine is offline. Use 'demo', or "
            "upload a .jsonl/.csv/.parquet file.", name=name))
    try:
        data = datasets.load_dataset(name, config or None, split=split)
    except Exception as e:
        raise DataError(Message("Could not load the Hub dataset {name} (config {config}, "
                                "split {split}): {error}", name=name,
                                config=config or "default", split=split,
                                error=first_line(e))) from None
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
        raise DataError(Message("Every row of {file} is empty: nothing to train on.",
                                file=source.label))
    return kept, len(rows) - len(kept)


def load_data(cfg: RunConfig, chat: bool = True) -> TrainData:
    """Train rows (limited to max_train_samples) and optional eval rows for cfg."""
    source = read_source(cfg.dataset_name, cfg, cfg.dataset_train_split)
    fmt = resolve_format(source, cfg)
    train, skipped = normalised_rows(source, fmt, cfg, chat)
    notes = source.notes + ([Message("{count} empty rows left out.", count=skipped)]
                            if skipped else [])
    as_chat = formats.became_chat(source.rows[0], train[0])
    if as_chat:
        notes.append(formats.chat_note(cfg.model_name_or_path))
    eval_rows = None
    eval_name, eval_split = eval_source(cfg)
    if eval_name:
        held = read_source(eval_name, cfg, eval_split)
        eval_rows, _ = normalised_rows(held, resolve_format(held, cfg), cfg,
                                       chat)
        notes += held.notes + [Message("Eval: {count} rows from {file}.", count=len(eval_rows),
                                       file=held.label)]
    elif cfg.eval_fraction > 0:
        train, eval_rows = hold_out(train, cfg.eval_fraction, cfg.seed)
        notes.append(Message("Eval: {count} rows held out (seed {seed}).",
                             count=len(eval_rows), seed=cfg.seed))
    if cfg.max_train_samples and cfg.max_train_samples < len(train):
        notes.append(Message("Training on the first {count} of {total} rows.",
                             count=cfg.max_train_samples, total=len(train)))
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
        raise DataError(Message("Holding out {fraction} of {count} rows leaves nothing to "
                                "train on. Lower the eval fraction or add rows.",
                                fraction=f"{fraction:.0%}", count=len(rows)))
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
    check_file(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
    name = re.sub(r"[^\w.-]", "_", path.name)[-100:]
    target = folder / digest / name
    if target.exists():
        return str(target)
    # Copied beside its place and moved there whole: a copy a full disk cut short is
    # never later taken as the upload.
    partial = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, partial)
        partial.replace(target)
    except OSError as e:
        partial.unlink(missing_ok=True)
        raise DataError(Message("The upload could not be kept: `{error}` ({folder}). Free "
                                "some disk space there (delete old runs on the Runs tab), "
                                "then upload again.", error=e.strerror or str(e),
                                folder=str(folder))) from None
    return str(target)
