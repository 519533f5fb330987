"""Where runs live and what their files hold: the runs folder, run display names, the
JSON-lines records (metrics, samples) a run appends, and deleting a run's folder while
its last write may still land. Knows nothing of training."""
from __future__ import annotations

import json
import os
import re
import time
import unicodedata
from pathlib import Path

from sft_ui.i18n.message import Message
from sft_ui.train.events import MODEL_SUBDIR

# A run id is a plain folder name: no separators, no leading dot, no control characters.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
NAME_MAX = 80


def runs_dir() -> Path:
    """SFT_UI_RUNS_DIR; on a Hugging Face Space with persistent storage /data/runs;
    else ./runs."""
    if os.environ.get("SFT_UI_RUNS_DIR"):
        return Path(os.environ["SFT_UI_RUNS_DIR"]).expanduser().resolve()
    data = Path("/data")
    if os.environ.get("SPACE_ID") and data.is_dir() and os.access(data, os.W_OK):
        return data / "runs"
    return Path("runs").resolve()


def clean_name(name) -> str:
    """A display name: whitespace collapsed, control characters dropped, at most 80 chars."""
    text = " ".join(str(name or "").split())
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    return text[:NAME_MAX].strip()


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line cut short by a crash
    return rows


BEST_MARK = " ★"  # ends the name of a sweep's best trial's run (sweeps/trial.py)


def display_name(run) -> Message:
    """How lists name a run: its name and when it started; a run never renamed (its name
    is its id) by what it is instead: its stage, the model it started from (an earlier
    run's model: "run <id>", said in the reader's language) and its data."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created))
    if run.name and run.name != run.id:
        return Message("{name} · {when}", name=run.name, when=when)
    model = Path(run.config.model_name_or_path.rstrip("/\\"))
    name = model.name
    if model.name == MODEL_SUBDIR and RUN_ID.fullmatch(model.parent.name) and \
            (model.parent / "state.json").exists():
        name = Message("run {run_id}", run_id=model.parent.name)  # not "model"
    data = Path(run.config.dataset_name.rstrip("/\\")).name
    return Message("{stage} · {model} · {data} · {when}", stage=run.config.stage.upper(),
                   model=name, data=data, when=when)


def gone_is_deleted(function, path, exc_info) -> None:
    """shutil.rmtree's error handler: a file that went while its folder was deleted (a
    stopped run's last write replacing its temporary file) is deleted; anything else is
    raised."""
    if not issubclass(exc_info[0], FileNotFoundError):
        raise exc_info[1]
