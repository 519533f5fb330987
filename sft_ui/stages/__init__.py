"""The stages a run can train, each said once: SFT (stages/sft.py), the preference
stages DPO, ORPO and KTO (stages/preference.py) and GRPO (stages/grpo.py). A stage's
module describes it (a Stage, stages/base.py), registers it and its family (a Family:
the code each layer calls for it); every other layer asks `stage_of(cfg)` and `hook`.
A stage or family of one's own: modules named in the SFT_UI_STAGES environment variable
(comma-separated, importable), imported after the built-ins, register themselves as these
do (docs/architecture.md, "A new stage").
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

for _module in os.environ.get("SFT_UI_STAGES", "").split(","):
    if _module.strip():
        importlib.import_module(_module.strip())
