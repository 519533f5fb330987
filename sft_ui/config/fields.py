"""RunConfig: every setting of a run, written once.

Owns the field names (TRL's own, so a saved file reads as a `trl sft` config),
defaults, help texts, bounds and the checks on combinations (`validate`).
The UI builds its widgets from these fields; the API and presets read them.
It knows nothing of torch, TRL or Gradio.
"""
from __future__ import annotations

import dataclasses
import difflib
import typing
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sft_ui.config.checks import problems
from sft_ui.config.values import ConfigError, coerce, from_trl, kind_of
from sft_ui.rewards.builtin import available as builtin_rewards
from sft_ui.stages import (
    LOSSES,
    PREFERENCE,
    REFERENCE,
    SFT_DEMO,
    SUPERVISED,
    UNPAIRED,
    setting_tags,
)
from sft_ui.stages import names as stage_names
from sft_ui.stages import stages as all_stages
from sft_ui.stages.grpo import REWARD

DEFAULT_MODEL_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
WRITTEN_REWARD = "written"  # the Reward functions choice for the reward written in the page
DEMO_DATASET = SFT_DEMO
PRESETS_DIR = Path(__file__).parent / "presets"

# Data formats (data/formats.py applies them); "auto" picks one from the columns.
FORMATS = ["auto", "text", "messages", "prompt/completion", "question/answer", "alpaca",
           "sharegpt", "template"]

DEFAULT_SAMPLE_PROMPTS = [
    "What is the capital of Italy?",
    "How many legs does a spider have?",
    "Give me one tip for learning to cook.",
]


# The panels of the Train tab, in page order (the first open): a field's `group` names its
# panel.
PANEL_TITLES = {"start": "Model and data", "model": "Model", "data": "Dataset",
                "preference": "Preference tuning", "rewards": "Rewards (GRPO)",
                "batch": "Batch and time", "optim": "Optimizer",
                "log": "Logging, checkpoints and samples", "eval": "Eval data",
                "hardware": "Precision and memory", "lora": "LoRA",
                "where": "Where it trains"}
# Where a setting goes in TRL: ScriptArguments, ModelConfig, and the stage's training
# arguments (SFTConfig, DPOConfig, ORPOConfig or KTOConfig).
TRL_DESTINATIONS = ("script", "model", "train")


def _f(default, help, group, minimum=None, maximum=None, choices=None, label=None,
       trl=None, plan="", card=False, advanced=False, min_exclusive=False, fit=False,
       stages=None, code=False, sweep=False):
    """A field and everything said of it once (config/registry.py derives the rest):
    help text, bounds, choices and label (widgets and checks; `min_exclusive`: the value
    must be greater than `minimum`, not equal to it); `group`, the panel it is in
    (PANEL_TITLES), and `advanced`, shown in a closed panel; `trl`, where it goes in TRL
    (TRL_DESTINATIONS; None: the studio's own); `plan`, whether the plan is made again
    when it changes ("change") or when its typed box is left ("leave"); `card`, a row
    of the model card's settings table; `fit`, Fit may change it (batch and accumulation
    for this machine's memory; for a GPU also the way to train, max_length and
    activation checkpointing: plan/planner.py and plan/modes.py decide which); `stages`,
    what stages it applies to (stages/base.py's setting_tags(): a family, or the stages with
    a reference model or loss types; None: every stage): under another stage the panels
    hide it and the run ignores it; `code`, a text of Python (a code box in the page);
    `sweep`, a sweep may vary it (sweeps/space.py).
    `choices` may be a function (read when asked)."""
    assert group in PANEL_TITLES and trl in (None, *TRL_DESTINATIONS)
    assert stages is None or set(stages) <= set(setting_tags())
    meta = {"help": help, "group": group, "min": minimum, "max": maximum,
            "min_exclusive": min_exclusive, "choices": choices, "label": label, "trl": trl,
            "plan": plan, "card": card, "advanced": advanced, "fit": fit,
            "stages": tuple(stages) if stages else None, "code": code, "sweep": sweep}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class RunConfig:
    # Model
    model_name_or_path: str = _f(
        DEFAULT_MODEL_ID, "A Hugging Face Hub id or a local folder. The default "
        "SmolLM2-135M-Instruct works offline from the copy installed with the app.",
        "start", label="Model", trl="model", plan="leave")
    trust_remote_code: bool = _f(
        False, "Run Python code shipped with the model. Only for models you trust.", "model",
        label="Trust remote code", trl="model")
    stage: str = _f(
        "sft", "What the run trains. sft: supervised fine-tuning, the model learns to write "
        "the examples' answers. dpo, orpo, kto: preference tuning, usually after sft: the "
        "model learns to prefer the chosen answer to the rejected one (DPO: pairs, kept "
        "near a reference model; ORPO: pairs, no reference; KTO: answers labelled good or "
        "bad). Preference data: 'demo-preference' (built in) or prompt/chosen/rejected "
        "rows. grpo: reinforcement learning from rewards: the model writes several answers "
        "to each prompt and learns from the ones your reward functions score higher "
        "(data: 'demo-grpo' or rows with a prompt).", "start", choices=stage_names,
        label="Stage", plan="change", card=True)
    # Data
    dataset_name: str = _f(
        DEMO_DATASET, "The data to train on: pick it from the list or type it. 'demo', "
        "'demo-preference' and 'demo-grpo' are built in (examples; preference pairs for "
        "dpo/orpo/kto; arithmetic prompts for grpo); "
        "also a Hub dataset id, an uploaded file (.jsonl, .json, .csv, .tsv, .parquet, .txt) "
        "or a folder written by save_to_disk.",
        "start", label="Dataset", trl="script", plan="change")
    time_budget_minutes: float = _f(
        0.0, "How long the run may take, from Start to the saved model (loading and samples "
        "counted). The studio turns it into steps from the measured speed (measuring it "
        "first if needed) and, for the settings left at their defaults, picks LoRA or full "
        "fine-tuning, a learning rate, loss on answers only and whole epochs on small data; "
        "the plan says what it chose. 0: off (train for Max steps or Epochs as set).",
        "start", minimum=0.0, maximum=10080.0, label="Time budget (minutes)", plan="change")
    dataset_format: str = _f(
        "auto", "How rows become training text. auto: chosen from the columns (messages, "
        "conversations, prompt/completion, instruction/output, else the text field, else a "
        "question and its answer: question/answer, input/output, 質問/回答 and the like).",
        "data", choices=FORMATS, label="Data format", plan="change", stages=[SUPERVISED])
    dataset_text_field: str = _f(
        "text", "The column holding plain text (format 'text'). Chat and "
        "prompt/completion data are recognised by their columns.", "data", label="Text field",
        trl="train", stages=[SUPERVISED])
    dataset_template: str = _f(
        "", "For format 'template': a format string over the columns, e.g. "
        "'Question: {question}\nAnswer: {answer}'. Each row becomes that text.",
        "data", label="Template", stages=[SUPERVISED])
    completion_only_loss: typing.Optional[bool] = _f(
        None, "Count the loss only on answers, not on prompts. Blank: on for "
        "prompt/completion and instruction data, off for plain text and chats "
        "(on for chats trains on the last assistant reply only).", "data",
        label="Loss on answers only", trl="train", stages=[SUPERVISED])
    prompts_as_chat: bool = _f(
        True, "For a model with a chat template: each text prompt (prompt/completion and "
        "question/answer files, a preference file's prompt, GRPO's prompts) becomes the "
        "user's turn and its answer the assistant's, in the chat template: the form Chat, "
        "Compare, Evaluate and the samples ask the model in. Off: the text reaches the "
        "model as it is (a base model's plain continuation).", "data",
        label="Text prompts as chat", advanced=True)
    txt_mode: str = _f(
        "lines", "For .txt files: one example per line, or the whole file cut into "
        "chunks of about max_length tokens.", "data", choices=["lines", "chunks"],
        label="Text file mode", stages=[SUPERVISED])
    dataset_config: str = _f("", "Hub dataset configuration name (blank for the default).",
                             "data", label="Dataset config", trl="script")
    dataset_train_split: str = _f("train", "Which split to train on.", "data",
                                  label="Train split", trl="script")
    max_train_samples: int = _f(
        0, "Use only the first N training examples (0: all). For quick tries.",
        "data", minimum=0, maximum=1_000_000_000, label="Limit training examples",
        plan="change")
    # Preference tuning (dpo, orpo, kto)
    beta: float = _f(
        0.1, "Beta: how strongly the preference is weighed. DPO and KTO: how far the model "
        "may move from the reference model (higher: stays nearer; 0.1 is common). ORPO: "
        "the weight of the preference term beside the SFT loss.", "preference", minimum=0,
        min_exclusive=True, maximum=100.0, label="Beta", trl="train", card=True,
        stages=[PREFERENCE], sweep=True)
    loss_type: str = _f(
        "auto", "The preference loss. auto: the trainer's own (DPO: sigmoid, plus the SFT "
        "term on the chosen answers when the starting model finds them far less likely "
        "than the rejected ones: a form it does not write yet, then at SFT's learning "
        "rate where the rate is left at DPO's; KTO: kto). DPO also: "
        "sigmoid+sft (DPO's loss and the SFT loss on the chosen answers), ipo, hinge, "
        "robust, apo_zero, apo_down, sigmoid_norm. KTO also: apo_zero_unpaired.",
        "preference",
        choices=lambda: ["auto", *dict.fromkeys(l for s in all_stages() for l in s.losses)],
        label="Loss type", trl="train", card=True, stages=[LOSSES])
    ref_model: str = _f(
        "", "The reference model DPO and KTO keep the model near. Blank: the model training "
        "starts from (with LoRA that is the model with the adapter switched off: no second "
        "copy in memory). Or a run's model folder, another folder or a Hub id: loaded as a "
        "second, frozen copy.", "preference", label="Reference model", plan="leave",
        stages=[REFERENCE])
    desirable_weight: float = _f(
        0.0, "KTO: the weight of the good answers' loss. 0: auto, from the label counts, so "
        "that good and bad answers weigh alike (TRL advises desirable_weight x good answers "
        "/ (undesirable_weight x bad answers) between 1 and 4/3).", "preference",
        minimum=0.0, maximum=100.0, label="Good answers' weight", trl="train", card=True,
        stages=[UNPAIRED])
    undesirable_weight: float = _f(
        0.0, "KTO: the weight of the bad answers' loss. 0: auto, from the label counts.",
        "preference", minimum=0.0, maximum=100.0, label="Bad answers' weight", trl="train",
        card=True, stages=[UNPAIRED])
    # Rewards (grpo)
    rewards: list = _f(
        ["json_answer", "exact_match"], "The reward functions that score the answers the "
        "model writes (their scores add up, times Reward weights). json_answer: 1 for a "
        "JSON object with the Required keys (part marks for JSON inside other text); "
        "exact_match: 1 when the answer equals the row's Answer column; regex: 1 when the "
        "Pattern matches; contains_words / avoids_words; length_near: near Target length; "
        "think_format: <think>...</think> then the answer; soft_overlong: penalises "
        "answers near Max completion length; written: the function written below.",
        "rewards", choices=lambda: [*builtin_rewards(), WRITTEN_REWARD],
        label="Reward functions", card=True, stages=[REWARD])
    rewards_weights: str = _f(
        "", "One weight per reward function, in their order, e.g. '1, 2'. Blank: 1 each.",
        "rewards", label="Reward weights", stages=[REWARD])
    num_generations: int = _f(
        4, "How many answers the model writes to each prompt. GRPO learns from the "
        "differences within a prompt's group: more answers, more chance that they differ, "
        "and more time per step. Must divide Batch size per device x Gradient "
        "accumulation.", "rewards", minimum=2, maximum=256, label="Answers per prompt",
        trl="train", plan="change", card=True, stages=[REWARD], sweep=True)
    max_completion_length: int = _f(
        64, "Longest answer the model writes, in tokens. Time per step grows with it.",
        "rewards", minimum=1, maximum=131072, label="Max completion length (tokens)",
        trl="train", plan="change", card=True, stages=[REWARD], sweep=True)
    temperature: float = _f(
        1.0, "Sampling temperature of the answers: higher, more varied answers (more to "
        "learn from, and more nonsense).", "rewards", minimum=0.0, min_exclusive=True,
        maximum=10.0, label="Temperature", trl="train", stages=[REWARD], sweep=True)
    warmup_file: str = _f(
        "", "A JSON lines file of prompts and replies in the form the rewards ask (\"prompt\", "
        "\"completion\"): the run first trains on them with a few SFT steps, then GRPO. "
        "GRPO learns nothing where the model never writes the form; a time budget writes "
        "such a file itself, from the model's own answers put in a regex reward's form.",
        "rewards", label="Warm-up examples", advanced=True, stages=[REWARD])
    use_vllm: bool = _f(
        False, "Write the answers with vLLM (TRL's colocate mode: in the training process, "
        "on the same GPU), far faster than transformers' generation on long answers. Needs "
        "a CUDA GPU and the vllm package (pip install vllm); vLLM keeps 30% of the GPU's "
        "memory for itself.", "rewards", label="Generate with vLLM", trl="train",
        advanced=True, stages=[REWARD])
    reward_keys: str = _f(
        "answer", "json_answer: the keys the JSON object must have, comma-separated.",
        "rewards", label="Required keys", stages=[REWARD])
    reward_column: str = _f(
        "answer", "exact_match: the data column holding the right answer.", "rewards",
        label="Answer column", stages=[REWARD])
    reward_pattern: str = _f(
        "", "regex: a Python regular expression the answer should contain.", "rewards",
        label="Pattern", advanced=True, stages=[REWARD])
    reward_words: str = _f(
        "", "contains_words: words the answer should contain, comma-separated.", "rewards",
        label="Words to contain", advanced=True, stages=[REWARD])
    reward_avoid_words: str = _f(
        "", "avoids_words: words the answer should not contain, comma-separated.",
        "rewards", label="Words to avoid", advanced=True, stages=[REWARD])
    reward_target_chars: int = _f(
        200, "length_near: the answer length (characters) that scores 1.", "rewards",
        minimum=1, maximum=1_000_000, label="Target length", advanced=True, stages=[REWARD])
    reward_code: str = _f(
        "", "Your own reward function, in Python: def my_reward(completions, **kwargs) "
        "returning one number (or None) per completion; the data's columns arrive by name "
        "(for example answer=[...]). Choose 'written' in Reward functions to use it. It "
        "runs in a separate process with a time limit, and only where the studio is your "
        "own (refused on a shared server or a Space unless it was started to allow it).",
        "rewards", label="Written reward function", stages=[REWARD], code=True)
    # Batch and time
    per_device_train_batch_size: int = _f(
        4, "Batch size: how many examples the model reads at once, in one forward and "
        "backward pass on each device. Bigger batches give steadier gradients and use the "
        "hardware better, but memory grows with them. Out of memory? Halve it and double "
        "gradient accumulation: the effective batch stays the same.",
        "batch", minimum=1, maximum=1024, label="Batch size per device",
        trl="train", plan="change", card=True, fit=True, sweep=True)
    gradient_accumulation_steps: int = _f(
        2, "Gradient accumulation: run this many batches and add up their gradients "
        "before the weights are updated once. A small batch then acts like a big one: "
        "effective batch = batch size x accumulation x devices. Costs time, not memory.",
        "batch", minimum=1, maximum=4096, label="Gradient accumulation steps",
        trl="train", plan="change", card=True, fit=True, sweep=True)
    train_by: str = _f(
        "steps", "End the run after a number of steps (predictable time) or after a "
        "number of epochs (full passes over the training data).", "batch",
        choices=["steps", "epochs"], label="Train for", plan="change", card=True)
    max_steps: int = _f(
        30, "Steps to train (when training for steps). A step is one update of the "
        "weights, made after one effective batch of examples; the number of steps bounds "
        "the time the run takes.", "batch", minimum=1, maximum=10_000_000, label="Max steps",
        trl="train", plan="change", card=True, sweep=True)
    num_train_epochs: float = _f(
        1.0, "Epochs to train (when training for epochs). One epoch is one full pass over "
        "the training data: 3 shows every example three times. Fractions allowed. Many "
        "epochs over few examples and the model learns them by heart.",
        "batch", minimum=0.01, maximum=1000.0, label="Epochs",
        trl="train", plan="change", card=True, sweep=True)
    max_length: int = _f(
        256, "Longest sequence in tokens; longer examples are truncated. "
        "Memory and time per step grow with it.", "batch", minimum=8, maximum=131072,
        label="Max length (tokens)", trl="train", plan="change", card=True, fit=True,
        stages=[SUPERVISED, PREFERENCE])  # GRPO: Max completion length
    packing: bool = _f(
        False, "Packing: put several short examples end to end into each max_length "
        "sequence instead of padding each one to the longest in its batch. No compute is "
        "spent on padding, so an epoch takes fewer steps and less time.", "batch",
        label="Packing", trl="train", plan="change", card=True, stages=[SUPERVISED])
    packing_strategy: str = _f(
        "bfd", "bfd: best-fit whole examples (long ones truncated); bfd_split: best fit, "
        "long examples split; wrapped: one stream cut every max_length tokens.", "batch",
        choices=["bfd", "bfd_split", "wrapped"], label="Packing strategy", trl="train",
        stages=[SUPERVISED])
    # Optimizer
    learning_rate: float = _f(
        1e-4, "Learning rate: how far each step moves the weights. Too high and the loss "
        "jumps or diverges; too low and the model learns little in the steps it has. "
        "Common: 1e-5 to 5e-5 for full fine-tuning, 1e-4 to 3e-4 for LoRA.",
        "optim", minimum=0, min_exclusive=True, maximum=1.0, label="Learning rate", trl="train",
        card=True, sweep=True)
    weight_decay: float = _f(0.0, "L2-style shrinkage of the weights each step.",
                             "optim", minimum=0.0, maximum=1.0, label="Weight decay",
                             trl="train", card=True)
    warmup_steps: float = _f(
        0, "Warmup: the learning rate climbs from 0 to its full value over these first "
        "steps, so the first, noisy updates do not knock the model off course. A value "
        "below 1 is a fraction of the run (0.1 = the first 10% of steps).", "optim", minimum=0,
        maximum=10_000_000, label="Warmup steps (or ratio)", trl="train", card=True, sweep=True)
    lr_scheduler_type: str = _f(
        "linear", "How the learning rate changes after warmup: linear falls to 0 by the "
        "end, cosine falls along a curve, constant stays.", "optim",
        choices=["linear", "cosine", "constant", "constant_with_warmup"], label="LR scheduler",
        trl="train", card=True)
    neftune_noise_alpha: float = _f(
        0.0, "NEFTune: noise added to the embeddings while training, often 5; can help "
        "small instruction sets generalise. 0: off.", "optim", minimum=0.0, maximum=100.0,
        label="NEFTune noise alpha", trl="train", stages=[SUPERVISED], sweep=True)
    optim: str = _f(
        "auto", "The optimizer. auto: fused AdamW (on a GPU and on a CPU), and "
        "bitsandbytes' paged 8-bit AdamW for QLoRA on a card of 24 GB or less (the plan "
        "says which and why). The 8-bit ones need a CUDA GPU and bitsandbytes.", "optim",
        choices=["auto", "adamw_torch_fused", "adamw_torch", "adamw_8bit", "paged_adamw_8bit"],
        label="Optimizer", trl="train", plan="change")
    seed: int = _f(42, "Random seed: the same seed and settings give the same run.",
                   "optim", minimum=0, maximum=2**31 - 1, label="Seed", trl="train", card=True)
    # Logging, checkpoints and samples
    logging_strategy: str = _f("steps", "Log every N steps, or once per epoch.", "log",
                               choices=["steps", "epoch"], label="Logging strategy", trl="train")
    logging_steps: int = _f(1, "Log the loss every this many optimizer steps.",
                            "log", minimum=1, maximum=1_000_000, label="Logging steps",
                            trl="train")
    save_strategy: str = _f(
        "steps", "When to write checkpoints (to resume from): every N steps, every epoch, "
        "or never (Stop still writes one).", "log", choices=["steps", "epoch", "no"],
        label="Save strategy", trl="train")
    save_steps: int = _f(
        0, "Save a checkpoint every this many steps (0: only the final model). Each "
        "full checkpoint holds weights and optimizer state: about 3x the model size.",
        "log", minimum=0, maximum=1_000_000, label="Save every N steps", trl="train")
    save_total_limit: int = _f(
        0, "Keep only the newest N checkpoints (0: keep all). Saves disk.", "log",
        minimum=0, maximum=1_000_000, label="Keep at most N checkpoints", trl="train")
    report_to: str = _f(
        "none", "Also send metrics to an experiment tracker (installed separately): "
        "tensorboard, trackio, wandb... 'none': only the studio's own view.", "log",
        label="Report to", trl="train")
    sample_steps: int = _f(
        10, "Generate answers to the sample prompts every this many steps (0: off).",
        "log", minimum=0, maximum=1_000_000, label="Sample every N steps")
    sample_max_new_tokens: int = _f(
        48, "Length of each sample answer in tokens. Left at 48 with data of your own, the "
        "run raises it to what the data's answers need (Preview data says so).", "log",
        minimum=1, maximum=2048, label="Sample length (tokens)")
    sample_prompts: list = _f(
        DEFAULT_SAMPLE_PROMPTS, "Fixed prompts answered during training, one per line. "
        "Left as they are (the demo's questions) with data of your own, the run asks "
        "questions of that data instead (Preview data shows which).",
        "log", label="Sample prompts")
    # Eval data (advanced)
    eval_dataset_name: str = _f(
        "", "Optional separate eval data: a file, folder or Hub id (blank: none).",
        "eval", label="Eval dataset", advanced=True)
    dataset_test_split: str = _f(
        "", "Optional eval split of the train dataset (or of the eval dataset), e.g. "
        "'test'. Blank: none.", "eval", label="Eval split", trl="script", advanced=True)
    eval_fraction: float = _f(
        0.0, "Hold out this fraction of the training rows for eval (fixed by the seed). "
        "0: none.", "eval", minimum=0.0, maximum=0.5, label="Held-out eval fraction",
        plan="change", advanced=True)
    eval_strategy: str = _f(
        "steps", "When to compute the eval loss (when there is eval data).", "eval",
        choices=["steps", "epoch", "no"], label="Eval strategy", trl="train", advanced=True)
    eval_steps: int = _f(10, "Compute the eval loss every this many steps (when there is "
                         "eval data).", "eval", minimum=1, maximum=1_000_000,
                         label="Eval every N steps", trl="train", advanced=True)
    # Precision and memory (advanced)
    bf16: typing.Optional[bool] = _f(
        None, "bfloat16 mixed precision. Blank: on only where the hardware has it natively.",
        "hardware", label="bf16", trl="train", plan="change", advanced=True)
    fp16: typing.Optional[bool] = _f(
        None, "float16 mixed precision with loss scaling, for CUDA GPUs without bf16 (such as "
        "a T4). Blank: on only on such a GPU.", "hardware", label="fp16",
        trl="train", plan="change", advanced=True)
    activation_checkpointing: bool = _f(
        False, "Recompute activations in the backward pass: less memory, more time.",
        "hardware", label="Activation checkpointing", trl="train", plan="change", advanced=True,
        fit=True)
    use_liger_kernel: typing.Optional[bool] = _f(
        None, "Faster steps and less memory on a CUDA GPU. Liger's fused Triton kernels for "
        "the model's layers (RMSNorm, RoPE, SwiGLU); needs the liger-kernel package. Blank: "
        "on where a CUDA GPU and the package are there.",
        "hardware", label="Liger kernels", trl="train", advanced=True)
    # Where it trains (advanced): accelerate's processes on this machine
    num_processes: typing.Optional[int] = _f(
        None, "Training processes on this machine, one per GPU (accelerate's num_processes). "
        "Auto: every GPU the machine has, 1 on a CPU. With more than one, Start launches the "
        "run as `accelerate launch` processes of the app; the effective batch grows with them.",
        "where", minimum=1, maximum=64, label="Processes", plan="change", advanced=True)
    distributed: str = _f(
        "ddp", "How several processes share the work. ddp: each GPU holds the whole model and "
        "trains on its own rows (fastest when the model's training fits one GPU). fsdp: the "
        "weights, gradients and optimizer state are split across the GPUs, for a model whose "
        "training does not fit one.", "where", choices=["ddp", "fsdp"],
        label="Strategy", plan="change", advanced=True)
    run_on: str = _f(
        "local", "local: this machine. hf_jobs: Hugging Face Jobs, on the hardware chosen "
        "below, billed to your Hugging Face account; the page follows the job like a run "
        "here, and the trained model is pushed to the Hub repo below.", "where",
        choices=["local", "hf_jobs"], label="Run on", advanced=True)
    jobs_flavor: str = _f(
        "a10g-small", "The hardware of a Hugging Face Job, e.g. cpu-basic, t4-small, "
        "l4x1, a10g-small, a100-large, h200 (huggingface.co/docs/hub/jobs).", "where",
        label="Jobs hardware", advanced=True)
    hub_model_id: str = _f(
        "", "The Hub repo (your-name/my-model) a run on Hugging Face Jobs pushes its model, "
        "metrics and samples to; created private if it does not exist.", "where",
        label="Hub repo for the model", trl="train", advanced=True)
    # LoRA, TRL's ModelConfig names (advanced)
    use_peft: bool = _f(
        False, "LoRA (low-rank adaptation): freeze the model and train small extra "
        "matrices beside its layers. Far less memory (no gradients or optimizer state for "
        "the frozen weights) and a small adapter file; results often come close to full "
        "fine-tuning.", "lora", label="Use LoRA",
        trl="model", plan="change", card=True, advanced=True, fit=True)
    lora_r: int = _f(16, "LoRA rank: the width of the adapter matrices. Higher learns more "
                     "and takes more memory; 8 to 64 is common.", "lora", minimum=1,
                     maximum=4096, label="LoRA r", trl="model", plan="change", card=True,
                     advanced=True, sweep=True)
    lora_alpha: int = _f(32, "LoRA scaling: the adapter's update is multiplied by alpha / r "
                         "(often alpha = 2 x r).",
                         "lora", minimum=1, maximum=65536, label="LoRA alpha",
                         trl="model", card=True, advanced=True, sweep=True)
    lora_dropout: float = _f(0.05, "Dropout on the adapter's input.", "lora",
                             minimum=0.0, maximum=0.99, label="LoRA dropout",
                             trl="model", plan="change", card=True, advanced=True)
    lora_target_modules: str = _f("all-linear", "Modules that get adapters.", "lora",
                                  label="LoRA target modules", trl="model", plan="leave",
                                  card=True, advanced=True)
    load_in_4bit: bool = _f(
        False, "QLoRA: the frozen base model in 4 bits, about a quarter of its memory, a "
        "little slower per step. NF4 through bitsandbytes, under the LoRA adapter; needs "
        "LoRA, a CUDA GPU and the bitsandbytes package.", "lora",
        label="Load the base in 4 bits (QLoRA)",
        trl="model", plan="change", card=True, advanced=True, fit=True)

    # ---- construction -------------------------------------------------
    @classmethod
    def from_dict(cls, values: dict | None) -> "RunConfig":
        """Build from loose input (API, UI, YAML). Raises ConfigError with every problem."""
        if values is not None and not isinstance(values, dict):
            raise ConfigError([f"Settings must be a mapping of setting names to values, like "
                               f'{{"max_steps": 10}} (got {kind_of(values)}).'])
        values = dict(values or {})
        known = {f.name: f for f in dataclasses.fields(cls)}
        errors = [_unknown(k, known) for k in values if k not in known]
        kwargs = {}
        for name, value in values.items():
            if name in known:
                try:
                    kwargs[name] = coerce(known[name], value)
                except ValueError as e:
                    errors.append(str(e))
        if errors:
            raise ConfigError(errors)
        return cls(**kwargs)

    @classmethod
    def from_yaml(cls, path: str | Path) -> "RunConfig":
        """Read a settings file (the studio's, or a `trl sft` config)."""
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as e:
            raise ConfigError([f"{Path(path).name} is not valid YAML: "
                               f"{str(e).splitlines()[0]}"]) from None
        if not isinstance(data, dict):
            raise ConfigError([f"{Path(path).name} must hold a mapping of settings "
                               "(name: value lines)."])
        return cls.from_dict(from_trl(data))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    # ---- checks ---------------------------------------------------------
    def validate(self) -> list[str]:
        """Readable messages for every bad value or combination; empty when fine."""
        return problems(self)

    def processes(self, devices: int) -> int:
        """The training processes a run of these settings starts on a machine of
        `devices` devices (plan.hardware's Hardware.devices): auto is one per device."""
        return self.num_processes or devices

    def effective_batch(self, devices: int = 1) -> int:
        return self.per_device_train_batch_size * self.gradient_accumulation_steps * devices


def load_preset(name: str) -> RunConfig:
    """A preset is a YAML file of RunConfig fields in sft_ui/config/presets/."""
    return RunConfig.from_yaml(PRESETS_DIR / f"{name}.yaml")


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))


def _unknown(name: str, known) -> str:
    """The message for a setting that does not exist: the nearest names, not all of them
    (there are over a hundred; /settings lists them)."""
    near = difflib.get_close_matches(str(name), list(known), n=3, cutoff=0.6)
    if near:
        return (f"Unknown setting '{name}'. Did you mean {' or '.join(near)}? The API's "
                "/settings lists every setting.")
    return f"Unknown setting '{name}'. The API's /settings lists every setting."
