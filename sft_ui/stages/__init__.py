"""The stages a run can train, each said once: SFT (stages/sft.py), the preference
stages DPO, ORPO and KTO (stages/preference.py) and GRPO (stages/grpo.py). A stage's
module describes it (a Stage, stages/base.py) and registers it; every other layer asks
`stage_of(cfg)`.
"""
# SFT registers first (the Stage setting's first choice and default), then the stages that
# follow it.
from sft_ui.stages.sft import SFT_DEMO  # noqa: I001
from sft_ui.stages.preference import PREFERENCE_DEMO
from sft_ui.stages.grpo import GRPO_DEMO
from sft_ui.stages.base import (LOSSES, PREFERENCE, REFERENCE, REWARD, SETTING_TAGS,
                                SUPERVISED, UNPAIRED, Plot, Stage, demos, get, names,
                                of_family, register, stage_of, stages, unregister)

__all__ = ["GRPO_DEMO", "LOSSES", "PREFERENCE", "PREFERENCE_DEMO", "REFERENCE", "REWARD",
           "SETTING_TAGS", "SFT_DEMO", "SUPERVISED", "UNPAIRED", "Plot", "Stage", "demos",
           "get", "names", "of_family", "register", "stage_of", "stages", "unregister"]
