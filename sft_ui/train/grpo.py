"""The trainer of a GRPO run: TRL's GRPOTrainer with the run's prompts, the reward functions its
settings name, and each logged step's answers shown as the run's samples. The engine
(train/engine.py) loads the model, runs and saves the trainer.
"""
from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig
from sft_ui.config.grpo_settings import WRITTEN_REWARD
from sft_ui.data.formats import chat_note
from sft_ui.data.load import eval_source, hold_out
from sft_ui.data.prompts import check_prompt_dataset, load_prompts, prompt_text
from sft_ui.i18n.message import Message
from sft_ui.lazy import trl_class
from sft_ui.plan.loading import half_dtype
from sft_ui.rewards.builtin import make_reward
from sft_ui.rewards.check import preflight, weighted_total
from sft_ui.rewards.scores import text_of
from sft_ui.rewards.written import WrittenRewards
from sft_ui.stages import stage_of
from sft_ui.stages.grpo import REWARD
from sft_ui.train import grpo_warmup
from sft_ui.train.arguments import to_trl
from sft_ui.train.policy import policy

SHOWN_PER_STEP = 4  # answers of a logged step shown as samples (the newest group)


def reward_options(cfg: RunConfig) -> dict:
    """What the built-in rewards read from the settings (rewards/builtin.py's options)."""
    return {"keys": cfg.reward_keys, "column": cfg.reward_column,
            "pattern": cfg.reward_pattern, "words": cfg.reward_words,
            "avoid_words": cfg.reward_avoid_words, "target_chars": cfg.reward_target_chars,
            "max_completion_length": cfg.max_completion_length}


def reward_functions(cfg: RunConfig, written: WrittenRewards | None = None,
                     as_text: bool = False) -> list:
    """The reward functions the settings name, in their order; 'written' is every function
    of the written code (run by `written`). `as_text`: the data's text prompts became
    chat turns (formats.as_chat), and each function still gets the prompts and answers
    as text, the form of the person's own file."""
    out, options = [], reward_options(cfg)
    for name in cfg.rewards:
        if name == WRITTEN_REWARD:
            out += (written or WrittenRewards(cfg.reward_code)).functions()
        else:
            out.append(make_reward(name, options))
    return [_text_form(f) for f in out] if as_text else out


def _text_form(function):
    """`function` called with the prompts and completions as text, under its own name
    (TRL logs each reward by it)."""
    def scored(prompts, completions, **columns):
        return function(prompts=[prompt_text(p) for p in prompts],
                        completions=[text_of(c) for c in completions], **columns)
    scored.__name__ = getattr(function, "__name__", "reward")
    return scored


def reward_weights(cfg: RunConfig, functions: list) -> list[float] | None:
    """One weight per reward function (a written entry may hold several functions: they
    share its weight); None: 1 each."""
    weights = [float(w) for w in cfg.rewards_weights.split(",") if w.strip()]
    if not weights:
        return None
    written = len(functions) - (len(cfg.rewards) - 1) \
        if WRITTEN_REWARD in cfg.rewards else 0
    out = []
    for name, weight in zip(cfg.rewards, weights):
        out += [weight] * (written if name == WRITTEN_REWARD else 1)
    return out


def training_arguments(cfg: RunConfig, output_dir: Path, has_eval: bool):
    """GRPOConfig for cfg on this machine; TRL's own printing of completions off (they
    reach the run as samples)."""
    GRPOConfig = trl_class(*stage_of(cfg).config)
    values = {**to_trl(cfg, has_eval)["train"], "output_dir": str(output_dir),
              "dataloader_num_workers": 0, "disable_tqdm": True, "log_completions": False}
    return GRPOConfig(**values)


def prompt_rows(cfg: RunConfig, tokenizer):
    """(train, eval or None, the PromptData, a note on the eval rows) as datasets, the
    prompts in the form the tokenizer's model reads (load_prompts)."""
    import datasets  # heavy: loaded on first use
    data = load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split, tokenizer)
    rows, held, note = list(data.rows), None, ""
    eval_name, eval_split = eval_source(cfg)
    if eval_name:
        held = list(load_prompts(eval_name, cfg, eval_split, tokenizer).rows)
        note = Message("Eval: {held} prompts from {eval_name}.", held=len(held),
                       eval_name=eval_name)
    elif cfg.eval_fraction > 0:
        rows, held = hold_out(rows, cfg.eval_fraction, cfg.seed)
        note = Message("Eval: {held} prompts held out (seed {seed}).", held=len(held),
                       seed=cfg.seed)
    if cfg.max_train_samples and cfg.max_train_samples < len(rows):
        rows = rows[:cfg.max_train_samples]
    datasets.disable_progress_bars()
    return (datasets.Dataset.from_list(rows), datasets.Dataset.from_list(held) if held
            else None, data, note)


def completion_samples(logs: dict, step: int, weights: list[float] | None) -> list[dict]:
    """The newest group of answers GRPOTrainer logged, as the run's samples: prompt, the
    answer, and its reward (each function's score) and advantage."""
    prompts, completions = list(logs["prompt"]), list(logs["completion"])
    rewards = {name: list(values) for name, values in logs["rewards"].items()}
    advantages = list(logs["advantages"])
    rows = []
    for i in range(max(0, len(completions) - SHOWN_PER_STEP), len(completions)):
        scores = {name: values[i] for name, values in rewards.items() if i < len(values)}
        total = weighted_total(list(scores.values()), weights) or 0.0
        detail = ", ".join(f"{name} {_short(s)}" for name, s in scores.items())
        advantage = f"; advantage {advantages[i]:+.2f}" if i < len(advantages) else ""
        rows.append({"step": step, "prompt": prompt_text(prompts[i]),
                     "completion": text_of(completions[i]),
                     "reward": f"{total:.3g} ({detail}){advantage}"})
    return rows


def check_run(cfg: RunConfig) -> None:
    """GRPO's check before its run folder exists (its family's data_check): the prompts,
    then the rewards."""
    check_prompt_dataset(cfg)
    check_rewards(cfg)


def check_rewards(cfg: RunConfig) -> None:
    """Before a GRPO run folder exists: the rewards' settings and columns, the answers per
    prompt against the generation batch, and every reward function called on two rows of
    the data (a written one in its worker) so that an error in it is met now, with its
    line, rather than at the first step. RewardError or ConfigError with the fix."""
    if stage_of(cfg).family != REWARD or not cfg.dataset_name.strip():
        return
    try:
        data = load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split)
    except OSError:
        return  # a Hub dataset: its columns are checked when the run loads it
    rows = list(data.rows[:2])
    columns = sorted({k for row in data.rows[:200] for k in row})
    built_in = [name for name in cfg.rewards if name != WRITTEN_REWARD]
    found = preflight(built_in, reward_options(cfg), columns, cfg.num_generations,
                      cfg.effective_batch(), None, cfg.max_completion_length,
                      None) if built_in else []
    if found:
        raise ConfigError(found)
    with WrittenRewards(cfg.reward_code) if WRITTEN_REWARD in cfg.rewards \
            else nullcontext() as written:
        for function in reward_functions(cfg, written):
            function(prompts=[r["prompt"] for r in rows], completions=[""] * len(rows),
                     **{k: [r.get(k) for r in rows] for k in columns if k != "prompt"})


def _short(value) -> str:
    return "none" if value is None or value != value else f"{value:.3g}"


def _warmed(cfg: RunConfig, model, lora, tokenizer, as_chat: bool, output_dir: Path, log):
    """The model after the warm-up on cfg's Warm-up examples (grpo_warmup), with its LoRA
    adapter made here so that the warm-up trains it; a resumed run (a checkpoint there
    already) has it in its checkpoint."""
    if any(Path(output_dir).glob("checkpoint-*")):
        return model, lora
    rows = grpo_warmup.read(cfg.warmup_file, as_chat)
    if lora is not None:
        from peft import get_peft_model  # heavy: loaded on first use
        model, lora = get_peft_model(model, lora), None
    grpo_warmup.warm_up(model, tokenizer, rows, half_dtype(cfg), log)
    return model, lora


def grpo_trainer(cfg: RunConfig, model, tokenizer, output_dir: Path, callbacks, log):
    """GRPOTrainer for cfg, with its prompts, rewards and policy; its written rewards'
    worker closes when training ends (`trainer.close_rewards`)."""
    train_set, eval_set, data, eval_note = prompt_rows(cfg, tokenizer)
    log.info("Data: %s, %d prompts (%s form). %s", data.source.label, len(train_set),
             "conversational" if data.conversational else "standard",
             " ".join([*data.source.notes, eval_note]))
    if data.as_chat:
        log.info("%s", chat_note(cfg.model_name_or_path))
    written = WrittenRewards(cfg.reward_code) if WRITTEN_REWARD in cfg.rewards else None
    functions = reward_functions(cfg, written, data.as_chat)
    weights = reward_weights(cfg, functions)
    log.info("Rewards: %s", ", ".join(
        f"{f.__name__}" + (f" x{w:g}" if weights else "")
        for f, w in zip(functions, weights or [1.0] * len(functions))))
    args = training_arguments(cfg, output_dir, eval_set is not None)
    args.reward_weights = weights  # with a written reward's functions (to_trl leaves it out)
    trained, lora = policy(cfg, model, log)
    if cfg.warmup_file:
        trained, lora = _warmed(cfg, trained, lora, tokenizer, data.as_chat, output_dir, log)
    sinks = [c.sink for c in callbacks if hasattr(c, "sink")]
    GRPOTrainer = trl_class(*stage_of(cfg).trainer)

    # (a class found at run time: mypy cannot check it as a base)
    class StudioGRPOTrainer(GRPOTrainer):  # type: ignore[misc, valid-type]
        """GRPOTrainer whose logged answers reach the run as samples."""

        shown_step = -1  # the step whose answers the run has (the end's log repeats it)

        def log(self, logs, start_time=None):
            super().log(logs, start_time)
            step = self.state.global_step
            if self.model.training and self.accelerator.is_main_process and sinks and \
                    step != self.shown_step:
                self.shown_step = step
                rows = completion_samples(self._logs, step, weights)
                for sink in sinks:
                    sink.add_samples(rows)

        def close_rewards(self):
            if written is not None:
                written.close()

    return StudioGRPOTrainer(model=trained, reward_funcs=functions, args=args,
                             train_dataset=train_set, eval_dataset=eval_set,
                             processing_class=tokenizer, peft_config=lora,
                             callbacks=callbacks)
