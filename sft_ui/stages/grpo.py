"""GRPO, reinforcement learning from rewards (TRL's GRPOConfig and GRPOTrainer): the model
writes several answers to each prompt, reward functions score them, and it learns toward
those above their group's mean. Its family's code in each layer is named below (the hooks);
tests/stages/test_grpo_room.py counts the modules outside them that know GRPO.
"""
from sft_ui.i18n.message import Message
from sft_ui.stages.base import Family, Plot, Stage, register, register_family

GRPO_DEMO = "demo-grpo"  # fresh arithmetic problems from the seed (data/grpo_demo.py)
# The family: the model writes its own answers to prompts and learns from their rewards.
REWARD = "reward"

register_family(Family(
    REWARD, hooks={
        "data_check": "sft_ui.train.grpo:check_run",
        "trainer": "sft_ui.train.grpo:grpo_trainer",
        "preview": "sft_ui.data.prompt_preview:prompt_preview",
        "script": "sft_ui.share.grpo_script:grpo_script",
        "yaml_note": "sft_ui.share.grpo_script:yaml_note",
        "checks": "sft_ui.config.grpo:reward_problems",
        "trl": "sft_ui.config.grpo:trl_rewards",
        "continued": "sft_ui.config.grpo:whole_groups",
        "plan_sample": "sft_ui.plan.rollouts:prompt_sample",
        "signal": "sft_ui.train.grpo_signal:probe",
        "follow_data": "sft_ui.data.prompts:prompts_from",
        "stalled": "sft_ui.rewards.stalled:stalled",
        "sized": "sft_ui.data.prompts:sized_answers",
        "judge": "sft_ui.train.grpo_try:held_out_reward",
        "settings": "sft_ui.config.grpo_settings:settings",
        "try": "sft_ui.train.grpo_try:try_rewards",
        "plan_notes": "sft_ui.plan.grpo_notes:answers_notes"},
    demo_code=("sft_ui.data.grpo_demo", "grpo_demo_rows", "arithmetic prompts"),
    # from the Reward functions and their weights (config/grpo.py)
    derived_trl_keys=("reward_funcs", "reward_weights"),
    kind="reinforcement learning from rewards",
    panel=("rewards", "Rewards (GRPO)"),
    about="grpo: reinforcement learning from rewards: the model writes several answers to "
          "each prompt and learns from the ones your reward functions score higher (data: "
          "'demo-grpo' or rows with a prompt)."))

GRPO = register(Stage(
    name="grpo", title="GRPO", family=REWARD,
    config=("trl", "GRPOConfig"), trainer=("trl", "GRPOTrainer"), demo=GRPO_DEMO,
    columns=Message("prompt (text, or messages ending with the user's turn); other columns "
                    "reach the rewards by name"),
    formats=("prompt-only",),
    # GRPO moves the model by its own answers: a rate near DPO's, as TRL's GRPO examples.
    learning_rates={True: 5e-5, False: 5e-6}, time_budget=True, eval_data=True,
    judged_by=("eval_reward", True),  # the rewards' sum on held-out prompts, not the loss
    own_samples=True, follows=("sft", "dpo", "orpo", "kto"),
    continue_label="Continue with GRPO (rewards)",
    plots=(Plot("rewards", "Reward (total and each reward function's mean)",
                "The mean reward of the answers the model wrote, and each reward "
                "function's own mean. Good: rising. The loss staying near 0 is normal in "
                "GRPO: it is relative to each prompt's group of answers.",
                series=(("reward", "reward"), ("eval_reward", "eval reward"),
                        ("rewards/*/mean", "{}"))),
           Plot("accuracy", "Prompts with no reward spread; answers cut at the length limit",
                "No spread: the share of prompts whose answers all got the same reward, "
                "from which nothing is learned. Near 1: raise the generations or the "
                "temperature, or make the task easier (or harder, when every answer "
                "already scores the most). Cut: answers that reached Max completion "
                "length.",
                series=(("frac_reward_zero_std", "no spread"),
                        ("completions/clipped_ratio", "cut at the limit")),
                # shares, not an accuracy: of the prompts (no spread), of the answers (cut)
                y_title="share"))))
