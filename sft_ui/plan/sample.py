"""The data a plan reads: token lengths of the first training rows as the trainer
tokenizes them (data/tokens.py), the row count and format; and the arithmetic on them:
padding of batches, steps of a run counted in epochs. The planner and the time budget
read it. Knows nothing of Gradio or of the trainer.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import os
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig
from sft_ui.data import folder_files
from sft_ui.data.answers import Answers, read_answers
from sft_ui.data.formats import DataError
from sft_ui.data.language import source_notes
from sft_ui.data.load import training_rows
from sft_ui.data.preference import load_preference
from sft_ui.data.preview import example_lengths
from sft_ui.data.sized import Sized, own_data, sized
from sft_ui.data.thinking import applied
from sft_ui.data.tokens import load_training_data, tokenize_rows
from sft_ui.models import ModelError, load_tokenizer, resolve_model
from sft_ui.plan.rollouts import length_setting
from sft_ui.stages import PREFERENCE, demos, hook, stage_of

DATA_SAMPLE_ROWS = 1000
# The settings data/sized.py may size (Max length, the samples', a family's own: GRPO's
# rewards'), and the panels whose settings it reads (the model, the data, the samples).
SIZED_GROUPS = ("start", "model", "data", "eval", "log", "rewards")
SIZED = [f.name for f in dataclasses.fields(RunConfig) if f.metadata["group"] in
         ("log", "rewards")] + ["max_length"]
QUICK_DATA_BYTES = 64 * 2**20
# The settings the data sample depends on: the panels of the model and the data (and the
# setting that bounds a sequence, plan/rollouts.py's length_setting).
DATA_FIELDS = [f.name for f in dataclasses.fields(RunConfig)
               if f.metadata["group"] in ("start", "model", "data", "eval")] + \
    ["seed", "max_length"]


@dataclasses.dataclass(frozen=True)
class DataSample:
    lengths: tuple[int, ...]  # token lengths of the first examples, before truncation
    rows: int                 # training examples in all (a KTO run's pairs count twice)
    format: str = "text"      # the data format the rows were read in
    notes: tuple[str, ...] = ()  # how the data was read, its language (data/language.py)
    answers: Answers = Answers()  # what its answers ask: facts to recall, or a form


def data_sample(cfg: RunConfig) -> DataSample:
    """Token lengths of the first training examples, as the stage's trainer tokenizes them
    (cached)."""
    key = tuple((name, getattr(cfg, name))
                for name in dict.fromkeys(DATA_FIELDS + ["stage", length_setting(cfg)]))
    path = Path(cfg.dataset_name).expanduser()
    return _data_sample(key, os.path.getmtime(path) if os.path.exists(path) else 0)


@functools.lru_cache(maxsize=8)
def _data_sample(key: tuple, mtime: float) -> DataSample:
    cfg = RunConfig.from_dict(dict(key))
    tokenizer, _ = applied(load_tokenizer(resolve_model(cfg.model_name_or_path),
                                          cfg.trust_remote_code), cfg.enable_thinking)
    stage = stage_of(cfg)
    if stage.family == PREFERENCE:
        found = load_preference(cfg.dataset_name, cfg, cfg.stage, cfg.dataset_train_split,
                                tokenizer)
        rows = training_rows(cfg, found.rows)
        each = stage.unpaired and found.format != "unpaired preference"
        lengths = example_lengths(rows[:DATA_SAMPLE_ROWS], tokenizer, each_answer=each)
        return DataSample(tuple(lengths), len(rows) * (2 if each else 1), found.format,
                          source_notes(cfg.model_name_or_path, found.source, found.as_chat))
    own = hook(stage, "plan_sample")  # a family that reads its rows its own way
    if own:
        return DataSample(*own(cfg, tokenizer, DATA_SAMPLE_ROWS))
    data = load_training_data(cfg, tokenizer)
    rows = tokenize_rows(cfg, tokenizer, data.train[:DATA_SAMPLE_ROWS])
    return DataSample(tuple(len(r["input_ids"]) for r in rows), len(data.train), data.format,
                      source_notes(cfg.model_name_or_path, data.source, data.as_chat),
                      read_answers(data.train[:DATA_SAMPLE_ROWS]))


def quick_data_sample(cfg: RunConfig) -> DataSample | None:
    """data_sample where it is cheap: the built-in sets and local data up to 64 MB."""
    return data_sample(cfg) if _cheap(cfg) else None


def _cheap(cfg: RunConfig) -> bool:
    """Whether cfg's data is cheap to read: a built-in set, or local data up to 64 MB."""
    name = cfg.dataset_name.strip()
    path = Path(name).expanduser()
    if name in demos():
        return True
    if not os.path.exists(path):
        return False
    try:
        files = folder_files(path) if path.is_dir() else [path]
        return sum(f.stat().st_size for f in files if f.is_file()) <= QUICK_DATA_BYTES
    except (DataError, OSError):
        return False  # the run's own checks say what is wrong with it


def quick_sized(cfg: RunConfig) -> Sized:
    """cfg as its run's start sizes it from its data (data/sized.py), where the data is
    cheap to read (cached, as data_sample); cfg as it is where not, or where the data or
    the model cannot be read (the plan says why elsewhere)."""
    if not own_data(cfg) or not _cheap(cfg):
        return Sized(cfg)
    key = tuple((f.name, _frozen(getattr(cfg, f.name))) for f in dataclasses.fields(cfg)
                if f.metadata["group"] in SIZED_GROUPS or
                f.name in ("seed", "stage", "max_length"))
    path = Path(cfg.dataset_name).expanduser()
    try:
        found = _sized(key, os.path.getmtime(path))
    except (ConfigError, DataError, ModelError):
        return Sized(cfg)
    return dataclasses.replace(found, config=dataclasses.replace(cfg, **{
        name: getattr(found.config, name) for name in SIZED
        if getattr(found.config, name) != getattr(cfg, name)}))


@functools.lru_cache(maxsize=8)
def _sized(key: tuple, mtime: float) -> Sized:
    return sized(RunConfig.from_dict({k: list(v) if isinstance(v, tuple) else v
                                      for k, v in key}))


def _frozen(value):
    return tuple(value) if isinstance(value, list) else value


def padding(lengths, batch: int, max_length: int) -> dict:
    """Padding of batches of consecutive rows (each padded to its longest row, rows cut
    at max_length), and how many max_length sequences packing would fill."""
    cut = [min(n, max_length) for n in lengths]
    tokens = sum(cut)
    padded = sum(max(cut[k:k + batch]) * len(cut[k:k + batch]) for k in range(0, len(cut), batch))
    return {"batch": batch, "rows": len(cut), "tokens": tokens, "padded_tokens": padded,
            "waste": 1 - tokens / padded if padded else 0.0,
            "packed_sequences": math.ceil(tokens / max_length)}


def run_steps(cfg: RunConfig, devices: int, data: DataSample | None) -> int | None:
    """Optimizer steps of the run; for epochs only when the data is known."""
    if cfg.train_by == "steps":
        return cfg.max_steps
    if data is None or not data.lengths:
        return None
    sequences = data.rows
    if cfg.packing:
        packed = padding(data.lengths, 1, cfg.max_length)["packed_sequences"]
        sequences = math.ceil(packed * data.rows / len(data.lengths))
    batches = math.ceil(sequences / (cfg.per_device_train_batch_size * devices))
    return math.ceil(max(math.ceil(batches / cfg.gradient_accumulation_steps), 1)
                     * cfg.num_train_epochs)
