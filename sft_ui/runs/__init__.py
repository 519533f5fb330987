"""Runs: a run folder per run (folder.py), its checkpoints (checkpoints.py), one run's
state and snapshot (run.py; its phases, pace and ETA: phases.py), the thread that trains
it and the manager of all runs (manager.py), and what follows a finished run
(next_stage.py: the next stage's settings, as its stage says)."""
from sft_ui.runs.checkpoints import (checkpoint_folder, checkpoints, is_complete,
                                     latest_checkpoint)
from sft_ui.runs.folder import NAME_MAX, display_name, runs_dir
from sft_ui.runs.manager import RunManager
from sft_ui.runs.run import ACTIVE_STATES, STATES, Run, RunError, create_run

__all__ = ["checkpoint_folder", "checkpoints", "is_complete", "latest_checkpoint", "NAME_MAX",
           "display_name", "runs_dir", "RunManager", "ACTIVE_STATES", "STATES", "Run", "RunError",
           "create_run"]
