"""Load a training dataset from the demo set, a local file or folder, or the Hub.

Owns: the source rules, format detection (text / messages / prompt-completion /
conversations) and readable errors that name the file and what to do.
Does not know about models, training or the UI.
"""
from __future__ import annotations

from pathlib import Path

from .config import DEMO_DATASET, RunConfig

FILE_BUILDERS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".tsv": "csv",
                 ".parquet": "parquet", ".txt": "text"}


class DataError(ValueError):
    """A dataset that cannot be used; the message says what to do."""


def detect_format(columns: list[str], text_field: str) -> str:
    """Name the format TRL will apply, or raise DataError listing the columns."""
    cols = set(columns)
    if "messages" in cols:
        return "messages"
    if {"prompt", "completion"} <= cols:
        return "prompt/completion"
    if "conversations" in cols:
        return "conversations"
    if text_field in cols:
        return "text"
    raise DataError(
        f"The dataset has no '{text_field}' column and no chat columns "
        f"(messages, prompt/completion, conversations). Its columns are: "
        f"{', '.join(columns) or 'none'}. Set the text field to one of them.")


def load_train_dataset(cfg: RunConfig):
    """Return (datasets.Dataset, format name) for cfg's dataset settings."""
    from datasets import Dataset
    name = cfg.dataset_name.strip()
    if name == DEMO_DATASET:
        from .demo_data import demo_rows
        ds = Dataset.from_list(demo_rows())
    elif Path(name).expanduser().exists():
        ds = _load_local(Path(name).expanduser(), cfg)
    else:
        ds = _load_hub(name, cfg)
    if len(ds) == 0:
        raise DataError(f"The dataset {name} has no rows.")
    fmt = detect_format(list(ds.column_names), cfg.dataset_text_field)
    if fmt == "text":
        ds = ds.filter(lambda r: isinstance(r[cfg.dataset_text_field], str)
                       and r[cfg.dataset_text_field].strip() != "")
        if len(ds) == 0:
            raise DataError(f"Every row of {name} has an empty '{cfg.dataset_text_field}'.")
    return ds, fmt


def check_dataset(cfg: RunConfig) -> str:
    """Quick check before a run starts: local data is loaded and its format detected;
    a Hub id only needs the Hub to be reachable (the download happens in the run)."""
    name = cfg.dataset_name.strip()
    if name == DEMO_DATASET or Path(name).expanduser().exists():
        return load_train_dataset(cfg)[1]
    from .models import hub_reachable
    if not hub_reachable():
        _load_hub(name, cfg)  # raises the offline message
    return "hub"


def _load_local(path: Path, cfg: RunConfig):
    import datasets
    try:
        if path.is_dir():
            if (path / "dataset_info.json").exists() or (path / "state.json").exists():
                return datasets.load_from_disk(str(path))
            return datasets.load_dataset(str(path), split=cfg.dataset_train_split)
        builder = FILE_BUILDERS.get(path.suffix.lower())
        if builder is None:
            raise DataError(f"{path.name}: unsupported file type '{path.suffix}'. Use one of "
                            f"{', '.join(FILE_BUILDERS)}.")
        kwargs = {"delimiter": "\t"} if path.suffix.lower() == ".tsv" else {}
        return datasets.load_dataset(builder, data_files=str(path), split="train", **kwargs)
    except DataError:
        raise
    except Exception as e:
        raise DataError(f"Could not read {path.name}: {_first_line(e)}. Check that the file "
                        "is well formed (one JSON object per line for .jsonl).") from None


def _load_hub(name: str, cfg: RunConfig):
    import datasets
    from .models import hub_reachable
    if not hub_reachable():
        raise DataError(
            f"'{name}' is not a local file or folder, and the Hugging Face Hub cannot be "
            "reached to load it as a dataset id: this machine is offline. Use 'demo', "
            "or a local .jsonl/.csv/.parquet file.")
    try:
        return datasets.load_dataset(name, cfg.dataset_config or None,
                                     split=cfg.dataset_train_split)
    except Exception as e:
        raise DataError(f"Could not load the Hub dataset {name} (config "
                        f"{cfg.dataset_config or 'default'}, split {cfg.dataset_train_split}): "
                        f"{_first_line(e)}") from None


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
