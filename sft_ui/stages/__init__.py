"""The stages a run can train, each said once: SFT (stages/sft.py), the preference
stages DPO, ORPO and KTO (stages/preference.py) and GRPO (stages/grpo.py). A stage's
module describes it (a Stage, stages/base.py), registers it and its family (a Family:
the code each layer calls for it); every other layer asks `stage_of(cfg)` and `hook`.
"""
# SFT registers first (the Stage setting's first choice and default), then the stages that
# follow it.
from sft_ui.stages.sft import SFT_DEMO  # noqa: I001
from sft_ui.stages.preference import PREFERENCE_DEMO
from sft_ui.stages import grpo  # noqa: F401  (registers GRPO and its family)
from sft_ui.stages.base import (HOOKS, LOSSES, PREFERENCE, REFERENCE, SUPERVISED, UNPAIRED,
                                Family, Plot, Stage, demos, families, family_of, following,
                                get, hook, names, of_family, register, register_family,
                                setting_tags, stage_of, stages, unregister)

__all__ = ["HOOKS", "LOSSES", "PREFERENCE", "PREFERENCE_DEMO", "REFERENCE", "SFT_DEMO",
           "SUPERVISED", "UNPAIRED", "Family", "Plot", "Stage", "demos", "families",
           "family_of", "following", "get", "hook", "names", "of_family", "register",
           "register_family", "setting_tags", "stage_of", "stages", "unregister"]
