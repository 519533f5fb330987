"""The preference stages, usually after SFT: the model learns to prefer the chosen answer
to the rejected one. DPO (pairs, kept near a reference model), ORPO (pairs, no
reference: an odds-ratio term beside the SFT loss; trl.experimental in TRL 1.16) and KTO
(answers labelled good or bad, near a reference). Their data: data/preference.py; their
trainers: train/preference.py."""
from sft_ui.i18n.message import Message
from sft_ui.stages.base import PREFERENCE, Family, Plot, Stage, register, register_family

PREFERENCE_DEMO = "demo-preference"  # the demo set's pairs (data/preference_demo.py)
PAIRED = ("preference", "implicit preference")
# DPO's learning rate is far below SFT's, as TRL's DPO examples use (the preference signal
# is strong and a high rate soon pulls the model away from its reference).
RATES = {True: 5e-5, False: 5e-6}  # by LoRA on / off
# What the held-out pairs judge a budgeted run by (train/held_out.py): the margin of the
# chosen answers' reward over the rejected ones', what DPO and KTO optimise; their loss
# mixes it with an SFT term (sigmoid+sft) and with KTO's KL estimate. ORPO keeps its loss:
# the chosen answers' likelihood is half of what it trains, and its margin alone could
# keep a model that has drifted from them.
MARGIN = ("eval_rewards/margins", True)

register_family(Family(
    PREFERENCE, hooks={
        "data_check": "sft_ui.data.preference:check_preference_dataset",
        "trainer": "sft_ui.train.preference:preference_trainer",
        "preview": "sft_ui.data.preview:preference_preview",
        "script": "sft_ui.share.preference_script:preference_script",
        "stalled": "sft_ui.train.stalled:preference_stalled",
        "settings": "sft_ui.config.preference_settings:settings",
        "plan_notes": "sft_ui.plan.preference_notes:preference_notes"},
    demo_code=("sft_ui.data.preference_demo", "preference_demo_rows",
               "preference demo set"),
    derived_trl_keys=("loss_weights",),  # from a combined loss_type (sigmoid+sft)
    panel=("preference", "Preference tuning"),
    about="dpo, orpo, kto: preference tuning, usually after sft: the model learns to prefer "
          "the chosen answer to the rejected one (DPO: pairs, kept near a reference model; "
          "ORPO: pairs, no reference; KTO: answers labelled good or bad). Preference data: "
          "'demo-preference' (built in) or prompt/chosen/rejected rows."))

REWARDS = Plot("rewards", "Rewards (chosen, rejected, margin)",
               "How far the model moved each answer from the reference model, times beta. "
               "Good: the margin rises above 0, chosen above rejected.")
ACCURACY = Plot("accuracy", "Reward accuracy",
                "The share of a batch's pairs whose chosen answer gets the higher reward. "
                "It starts at 0 (no move yet) and often jumps to 1 within a few steps on "
                "easy pairs; the margin says by how much.")

DPO = register(Stage(
    name="dpo", title="DPO", family=PREFERENCE,
    config=("trl", "DPOConfig"), trainer=("trl", "DPOTrainer"), demo=PREFERENCE_DEMO,
    columns="prompt/chosen/rejected", formats=PAIRED,
    losses=("sigmoid", "sigmoid+sft", "ipo", "hinge", "robust", "apo_zero", "apo_down",
            "sigmoid_norm"),
    learning_rates=RATES, time_budget=True, eval_data=True, reference=True,
    sequences_per_example=2, reference_sequences=2, fused_head=True, follows=("sft",),
    continue_label="Continue with preference tuning",
    plots=(REWARDS, ACCURACY), judged_by=MARGIN,
    # (SFT's rates, with LoRA and without: at DPO's own the term moves nothing in a short
    # run; docs/preference.md#when-the-chosen-answers-are-a-new-form)
    sft_term={True: 5e-4, False: 5e-5}))
SFT_TERM = "sigmoid+sft"  # TRL's loss_type ["sigmoid", "sft"], each weighed 1

ORPO = register(Stage(
    name="orpo", title="ORPO", family=PREFERENCE,
    config=("trl.experimental.orpo", "ORPOConfig"),
    trainer=("trl.experimental.orpo", "ORPOTrainer"), demo=PREFERENCE_DEMO,
    columns="prompt/chosen/rejected", formats=PAIRED, cli=False,
    learning_rates=RATES, time_budget=True, eval_data=True, sequences_per_example=2,
    plots=(Plot("rewards", "Answer log-probabilities x beta (chosen, rejected, margin)",
                "Not rewards against a reference (ORPO has none): beta times each answer's "
                "average log-probability per token. Good: the margin grows."),
           Plot("accuracy", "Chosen answer more likely (share of pairs)",
                "The share of pairs whose chosen answer the model already finds more "
                "likely than the rejected one; near 1 even before training on easy pairs."))))

KTO = register(Stage(
    name="kto", title="KTO", family=PREFERENCE,
    config=("trl", "KTOConfig"), trainer=("trl", "KTOTrainer"), demo=PREFERENCE_DEMO,
    columns=Message("prompt/completion/label or prompt/chosen/rejected"),
    formats=("unpaired preference", *PAIRED), losses=("kto", "apo_zero_unpaired"),
    learning_rates=RATES, time_budget=True, eval_data=True, reference=True,
    reference_sequences=1, fused_head=True, kl_batch=True, unpaired=True, min_batch=2,
    judged_by=MARGIN, plots=(Plot("rewards", "Rewards (good, bad answers, margin)",
                "How far the model moved the good and the bad answers from the reference, "
                "times beta. Good: good answers rise above bad ones."),)))
