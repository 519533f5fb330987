"""GRPO's own settings (stages/grpo.py), in the Rewards panel of the Train tab: declared
here, in its room, and made RunConfig's fields where its panel is (config/setting.py; the
family's "settings" hook names this class)."""
from __future__ import annotations

from sft_ui.config.setting import setting
from sft_ui.rewards.builtin import available as builtin_rewards
from sft_ui.stages.grpo import REWARD

WRITTEN_REWARD = "written"  # the Reward functions choice for the reward written in the page


class GRPOSettings:
    rewards: list = setting(
        ["json_answer", "exact_match"], "The reward functions that score the answers the "
        "model writes (their scores add up, times Reward weights). json_answer: 1 for a "
        "JSON object with the Required keys (part marks for JSON inside other text); "
        "exact_match: 1 when the answer equals the row's Answer column; regex: 1 when the "
        "Pattern matches; contains_words / avoids_words; length_near: near Target length; "
        "think_format: <think>...</think> then the answer; soft_overlong: penalises "
        "answers near Max completion length; written: the function written below.",
        "rewards", choices=lambda: [*builtin_rewards(), WRITTEN_REWARD],
        label="Reward functions", card=True, stages=[REWARD])
    rewards_weights: str = setting(
        "", "One weight per reward function, in their order, e.g. '1, 2'. Blank: 1 each.",
        "rewards", label="Reward weights", stages=[REWARD])
    num_generations: int = setting(
        4, "How many answers the model writes to each prompt. GRPO learns from the "
        "differences within a prompt's group: more answers, more chance that they differ, "
        "and more time per step. Must divide Batch size per device x Gradient "
        "accumulation.", "rewards", minimum=2, maximum=256, label="Answers per prompt",
        trl="train", plan="change", card=True, stages=[REWARD], sweep=True)
    max_completion_length: int = setting(
        64, "Longest answer the model writes, in tokens. Time per step grows with it.",
        "rewards", minimum=1, maximum=131072, label="Max completion length (tokens)",
        trl="train", plan="change", card=True, stages=[REWARD], sweep=True)
    temperature: float = setting(
        1.0, "Sampling temperature of the answers: higher, more varied answers (more to "
        "learn from, and more nonsense).", "rewards", minimum=0.0, min_exclusive=True,
        maximum=10.0, label="Temperature", trl="train", stages=[REWARD], sweep=True)
    warmup_file: str = setting(
        "", "A JSON lines file of prompts and replies in the form the rewards ask (\"prompt\", "
        "\"completion\"): the run first trains on them with a few SFT steps, then GRPO. "
        "GRPO learns nothing where the model never writes the form; a time budget writes "
        "such a file itself, from the model's own answers put in a regex reward's form.",
        "rewards", label="Warm-up examples", advanced=True, stages=[REWARD])
    use_vllm: bool = setting(
        False, "Write the answers with vLLM (TRL's colocate mode: in the training process, "
        "on the same GPU), far faster than transformers' generation on long answers. Needs "
        "a CUDA GPU and the vllm package (pip install vllm); vLLM keeps 30% of the GPU's "
        "memory for itself.", "rewards", label="Generate with vLLM", trl="train",
        advanced=True, stages=[REWARD])
    reward_keys: str = setting(
        "answer", "json_answer: the keys the JSON object must have, comma-separated.",
        "rewards", label="Required keys", stages=[REWARD])
    reward_column: str = setting(
        "answer", "exact_match: the data column holding the right answer.", "rewards",
        label="Answer column", stages=[REWARD])
    reward_pattern: str = setting(
        "", "regex: a Python regular expression the answer should contain.", "rewards",
        label="Pattern", advanced=True, stages=[REWARD])
    reward_words: str = setting(
        "", "contains_words: words the answer should contain, comma-separated.", "rewards",
        label="Words to contain", advanced=True, stages=[REWARD])
    reward_avoid_words: str = setting(
        "", "avoids_words: words the answer should not contain, comma-separated.",
        "rewards", label="Words to avoid", advanced=True, stages=[REWARD])
    reward_target_chars: int = setting(
        200, "length_near: the answer length (characters) that scores 1.", "rewards",
        minimum=1, maximum=1_000_000, label="Target length", advanced=True, stages=[REWARD])
    reward_code: str = setting(
        "", "Your own reward function, in Python: def my_reward(completions, **kwargs) "
        "returning one number (or None) per completion; the data's columns arrive by name "
        "(for example answer=[...]). Choose 'written' in Reward functions to use it. It "
        "runs in a separate process with a time limit, and only where the studio is your "
        "own (refused on a shared server or a Space unless it was started to allow it).",
        "rewards", label="Written reward function", stages=[REWARD], code=True)


def settings() -> type:
    """The family's "settings" hook: the class of its settings."""
    return GRPOSettings
