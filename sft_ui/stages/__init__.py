"""The stages a run can train, each said once in its own module (SFT, DPO, ORPO, KTO, GRPO) and
registered here with its family; every other layer asks `stage_of(cfg)` and `hook`. A stage
of one's own: a module named in SFT_UI_STAGES (docs/architecture.md#a-new-stage).
"""
# SFT registers first (the Stage setting's first choice and default), then the stages that
# follow it.
import importlib  # noqa: I001
import os

from sft_ui.stages.sft import SFT_DEMO
from sft_ui.stages.preference import PREFERENCE_DEMO
from sft_ui.stages import grpo  # noqa: F401  (registers GRPO and its family)
from sft_ui.stages.base import (HOOKS, LOSSES, PREFERENCE, REFERENCE, SUPERVISED, UNPAIRED,
                                Family, Plot, Stage, demos, families, family_of,
                                following, get, names, of_family, register, register_family,
                                setting_tags, stage_of, stages, unregister)
from sft_ui.stages.hooks import family_hook, hook

__all__ = ["HOOKS", "LOSSES", "PREFERENCE", "PREFERENCE_DEMO", "REFERENCE", "SFT_DEMO",
           "SUPERVISED", "UNPAIRED", "Family", "Plot", "Stage", "demos", "families",
           "family_hook", "family_of", "following", "get", "hook", "names", "of_family",
           "register", "register_family", "setting_tags", "stage_of", "stages", "unregister"]

# SFT_UI_STAGES: importable modules, comma-separated, imported after the built-ins; each
# registers itself as these do.
for _module in os.environ.get("SFT_UI_STAGES", "").split(","):
    if _module.strip():
        importlib.import_module(_module.strip())
