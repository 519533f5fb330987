"""A run's checkpoints: which are complete, the newest, a named one, and what a run that
ran out of disk space says about them. Knows nothing of training."""
from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from sft_ui.i18n.message import Message
from sft_ui.runs.run import RunError


def _checkpoint_folders(folder: Path) -> list[Path]:
    return [p for p in (folder / "checkpoints").glob("checkpoint-*")
            if p.name.split("-")[-1].isdigit()]


def is_complete(checkpoint: Path) -> bool:
    """Whether a checkpoint was written to the end. The trainer writes trainer_state.json
    last (after the weights, optimizer, scheduler and RNG state), in one piece that ends
    with the top-level object's closing brace alone on its line: a save cut short (full
    disk, killed process) has no such file, or only a part of it."""
    try:
        with open(checkpoint / "trainer_state.json", "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 3))
            return f.read() == b"\n}\n"
    except OSError:
        return False


def checkpoints(folder: Path) -> list[Path]:
    """A run folder's complete `checkpoints/checkpoint-N` folders, newest (highest N) first."""
    found = [p for p in _checkpoint_folders(folder) if is_complete(p)]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]), reverse=True)


def discard_partial_checkpoints(folder: Path) -> list[str]:
    """Remove the checkpoints of a run that were not written to the end (they can never be
    resumed from, and a full disk wants the space back); return their names."""
    partial = sorted(p.name for p in _checkpoint_folders(folder) if not is_complete(p))
    for name in partial:
        shutil.rmtree(folder / "checkpoints" / name, ignore_errors=True)
    return partial


def is_disk_full(error: BaseException | None) -> bool:
    """A write that failed for want of space, however a library wrapped the OSError
    (safetensors and torch.save re-raise it as their own errors)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(text in str(error) for text in ("No space left on device", "StorageFull",
                                                "Disk quota exceeded")):
            return True
        error = error.__cause__ or error.__context__
    return False


def disk_full_message(run, removed: list[str]) -> Message:
    """What a run that ran out of disk space says: where it stopped, what is intact."""
    last = latest_checkpoint(run.dir)
    text = Message("The disk is full (no space left on device): the run stopped at step "
                   "{step}.", step=run.step)
    if removed:
        text = Message("{text} The unfinished {checkpoint} was removed.", text=text,
                       checkpoint=", ".join(removed))
    if last is not None:
        return Message("{text} The last complete checkpoint, {checkpoint}, is intact: free "
                       "some space, then Resume continues from it.", text=text,
                       checkpoint=last.name)
    return Message("{text} No checkpoint had been saved yet: free some space and start the "
                   "run again.", text=text)


def checkpoint_folder(run, name: str) -> Path:
    """One named checkpoint of a run (a plain `checkpoint-N` name), or RunError."""
    path = run.dir / "checkpoints" / name
    if not name.startswith("checkpoint-") or "/" in name or "\\" in name or not path.is_dir():
        raise RunError(Message("Run {run_id} has no checkpoint '{name}'.", run_id=run.id,
                               name=name))
    return path


def latest_checkpoint(folder: Path) -> Path | None:
    found = checkpoints(folder)
    return found[0] if found else None
