"""RunConfig: every setting of a run, written once (the common settings' TRL names, defaults,
help and bounds, and each family's own), in page order; and the presets. Knows nothing of
torch, TRL or Gradio.
"""
from __future__ import annotations

import dataclasses
import typing  # (the settings' types name it too)
from pathlib import Path

from sft_ui.config.length import AUTO, DEFAULT_EPOCHS, DEFAULT_STEPS
from sft_ui.config.methods import RunConfigMethods
from sft_ui.config.setting import declared, ordered, setting
from sft_ui.stages import PREFERENCE, SFT_DEMO, SUPERVISED, families, family_hook
from sft_ui.stages import names as stage_names

DEFAULT_MODEL_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
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


class _Common:
    """The settings of every stage (a family's own: its "settings" hook), in page order."""
    # Model
    model_name_or_path: str = setting(
        DEFAULT_MODEL_ID, "A Hugging Face Hub id or a local folder. The default "
        "SmolLM2-135M-Instruct works offline from the copy installed with the app.",
        "start", label="Model", trl="model", plan="leave")
    trust_remote_code: bool = setting(
        False, "Run Python code shipped with the model. Only for models you trust.", "model",
        label="Trust remote code", trl="model")
    stage: str = setting(
        "sft", " ".join(["What the run trains.", *(f.about for f in families())]), "start",
        choices=stage_names,
        label="Stage", plan="change", card=True)
    # Data
    dataset_name: str = setting(
        DEMO_DATASET, "The data to train on: pick it from the list or type it. 'demo', "
        "'demo-preference' and 'demo-grpo' are built in (examples; preference pairs for "
        "dpo/orpo/kto; arithmetic prompts for grpo); "
        "also a Hub dataset id, an uploaded file (.jsonl, .json, .csv, .tsv, .parquet, .txt) "
        "or a folder written by save_to_disk.",
        "start", label="Dataset", trl="script", plan="change")
    time_budget_minutes: float = setting(
        0.0, "How long the run may take, from Start to the saved model (loading and samples "
        "counted). The studio turns it into steps from the measured speed (measuring it "
        "first if needed) and, for the settings left at their defaults, picks LoRA or full "
        "fine-tuning, a learning rate, loss on answers only and whole epochs on small data; "
        "the plan says what it chose. 0: off (train for Max steps or Epochs as set).",
        "start", minimum=0.0, maximum=10080.0, label="Time budget (minutes)", plan="change")
    dataset_format: str = setting(
        "auto", "How rows become training text. auto: chosen from the columns (messages, "
        "conversations, prompt/completion, instruction/output, else the text field, else a "
        "question and its answer: question/answer, input/output, 質問/回答 and the like).",
        "data", choices=FORMATS, label="Data format", plan="change", stages=[SUPERVISED])
    dataset_text_field: str = setting(
        "text", "The column holding plain text (format 'text'). Chat and "
        "prompt/completion data are recognised by their columns.", "data", label="Text field",
        trl="train", stages=[SUPERVISED])
    dataset_template: str = setting(
        "", "For format 'template': a format string over the columns, e.g. "
        "'Question: {question}\nAnswer: {answer}'. Each row becomes that text.",
        "data", label="Template", stages=[SUPERVISED])
    completion_only_loss: typing.Optional[bool] = setting(
        None, "Count the loss only on answers, not on prompts. Blank: on for "
        "prompt/completion and instruction data, off for plain text and chats "
        "(on for chats trains every assistant reply, each turn of the conversation).",
        "data", label="Loss on answers only", trl="train", stages=[SUPERVISED])
    enable_thinking: str = setting(
        "default", "For thinking models whose chat template takes enable_thinking (Qwen3, "
        "Nemotron-3...): on, off, or the template's default. Training, the samples and "
        "the held-out answers use it, and the model is saved with it, so Chat, Compare, "
        "Evaluate and the exports ask it the same way.", "data", choices=["default", "on",
                                                                          "off"],
        label="Thinking", advanced=True)
    mask_history: bool = setting(
        False, "With Loss on answers only, for conversations: train only the last "
        "assistant reply of each (the earlier replies become context, as in "
        "LLaMA-Factory's mask_history). Off: every reply is trained.", "data",
        label="Loss on the last answer only", advanced=True, stages=[SUPERVISED])
    prompts_as_chat: bool = setting(
        True, "For a model with a chat template: each text prompt (prompt/completion and "
        "question/answer files, a preference file's prompt, GRPO's prompts) becomes the "
        "user's turn and its answer the assistant's, in the chat template: the form Chat, "
        "Compare, Evaluate and the samples ask the model in. Off: the text reaches the "
        "model as it is (a base model's plain continuation).", "data",
        label="Text prompts as chat", advanced=True)
    txt_mode: str = setting(
        "lines", "For .txt files: one example per line, or the whole file cut into "
        "chunks of about max_length tokens.", "data", choices=["lines", "chunks"],
        label="Text file mode", stages=[SUPERVISED])
    dataset_config: str = setting("", "Hub dataset configuration name (blank for the default).",
                                  "data", label="Dataset config", trl="script")
    dataset_train_split: str = setting("train", "Which split to train on.", "data",
                                       label="Train split", trl="script")
    max_train_samples: int = setting(
        0, "Use only the first N training examples (0: all). For quick tries.",
        "data", minimum=0, maximum=1_000_000_000, label="Limit training examples",
        plan="change")
    # Preference tuning (dpo, orpo, kto)
    # Batch and time
    per_device_train_batch_size: int = setting(
        4, "Batch size: how many examples the model reads at once, in one forward and "
        "backward pass on each device. Bigger batches give steadier gradients and use the "
        "hardware better, but memory grows with them. Out of memory? Halve it and double "
        "gradient accumulation: the effective batch stays the same.",
        "batch", minimum=1, maximum=1024, label="Batch size per device",
        trl="train", plan="change", card=True, fit=True, sweep=True)
    gradient_accumulation_steps: int = setting(
        2, "Gradient accumulation: run this many batches and add up their gradients "
        "before the weights are updated once. A small batch then acts like a big one: "
        "effective batch = batch size x accumulation x devices. Costs time, not memory.",
        "batch", minimum=1, maximum=4096, label="Gradient accumulation steps",
        trl="train", plan="change", card=True, fit=True, sweep=True)
    train_by: str = setting(
        AUTO, "End the run after a number of steps (predictable time) or after a "
        "number of epochs (full passes over the training data). Left out of a settings "
        "file, it follows what the file gives: epochs train epochs, max steps train steps "
        "(both: steps, as in TRL).", "batch",
        choices=["steps", "epochs"], label="Train for", plan="change", card=True)
    max_steps: int = setting(
        DEFAULT_STEPS, "Steps to train (when training for steps). A step is one update of "
        "the weights, made after one effective batch of examples; the number of steps bounds "
        "the time the run takes.", "batch", minimum=1, maximum=10_000_000, label="Max steps",
        trl="train", plan="change", card=True, sweep=True)
    num_train_epochs: float = setting(
        DEFAULT_EPOCHS, "Epochs to train (when training for epochs). One epoch is one full "
        "pass over the training data: 3 shows every example three times. Fractions "
        "allowed. Many epochs over few examples and the model learns them by heart.",
        "batch", minimum=0.01, maximum=1000.0, label="Epochs",
        trl="train", plan="change", card=True, sweep=True)
    max_length: int = setting(
        256, "Longest sequence in tokens; longer examples are truncated. "
        "Memory and time per step grow with it.", "batch", minimum=8, maximum=131072,
        label="Max length (tokens)", trl="train", plan="change", card=True, fit=True,
        stages=[SUPERVISED, PREFERENCE])  # GRPO: Max completion length
    packing: bool = setting(
        False, "Packing: put several short examples end to end into each max_length "
        "sequence instead of padding each one to the longest in its batch. No compute is "
        "spent on padding, so an epoch takes fewer steps and less time.", "batch",
        label="Packing", trl="train", plan="change", card=True, stages=[SUPERVISED])
    packing_strategy: str = setting(
        "bfd", "bfd: best-fit whole examples (long ones truncated); bfd_split: best fit, "
        "long examples split; wrapped: one stream cut every max_length tokens.", "batch",
        choices=["bfd", "bfd_split", "wrapped"], label="Packing strategy", trl="train",
        stages=[SUPERVISED])
    # Optimizer
    learning_rate: float = setting(
        1e-4, "Learning rate: how far each step moves the weights. Too high and the loss "
        "jumps or diverges; too low and the model learns little in the steps it has. "
        "Common: 1e-5 to 5e-5 for full fine-tuning, 1e-4 to 3e-4 for LoRA.",
        "optim", minimum=0, min_exclusive=True, maximum=1.0, label="Learning rate", trl="train",
        card=True, sweep=True)
    weight_decay: float = setting(0.0, "L2-style shrinkage of the weights each step.",
                                  "optim", minimum=0.0, maximum=1.0, label="Weight decay",
                                  trl="train", card=True)
    warmup_steps: float = setting(
        0, "Warmup: the learning rate climbs from 0 to its full value over these first "
        "steps, so the first, noisy updates do not knock the model off course. A value "
        "below 1 is a fraction of the run (0.1 = the first 10% of steps).", "optim", minimum=0,
        maximum=10_000_000, label="Warmup steps (or ratio)", trl="train", card=True, sweep=True)
    lr_scheduler_type: str = setting(
        "linear", "How the learning rate changes after warmup: linear falls to 0 by the "
        "end, cosine falls along a curve, constant stays.", "optim",
        choices=["linear", "cosine", "constant", "constant_with_warmup"], label="LR scheduler",
        trl="train", card=True)
    neftune_noise_alpha: float = setting(
        0.0, "NEFTune: noise added to the embeddings while training, often 5; can help "
        "small instruction sets generalise. 0: off.", "optim", minimum=0.0, maximum=100.0,
        label="NEFTune noise alpha", trl="train", stages=[SUPERVISED], sweep=True)
    optim: str = setting(
        "auto", "The optimizer. auto: fused AdamW (on a GPU and on a CPU), and "
        "bitsandbytes' paged 8-bit AdamW for QLoRA on a card of 24 GB or less (the plan "
        "says which and why). The 8-bit ones need a CUDA GPU and bitsandbytes.", "optim",
        choices=["auto", "adamw_torch_fused", "adamw_torch", "adamw_8bit", "paged_adamw_8bit"],
        label="Optimizer", trl="train", plan="change")
    seed: int = setting(42, "Random seed: the same seed and settings give the same run.",
                        "optim", minimum=0, maximum=2**31 - 1, label="Seed", trl="train",
                        card=True)
    # Logging, checkpoints and samples
    logging_strategy: str = setting("steps", "Log every N steps, or once per epoch.", "log",
                                    choices=["steps", "epoch"], label="Logging strategy",
                                    trl="train")
    logging_steps: int = setting(1, "Log the loss every this many optimizer steps.",
                                 "log", minimum=1, maximum=1_000_000, label="Logging steps",
                                 trl="train")
    save_strategy: str = setting(
        "steps", "When to write checkpoints (to resume from): every N steps, every epoch, "
        "or never (Stop still writes one).", "log", choices=["steps", "epoch", "no"],
        label="Save strategy", trl="train")
    save_steps: int = setting(
        0, "Save a checkpoint every this many steps (0: only the final model). Each "
        "full checkpoint holds weights and optimizer state: about 3x the model size.",
        "log", minimum=0, maximum=1_000_000, label="Save every N steps", trl="train")
    save_total_limit: int = setting(
        0, "Keep only the newest N checkpoints (0: keep all). Saves disk.", "log",
        minimum=0, maximum=1_000_000, label="Keep at most N checkpoints", trl="train")
    report_to: str = setting(
        "none", "Also send metrics to an experiment tracker (installed separately): "
        "tensorboard, trackio, wandb... 'none': only the studio's own view.", "log",
        label="Report to", trl="train")
    sample_steps: int = setting(
        10, "Generate answers to the sample prompts every this many steps (0: off).",
        "log", minimum=0, maximum=1_000_000, label="Sample every N steps")
    sample_max_new_tokens: int = setting(
        48, "Length of each sample answer in tokens. Left at 48 with data of your own, the "
        "run raises it to what the data's answers need (Preview data says so).", "log",
        minimum=1, maximum=2048, label="Sample length (tokens)")
    sample_prompts: list = setting(
        DEFAULT_SAMPLE_PROMPTS, "Fixed prompts answered during training, one per line. "
        "Left as they are (the demo's questions) with data of your own, the run asks "
        "questions of that data instead (Preview data shows which).",
        "log", label="Sample prompts")
    samples_as: str = setting(
        "auto", "How the samples are asked. chat: each prompt a user's message through the "
        "model's chat template, as Chat asks. text: each prompt the opening of a text the "
        "model continues as it is, no template, as a model trained on plain text is "
        "tried. auto: text for plain-text data (the openings of rows it does not train "
        "on, beside their true continuation), chat for the rest.", "log",
        choices=["auto", "chat", "text"], label="Ask samples as")
    # Eval data (advanced)
    eval_dataset_name: str = setting(
        "", "Optional separate eval data: a file, folder or Hub id (blank: none).",
        "eval", label="Eval dataset", advanced=True)
    dataset_test_split: str = setting(
        "", "Optional eval split of the train dataset (or of the eval dataset), e.g. "
        "'test'. Blank: none.", "eval", label="Eval split", trl="script", advanced=True)
    eval_fraction: float = setting(
        0.0, "Hold out this fraction of the training rows for eval (fixed by the seed). "
        "0: none.", "eval", minimum=0.0, maximum=0.5, label="Held-out eval fraction",
        plan="change", advanced=True)
    eval_strategy: str = setting(
        "steps", "When to compute the eval loss (when there is eval data).", "eval",
        choices=["steps", "epoch", "no"], label="Eval strategy", trl="train", advanced=True)
    eval_steps: int = setting(10, "Compute the eval loss every this many steps (when there is "
                              "eval data).", "eval", minimum=1, maximum=1_000_000,
                              label="Eval every N steps", trl="train", advanced=True)
    # Precision and memory (advanced)
    bf16: typing.Optional[bool] = setting(
        None, "bfloat16 mixed precision. Blank: on only where the hardware has it natively.",
        "hardware", label="bf16", trl="train", plan="change", advanced=True)
    fp16: typing.Optional[bool] = setting(
        None, "float16 mixed precision with loss scaling, for CUDA GPUs without bf16 (such as "
        "a T4). Blank: on only on such a GPU.", "hardware", label="fp16",
        trl="train", plan="change", advanced=True)
    activation_checkpointing: bool = setting(
        False, "Recompute activations in the backward pass: less memory, more time.",
        "hardware", label="Activation checkpointing", trl="train", plan="change", advanced=True,
        fit=True)
    use_liger_kernel: typing.Optional[bool] = setting(
        None, "Faster steps and less memory on a CUDA GPU. Liger's fused Triton kernels for "
        "the model's layers (RMSNorm, RoPE, SwiGLU); needs the liger-kernel package. Blank: "
        "on where a CUDA GPU and the package are there.",
        "hardware", label="Liger kernels", trl="train", advanced=True)
    # Where it trains (advanced): accelerate's processes on this machine
    num_processes: typing.Optional[int] = setting(
        None, "Training processes on this machine, one per GPU (accelerate's num_processes). "
        "Auto: every GPU the machine has, 1 on a CPU. With more than one, Start launches the "
        "run as `accelerate launch` processes of the app; the effective batch grows with them.",
        "where", minimum=1, maximum=64, label="Processes", plan="change", advanced=True)
    distributed: str = setting(
        "ddp", "How several processes share the work. ddp: each GPU holds the whole model and "
        "trains on its own rows (fastest when the model's training fits one GPU). fsdp: the "
        "weights, gradients and optimizer state are split across the GPUs, for a model whose "
        "training does not fit one.", "where", choices=["ddp", "fsdp"],
        label="Strategy", plan="change", advanced=True)
    run_on: str = setting(
        "local", "local: this machine. hf_jobs: Hugging Face Jobs, on the hardware chosen "
        "below, billed to your Hugging Face account; the page follows the job like a run "
        "here, and the trained model is pushed to the Hub repo below.", "where",
        choices=["local", "hf_jobs"], label="Run on", advanced=True)
    jobs_flavor: str = setting(
        "a10g-small", "The hardware of a Hugging Face Job, e.g. cpu-basic, t4-small, "
        "l4x1, a10g-small, a100-large, h200 (huggingface.co/docs/hub/jobs).", "where",
        label="Jobs hardware", advanced=True)
    hub_model_id: str = setting(
        "", "The Hub repo (your-name/my-model) a run on Hugging Face Jobs pushes its model, "
        "metrics and samples to; created private if it does not exist.", "where",
        label="Hub repo for the model", trl="train", advanced=True)
    # LoRA, TRL's ModelConfig names (advanced)
    use_peft: bool = setting(
        False, "LoRA (low-rank adaptation): freeze the model and train small extra "
        "matrices beside its layers. Far less memory (no gradients or optimizer state for "
        "the frozen weights) and a small adapter file; results often come close to full "
        "fine-tuning.", "lora", label="Use LoRA",
        trl="model", plan="change", card=True, advanced=True, fit=True)
    lora_r: int = setting(16, "LoRA rank: the width of the adapter matrices. Higher learns more "
                          "and takes more memory; 8 to 64 is common.", "lora", minimum=1,
                          maximum=4096, label="LoRA r", trl="model", plan="change", card=True,
                          advanced=True, sweep=True)
    lora_alpha: int = setting(32, "LoRA scaling: the adapter's update is multiplied by alpha / r "
                              "(often alpha = 2 x r).",
                              "lora", minimum=1, maximum=65536, label="LoRA alpha",
                              trl="model", card=True, advanced=True, sweep=True)
    lora_dropout: float = setting(0.05, "Dropout on the adapter's input.", "lora",
                                  minimum=0.0, maximum=0.99, label="LoRA dropout",
                                  trl="model", plan="change", card=True, advanced=True)
    lora_target_modules: str = setting("all-linear", "Modules that get adapters.", "lora",
                                       label="LoRA target modules", trl="model", plan="leave",
                                       card=True, advanced=True)
    load_in_4bit: bool = setting(
        False, "QLoRA: the frozen base model in 4 bits, about a quarter of its memory, a "
        "little slower per step. NF4 through bitsandbytes, under the LoRA adapter; needs "
        "LoRA, a CUDA GPU and the bitsandbytes package.", "lora",
        label="Load the base in 4 bits (QLoRA)",
        trl="model", plan="change", card=True, advanced=True, fit=True)



# Every setting of a run (config/setting.py's `setting` each): the common ones (_Common)
# and each family's own, in page order.
if typing.TYPE_CHECKING:  # what the type checker reads: the same fields, as classes
    from sft_ui.config.grpo_settings import GRPOSettings
    from sft_ui.config.preference_settings import PreferenceSettings

    class RunConfig(RunConfigMethods, _Common, GRPOSettings, PreferenceSettings):
        __dataclass_fields__: typing.ClassVar[dict[str, dataclasses.Field[typing.Any]]]

        def __init__(self, **values: typing.Any) -> None: ...
else:
    RunConfig = dataclasses.make_dataclass(
        "RunConfig", ordered(declared(_Common), [declared(family_hook(f, "settings")())
                                                 for f in families() if "settings" in f.hooks]),
        bases=(RunConfigMethods,))
    RunConfig.__module__ = __name__


def load_preset(name: str) -> RunConfig:
    """A preset is a YAML file of RunConfig fields in sft_ui/config/presets/."""
    return RunConfig.from_yaml(PRESETS_DIR / f"{name}.yaml")


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.yaml"))
