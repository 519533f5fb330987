"""Build and run TRL's SFTTrainer from a RunConfig: the only module importing trl.

Owns the trainer of a run: its SFTConfig (train/arguments.py's translation plus
this process's own arguments) and how the model is loaded for the run (fp32; a
LoRA base in bf16 on a GPU; 4 bits for QLoRA). Knows nothing
of Gradio; reports through a RunSink.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig
from sft_ui.data import DataError, TrainData, check_dataset, load_data
from sft_ui.data.formats import is_chat
from sft_ui.models import cache_dir, load_model_and_tokenizer, resolve_model
from sft_ui.plan.hardware import detect, precision, unsupported
from sft_ui.runs import log as runlog
from sft_ui.train.arguments import to_trl
from sft_ui.train.callbacks import RunSink, StudioCallback, answers_before_training, sample_prompts
from sft_ui.train.lean import studio_trainer

MODEL_SUBDIR = "model"
_TRL_IMPORT = threading.Lock()


def _trl():
    """TRL's SFTConfig and SFTTrainer. TRL's lazy first import is not thread-safe (two
    threads importing at once can get an ImportError), so it happens under a lock."""
    with _TRL_IMPORT:
        from trl import SFTConfig, SFTTrainer
    return SFTConfig, SFTTrainer


def sft_config(cfg: RunConfig, output_dir: Path, has_eval: bool | None = None):
    """SFTConfig for cfg on this machine: to_trl's values and this process's own
    arguments (where checkpoints go, no progress bars, data.py's text column)."""
    SFTConfig, _ = _trl()
    values = {**to_trl(cfg, has_eval)["sft"], "output_dir": str(output_dir),
              "dataset_text_field": "text",  # data.py puts plain text there
              "disable_tqdm": True, "dataloader_num_workers": 0}
    return SFTConfig(**values)


def peft_config(cfg: RunConfig):
    """The LoRA adapter of cfg (None without LoRA), from to_trl's ModelConfig values."""
    if not cfg.use_peft:
        return None
    from peft import LoraConfig
    model = to_trl(cfg)["model"]
    return LoraConfig(r=model["lora_r"], lora_alpha=model["lora_alpha"],
                      lora_dropout=model["lora_dropout"],
                      target_modules=model["lora_target_modules"], task_type="CAUSAL_LM")


def half_dtype(cfg: RunConfig):
    """torch's dtype for cfg's mixed precision on this machine; None for fp32."""
    import torch
    return {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision(cfg.bf16, cfg.fp16))


def load_options(cfg: RunConfig) -> dict:
    """How from_pretrained loads cfg's model on this machine. Trained weights stay fp32
    (autocast computes in half precision); a frozen LoRA base on a GPU is kept in its
    half precision, or in 4 bits for QLoRA, on this process's GPU."""
    hw, half = detect(), half_dtype(cfg)
    if not (cfg.use_peft and hw.device == "cuda" and half is not None):
        return {}
    options = {"dtype": half, "device_map": {"": int(os.environ.get("LOCAL_RANK", "0"))}}
    if cfg.load_in_4bit:
        from transformers import BitsAndBytesConfig
        options["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=half,
            bnb_4bit_use_double_quant=True)
    return options


def preflight(cfg: RunConfig) -> None:
    """Fail fast, before a run folder exists, on a model or dataset that cannot work, or on
    settings this machine cannot run."""
    problems = unsupported(cfg)
    if problems:
        raise ConfigError(problems)
    resolve_model(cfg.model_name_or_path)
    check_dataset(cfg)


def is_main_process() -> bool:
    """False in the other processes of a run launched with accelerate/torchrun."""
    return int(os.environ.get("RANK", "0")) == 0


def load_training_data(cfg: RunConfig, tokenizer) -> TrainData:
    """cfg's data in TRL's shapes for this tokenizer (chat rows need a chat template)."""
    chat = bool(getattr(tokenizer, "chat_template", None))
    data = load_data(cfg, chat=chat)
    if not chat and is_chat(data.train[0]):
        raise DataError(f"The model has no chat template, so {data.format} data cannot be "
                        "rendered. Use an instruct model, or text / prompt-completion data.")
    return data


def tokenize_rows(cfg: RunConfig, tokenizer, rows: list[dict]) -> list[dict]:
    """input_ids and labels (-100: no loss) of each row, untruncated, made by TRL's own
    dataset preparation: exactly what the trainer sees, before cutting at max_length."""
    from types import SimpleNamespace

    import datasets
    _, SFTTrainer = _trl()
    datasets.disable_progress_bars()
    args = sft_config(cfg, Path("unused"))
    args.max_length, args.shuffle_dataset = None, False
    sample = rows[0]
    only_completion = cfg.completion_only_loss
    if only_completion is None:
        only_completion = "prompt" in sample and "completion" in sample
    shim = SimpleNamespace(_tokenizer=tokenizer, chat_template=None,
                           completion_only_loss=only_completion)
    prepared = SFTTrainer._prepare_dataset(
        shim, datasets.Dataset.from_list(rows), tokenizer, args, packing=False,
        formatting_func=None, dataset_name="preview")
    return [{"input_ids": r["input_ids"], "labels": r["labels"]} for r in prepared]


def base_answers_file(model_path, cfg: RunConfig) -> Path:
    """Where the base model's answers to the sample prompts are kept between runs: one
    file per model (its files' names, sizes and times), prompts, length, precision and
    device."""
    import hashlib
    import json
    folder, mixed = Path(model_path), precision(cfg.bf16, cfg.fp16)
    files = sorted((p.name, p.stat().st_size, int(p.stat().st_mtime))
                   for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    key = json.dumps([str(folder.resolve()), files, cfg.sample_prompts,
                      cfg.sample_max_new_tokens, mixed == "bf16", mixed == "fp16",
                      cfg.load_in_4bit, detect().device])
    return cache_dir() / "base-answers" / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.json"


def answer_ahead(name: str, model, tokenizer) -> None:
    """The warm training process, with `name` loaded ahead as `model`: the base model's
    answers to the default sample prompts, kept where a run of that model with those
    prompts finds them (base_answers_file). The first run after the app started then
    reaches its first loss a generation sooner (3.4-4.1 s for the default model on a
    2-core CPU). On a CPU only: a model loaded ahead waits there, and on a GPU the run
    answers faster than a CPU would ahead."""
    cfg = RunConfig(model_name_or_path=name)
    prompts = sample_prompts(cfg.sample_prompts)
    if not cfg.sample_steps or not prompts or detect().device != "cpu":
        return
    answers_before_training(model, tokenizer, prompts, cfg.sample_max_new_tokens,
                            half_dtype(cfg), base_answers_file(resolve_model(name), cfg))


def _deadline(cfg: RunConfig, sink: RunSink, log) -> float | None:
    """When a time-budgeted run must have its model: the budget from the moment this
    (re)start began (the sink's started_at, before the model loaded), else from now."""
    if not cfg.time_budget_minutes:
        return None
    import time
    start = getattr(sink, "started_at", None) or time.time()
    log.info("Time budget %g min: training ends by %s", cfg.time_budget_minutes,
             time.strftime("%H:%M:%S", time.localtime(start + cfg.time_budget_minutes * 60)))
    return start + cfg.time_budget_minutes * 60


def train(cfg: RunConfig, run_dir: Path, sink: RunSink, resume_from: Path | None = None) -> Path:
    """Train to the end or until the sink asks to stop; save and return the model folder.
    With `resume_from` (a checkpoint folder) continue with its optimizer and RNG state."""
    _, SFTTrainer = _trl()
    from transformers import PrinterCallback
    run_dir.mkdir(parents=True, exist_ok=True)
    main = is_main_process()
    with runlog.capture(run_dir) if main else runlog.quiet() as log:
        model_path = resolve_model(cfg.model_name_or_path)
        log.info("Loading %s", cfg.model_name_or_path)
        if cfg.trust_remote_code:
            log.warning("trust_remote_code is on: the model's own Python code runs in this "
                        "process")
        model, tokenizer = load_model_and_tokenizer(model_path, cfg.trust_remote_code,
                                                    **load_options(cfg))
        if getattr(model, "loaded_ahead", False):
            log.info("The model was loaded ahead, while the app waited for Start")
        data = load_training_data(cfg, tokenizer)
        log.info("Data: %s, %d training rows, %d eval rows, format %s. %s",
                 data.source.label, len(data.train), len(data.eval or []), data.format,
                 " ".join(data.notes))
        train_set, eval_set = data.datasets()
        args = sft_config(cfg, run_dir / "checkpoints", eval_set is not None)
        callback = StudioCallback(sink, tokenizer, cfg.sample_prompts, cfg.sample_steps,
                                  cfg.sample_max_new_tokens, log,
                                  base_answers_file(model_path, cfg), half_dtype(cfg),
                                  deadline=_deadline(cfg, sink, log))
        trainer = studio_trainer(SFTTrainer)(
            model=model, args=args, train_dataset=train_set, eval_dataset=eval_set,
            processing_class=tokenizer, peft_config=peft_config(cfg), callbacks=[callback])
        trainer.remove_callback(PrinterCallback)  # the run's log has the records instead
        processes = int(os.environ.get("WORLD_SIZE", "1"))
        log.info("Training: effective batch %d on %d process%s, %s, %s%s",
                 cfg.effective_batch(processes), processes, "es" if processes > 1 else "",
                 f"{cfg.max_steps} steps" if cfg.train_by == "steps"
                 else f"{cfg.num_train_epochs:g} epochs",
                 "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32",
                 (", QLoRA (4-bit base)" if cfg.load_in_4bit else ", LoRA") if cfg.use_peft
                 else ", full fine-tuning")
        if args.use_liger_kernel:
            log.info("Liger kernels on")
        if trainer.lean:
            log.info("CPU step: the loss on labelled positions only, %s",
                     "padding-free batches" if trainer.padding_free_batches else "padded batches")
        trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
        if main and not resume_from:  # a resumed run's log mixes two starts
            from sft_ui.plan.speed import remember_run_speed
            speed = remember_run_speed(cfg, trainer.state.log_history)
            if speed:
                log.info("Remembered %.0f tokens/s for the plan of these settings", speed)
        out = run_dir / MODEL_SUBDIR
        trainer.save_model(str(out))  # the main process writes, the others wait
        if main:
            tokenizer.save_pretrained(str(out))
        log.info("Saved the model to %s", out)
    return out
