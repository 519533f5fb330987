"""Where a run trains: this process, the served app's warm worker, several processes of this
machine, or Hugging Face Jobs (`trainer_for` picks one). Knows nothing of run folders'
records (runs/) or of Gradio.
"""
from __future__ import annotations

import functools

from sft_ui.backends import jobs
from sft_ui.backends.processes import train_in_processes
from sft_ui.config import ConfigError, RunConfig
from sft_ui.models import resolve_model
from sft_ui.plan.hardware import detect, unsupported
from sft_ui.stages import hook
from sft_ui.train.preference import check_reference


def preflight(cfg: RunConfig) -> None:
    """Fail fast, before a run folder exists, on a model or dataset that cannot work, or on
    settings this machine cannot run."""
    problems = unsupported(cfg)
    if problems:
        raise ConfigError(problems)
    resolve_model(cfg.model_name_or_path)
    hook(cfg, "data_check")(cfg)  # the stage's family's check of its data
    check_reference(cfg)


def trainer_for(cfg: RunConfig, worker=None, token: str = "", hub=None):
    """The trainer of cfg: Hugging Face Jobs with `token` (and `hub`, an HfApi), several
    processes of this machine, the warm `worker` when there is one, else this process.
    Every trainer is called as (cfg, run_dir, sink, resume_from) and returns the model
    folder; one away from this process reports through train/events.py."""
    if cfg.run_on == "hf_jobs":
        return jobs.train_on_jobs(token.strip(), hub)
    if cfg.processes(detect().devices) > 1:
        return train_in_processes if worker is None \
            else functools.partial(train_in_processes, start=worker.start)
    if worker is not None:
        return worker.train
    from sft_ui.train.engine import train  # heavy: torch, transformers and TRL
    return train
