"""The preference stages' own settings (DPO, ORPO, KTO: stages/preference.py), in their
panel of the Train tab: declared here, in their family's room, and made RunConfig's
fields where their panel is (config/setting.py; the family's "settings" hook names this
class)."""
from __future__ import annotations

from sft_ui.config.setting import setting
from sft_ui.stages import LOSSES, PREFERENCE, REFERENCE, UNPAIRED
from sft_ui.stages import stages as all_stages


class PreferenceSettings:
    beta: float = setting(
        0.1, "Beta: how strongly the preference is weighed. DPO and KTO: how far the model "
        "may move from the reference model (higher: stays nearer; 0.1 is common). ORPO: "
        "the weight of the preference term beside the SFT loss.", "preference", minimum=0,
        min_exclusive=True, maximum=100.0, label="Beta", trl="train", card=True,
        stages=[PREFERENCE], sweep=True)
    loss_type: str = setting(
        "auto", "The preference loss. auto: the trainer's own (DPO: sigmoid, plus the SFT "
        "term on the chosen answers when the starting model finds them far less likely "
        "than the rejected ones: a form it does not write yet, then at SFT's learning "
        "rate where the rate is left at DPO's; KTO: kto). DPO also: "
        "sigmoid+sft (DPO's loss and the SFT loss on the chosen answers), ipo, hinge, "
        "robust, apo_zero, apo_down, sigmoid_norm. KTO also: apo_zero_unpaired.",
        "preference",
        choices=lambda: ["auto", *dict.fromkeys(l for s in all_stages() for l in s.losses)],
        label="Loss type", trl="train", card=True, stages=[LOSSES])
    ref_model: str = setting(
        "", "The reference model DPO and KTO keep the model near. Blank: the model training "
        "starts from (with LoRA that is the model with the adapter switched off: no second "
        "copy in memory). Or a run's model folder, another folder or a Hub id: loaded as a "
        "second, frozen copy.", "preference", label="Reference model", plan="leave",
        stages=[REFERENCE])
    desirable_weight: float = setting(
        0.0, "KTO: the weight of the good answers' loss. 0: auto, from the label counts, so "
        "that good and bad answers weigh alike (TRL advises desirable_weight x good answers "
        "/ (undesirable_weight x bad answers) between 1 and 4/3).", "preference",
        minimum=0.0, maximum=100.0, label="Good answers' weight", trl="train", card=True,
        stages=[UNPAIRED])
    undesirable_weight: float = setting(
        0.0, "KTO: the weight of the bad answers' loss. 0: auto, from the label counts.",
        "preference", minimum=0.0, maximum=100.0, label="Bad answers' weight", trl="train",
        card=True, stages=[UNPAIRED])


def settings() -> type:
    """The family's "settings" hook: the class of its settings."""
    return PreferenceSettings
