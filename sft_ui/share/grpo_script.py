"""GRPO's files for elsewhere (its family's `script` and `yaml_note` hooks): the Python
script of Show code, GRPOTrainer with the rewards the studio would use (its built-in
ones from the studio's package, the written function in the script itself), and the
settings file's note on a written reward. Knows nothing of Gradio."""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.config.grpo_settings import WRITTEN_REWARD
from sft_ui.config.trl import flat
from sft_ui.rewards.written import function_names
from sft_ui.share.recipe import eval_code, load_code, model_code, peft_code, py_value
from sft_ui.train.arguments import to_trl
from sft_ui.train.grpo import reward_options


def yaml_note(cfg: RunConfig, command: str) -> str:
    """The settings file's note where a written reward is chosen: `trl grpo` does not
    read it."""
    if WRITTEN_REWARD not in cfg.rewards:
        return ""
    return (f"# The written reward function is the studio's own: {command} trains with "
            "the built-in\n# rewards above; the studio and the Python script of Show "
            "code add the written one.\n")


def grpo_script(cfg: RunConfig, output_dir: str) -> str:
    """GRPOTrainer on the prompts, with the rewards the studio would use: its built-in
    ones (from the studio's package) and the written function, in the script itself."""
    args = to_trl(cfg)
    values = flat(args)
    data = ["# Data: prompts (the model writes the answers); other columns reach the "
            "rewards by name"] + load_code(cfg, cfg.dataset_name, cfg.dataset_train_split)
    data += eval_code(cfg)
    if cfg.max_train_samples:
        data.append(f"dataset = dataset.select(range(min({cfg.max_train_samples}, "
                    "len(dataset))))")
    built_in = [n for n in cfg.rewards if n != WRITTEN_REWARD]
    rewards = ["# The rewards: the studio's built-in functions, then the written one",
               "from sft_ui.rewards.builtin import make_reward",
               f"OPTIONS = {reward_options(cfg)!r}",
               f"reward_funcs = [make_reward(name, OPTIONS) for name in {built_in!r}]"]
    if WRITTEN_REWARD in cfg.rewards:
        rewards += ["", "# Written in the page", cfg.reward_code.strip(), "",
                    f"reward_funcs += [{', '.join(function_names(cfg.reward_code))}]"]
    weights = [float(w) for w in cfg.rewards_weights.split(",") if w.strip()]
    arg_lines = "\n".join(f"    {k}={py_value(v)}," for k, v in args["train"].items()
                          if v is not None)
    return "\n".join([
        '"""Reinforcement learning from rewards (GRPO) with TRL\'s GRPOTrainer: the '
        'settings of an SFT Studio run."""',
        "from datasets import Dataset, DatasetDict, load_dataset, load_from_disk",
        "from peft import LoraConfig",
        "from transformers import AutoModelForCausalLM, AutoTokenizer",
        "from trl import GRPOConfig, GRPOTrainer", "",
        f"model_id = {cfg.model_name_or_path!r}",
        f"tokenizer = AutoTokenizer.from_pretrained(model_id, "
        f"trust_remote_code={cfg.trust_remote_code})",
        *model_code(cfg, values), "", *data, "", *rewards, "",
        f"args = GRPOConfig(\n    output_dir={output_dir!r},\n{arg_lines}\n)",
        *([f"args.reward_weights = {weights!r}"] if weights else []),
        peft_code(cfg, values), "",
        "trainer = GRPOTrainer(model=model, reward_funcs=reward_funcs, args=args, "
        "train_dataset=dataset,",
        "    eval_dataset=eval_dataset, processing_class=tokenizer, peft_config=peft_config)",
        "trainer.train()", "trainer.save_model(args.output_dir)",
        "tokenizer.save_pretrained(args.output_dir)", ""])
