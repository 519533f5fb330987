"""Build and run TRL's SFTTrainer from a RunConfig: the only module importing trl.

Owns the translation RunConfig -> SFTConfig with hardware-aware defaults
(bf16 only where native, activation checkpointing only when asked, fused
AdamW only on CUDA). Knows nothing of Gradio; reports through a RunSink.
"""
from __future__ import annotations

from pathlib import Path

from .callbacks import RunSink, StudioCallback
from .config import RunConfig
from .data import check_dataset, load_train_dataset
from .hardware import detect
from .models import load_model_and_tokenizer, resolve_model

MODEL_SUBDIR = "model"


def sft_config(cfg: RunConfig, output_dir: Path):
    """SFTConfig for cfg on this machine (TRL's defaults are wrong for a CPU)."""
    from trl import SFTConfig
    hw = detect()
    bf16 = hw.bf16 if cfg.bf16 is None else cfg.bf16
    return SFTConfig(
        output_dir=str(output_dir),
        per_device_train_batch_size=cfg.per_device_train_batch_size,
        gradient_accumulation_steps=cfg.gradient_accumulation_steps,
        max_steps=cfg.max_steps,
        learning_rate=cfg.learning_rate,
        weight_decay=cfg.weight_decay,
        warmup_steps=cfg.warmup_steps,
        lr_scheduler_type=cfg.lr_scheduler_type,
        logging_steps=cfg.logging_steps,
        save_strategy="steps" if cfg.save_steps else "no",
        save_steps=cfg.save_steps or 500,
        max_length=cfg.max_length,
        dataset_text_field=cfg.dataset_text_field,
        seed=cfg.seed,
        bf16=bf16,
        activation_checkpointing=cfg.activation_checkpointing,
        use_cpu=hw.device == "cpu",
        optim="adamw_torch_fused" if hw.device == "cuda" else "adamw_torch",
        report_to="none",
        disable_tqdm=True,
        dataloader_num_workers=0,
    )


def peft_config(cfg: RunConfig):
    if not cfg.use_peft:
        return None
    from peft import LoraConfig
    targets = cfg.lora_target_modules.strip()
    if targets != "all-linear":
        targets = [t.strip() for t in targets.split(",") if t.strip()]
    return LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout,
                      target_modules=targets, task_type="CAUSAL_LM")


def preflight(cfg: RunConfig) -> None:
    """Fail fast, before a run folder exists, on a model or dataset that cannot work."""
    resolve_model(cfg.model_name_or_path)
    check_dataset(cfg)


def train(cfg: RunConfig, run_dir: Path, sink: RunSink, resume_from: Path | None = None) -> Path:
    """Train to the end or until the sink asks to stop; save and return the model folder.
    With `resume_from` (a checkpoint folder) continue with its optimizer and RNG state."""
    from trl import SFTTrainer
    model_path = resolve_model(cfg.model_name_or_path)
    dataset, _fmt = load_train_dataset(cfg)
    model, tokenizer = load_model_and_tokenizer(model_path, cfg.trust_remote_code)
    callback = StudioCallback(sink, tokenizer, cfg.sample_prompts, cfg.sample_steps,
                              cfg.sample_max_new_tokens)
    trainer = SFTTrainer(model=model, args=sft_config(cfg, run_dir / "checkpoints"),
                         train_dataset=dataset, processing_class=tokenizer,
                         peft_config=peft_config(cfg), callbacks=[callback])
    trainer.train(resume_from_checkpoint=str(resume_from) if resume_from else None)
    out = run_dir / MODEL_SUBDIR
    trainer.save_model(str(out))
    tokenizer.save_pretrained(str(out))
    return out
