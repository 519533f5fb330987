"""The stages a run can train, the loss types each stage's TRL trainer takes, and the
built-in data sets each reads: the names config/fields.py and config/checks.py share.
"""
from __future__ import annotations

# What a run trains: supervised fine-tuning, or a preference stage after it.
STAGES = ("sft", "dpo", "orpo", "kto")
PREFERENCE_STAGES = ("dpo", "orpo", "kto")
# The loss types each stage's trainer takes besides "auto" (the trainer's own default).
STAGE_LOSSES = {"dpo": ("sigmoid", "ipo", "hinge", "robust", "apo_zero", "apo_down",
                        "sigmoid_norm"),
                "kto": ("kto", "apo_zero_unpaired")}
# The built-in sets: SFT examples (data/demo.py) and preference pairs
# (data/preference_demo.py).
SFT_DEMO, PREFERENCE_DEMO = "demo", "demo-preference"
