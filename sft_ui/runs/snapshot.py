"""A run as its readers see it (the page, the API, the command line): RunSnapshot, the one
shape of the dict Run.snapshot gives, each key said once. Knows no run, only the keys.
"""
from __future__ import annotations

from typing import NotRequired, TypedDict


class RunSnapshot(TypedDict):
    run_id: str
    name: str  # a label the person may change
    state: str  # queued, running, stopping, done, stopped or failed (runs/run.py)
    step: int
    max_steps: int
    metrics: list[dict]  # the logged records, oldest first (loss, eval_loss, rewards...)
    samples: list[dict]  # the sample answers: step, prompt, completion (and reference)
    error: str  # why it failed ("": it did not); a Message where the studio said it
    message: str  # what it does now (its phase), a Message
    eta_seconds: float | None  # until it has its model; None when not active
    elapsed_seconds: float
    model_dir: str  # where its trained model is ("" before it has one)
    run_dir: str
    suggestion: dict  # settings that may make a failed run fit
    budget: list[str]  # what its time budget chose, a sentence a setting
    stalled: str  # its family's message while it learns nothing ("": it learns)
    config: dict  # its settings (RunConfig.to_dict)
    log: NotRequired[str]  # the log's last lines, where asked
