"""What a run will write to disk, before it starts: each checkpoint (the weights it
trains, a LoRA adapter's or the whole model's, and the optimizer's state, to resume
from), how many it writes and keeps (Save every N steps, Keep at most N checkpoints),
and the model it saves at its end, against the free disk where runs are kept. A full
fine-tune of a 135M model writes about 1.6 GB a checkpoint, its adapter a few MB.
Pure arithmetic and the disk's free space; knows nothing of the trainer or the page.
"""
from __future__ import annotations

import math
import shutil
from pathlib import Path

from sft_ui.config import RunConfig
from sft_ui.plan.hardware import Hardware
from sft_ui.plan.memory import loaded_bytes, trainable_params
from sft_ui.plan.shape import ModelShape

TOKENIZER_BYTES = 20 * 2**20  # a tokenizer's files and the run's small state, about
ADAPTER_VALUE = 4  # bytes a LoRA weight takes saved (peft keeps adapters in fp32)
OPTIMIZER_VALUE = 8  # AdamW's two fp32 moments, per trained weight (optimizer.pt)
ROOM = 0.9  # of the free disk, what a run may count on (logs, the OS, other writers)


def checkpoints_written(cfg: RunConfig, steps: int | None) -> int | None:
    """Checkpoints a run of `steps` optimizer steps writes as it trains (a Stop writes one
    more); None where the steps are not known yet."""
    if cfg.save_strategy == "no":
        return 0
    if cfg.save_strategy == "epoch":
        return max(1, math.ceil(cfg.num_train_epochs)) if cfg.train_by == "epochs" else None
    if not cfg.save_steps:
        return 0
    return steps // cfg.save_steps if steps else None


def disk_plan(cfg: RunConfig, shape: ModelShape, hw: Hardware, steps: int | None,
              runs: Path | None) -> dict:
    """Bytes of a checkpoint and of the saved model, the checkpoints written and kept, the
    run's whole and the free disk under `runs` (None: not known), and whether it fits."""
    trained = trainable_params(cfg, shape)
    weights = ADAPTER_VALUE * trained if cfg.use_peft else loaded_bytes(cfg, shape, hw)
    checkpoint = weights + OPTIMIZER_VALUE * trained + TOKENIZER_BYTES
    model = weights + TOKENIZER_BYTES
    written = checkpoints_written(cfg, steps)
    kept = None if written is None else \
        min(written, cfg.save_total_limit) if cfg.save_total_limit else written
    total = model + (kept or 0) * checkpoint
    free = free_bytes(runs) if runs is not None else None
    return {"checkpoint": checkpoint, "model": model, "written": written, "kept": kept,
            "total": total, "free": free, "where": str(runs) if runs is not None else "",
            "fits": free is None or total <= free * ROOM}


def free_bytes(folder: Path) -> int | None:
    """Free bytes on the disk that holds `folder` (or would: its nearest existing
    parent)."""
    for place in [Path(folder), *Path(folder).parents]:
        if place.exists():
            try:
                return shutil.disk_usage(place).free
            except OSError:
                return None
    return None
