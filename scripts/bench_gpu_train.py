"""One training of scripts/bench_gpu.py, in a process of its own (so each measures its own
peak memory, and Unsloth's patches of transformers stay in it):
`python scripts/bench_gpu_train.py studio|trl|unsloth '<RunConfig JSON>'` prints
{"tokens_per_second", "peak"} or {"error"} as one JSON line."""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.plan.hardware import installed  # noqa: E402


def train_once(system: str, values: dict) -> dict:
    """One training of `system` ("studio", "trl", "unsloth") on RunConfig `values`:
    {"tokens_per_second": median of the logged rates after two, "peak": bytes (CUDA: the
    allocator's peak plus the context; a CPU: the process's peak RSS)} or {"error"}."""
    try:
        if system == "unsloth":
            import unsloth  # noqa: F401  (before transformers, as its docs ask)
    except Exception as e:  # not installed, or no GPU it supports
        return {"error": f"unsloth does not import: {type(e).__name__}: {e}"}
    import resource

    import torch
    from transformers import TrainerCallback
    cfg, rates = RunConfig.from_dict(values), []

    class Rates(TrainerCallback):  # tokens/s between consecutive logs
        last = None

        def on_log(self, args, state, control, logs=None, **kwargs):
            now = (time.perf_counter(), state.num_input_tokens_seen or
                   (logs or {}).get("num_tokens", 0))
            if self.last and now[1] > self.last[1]:
                rates.append((now[1] - self.last[1]) / (now[0] - self.last[0]))
            self.last = now
    if system == "studio":
        from sft_ui.train.engine import train
        from sft_ui.train.events import NullSink

        class Sink(NullSink):
            def add_metrics(self, record):
                if "tokens_per_second" in record:
                    rates.append(record["tokens_per_second"])
        train(cfg, Path(tempfile.mkdtemp()), Sink())
    else:
        bare_training(system, cfg, Rates())
    if torch.cuda.is_available():
        free, total = torch.cuda.mem_get_info()
        peak = torch.cuda.max_memory_reserved() + total - free - torch.cuda.memory_reserved()
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if not rates:
        return {"error": "no training speed was logged"}
    return {"peak": peak, "tokens_per_second": statistics.median(rates[2:] or rates)}


def bare_training(system: str, cfg: RunConfig, callback) -> None:
    """A plain TRL script (or Unsloth's) at cfg's batch, max_length and checkpointing."""
    import torch
    from datasets import load_dataset
    from peft import LoraConfig
    from transformers import AutoTokenizer, BitsAndBytesConfig
    from trl import SFTConfig, SFTTrainer
    path = cfg.model_name_or_path
    data = load_dataset("json", data_files=cfg.dataset_name)["train"]
    tokenizer = AutoTokenizer.from_pretrained(path)
    gpu = torch.cuda.is_available()  # a CPU run (the tests) trains in fp32
    args = SFTConfig(output_dir=tempfile.mkdtemp(), bf16=gpu, use_cpu=not gpu,
                     max_length=cfg.max_length,
                     per_device_train_batch_size=cfg.per_device_train_batch_size,
                     gradient_accumulation_steps=cfg.gradient_accumulation_steps,
                     max_steps=cfg.max_steps, logging_steps=1, save_strategy="no",
                     report_to="none", disable_tqdm=True, dataset_text_field="text",
                     gradient_checkpointing=cfg.activation_checkpointing,
                     use_liger_kernel=system == "trl" and installed("liger_kernel"))
    lora = LoraConfig(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=0.0,
                      target_modules="all-linear", task_type="CAUSAL_LM")
    if system == "unsloth":
        from unsloth import FastLanguageModel
        model, tokenizer = FastLanguageModel.from_pretrained(
            path, max_seq_length=cfg.max_length, load_in_4bit=cfg.load_in_4bit,
            full_finetuning=not cfg.use_peft)
        if cfg.use_peft:
            model = FastLanguageModel.get_peft_model(
                model, r=cfg.lora_r, lora_alpha=cfg.lora_alpha, target_modules=[
                    "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                    "down_proj"],
                use_gradient_checkpointing="unsloth" if cfg.activation_checkpointing
                else False)
        trainer = SFTTrainer(model=model, args=args, train_dataset=data,
                             processing_class=tokenizer, callbacks=[callback])
    else:
        if cfg.load_in_4bit:
            args.model_init_kwargs = {"dtype": torch.bfloat16, "quantization_config":
                                      BitsAndBytesConfig(load_in_4bit=True,
                                                         bnb_4bit_quant_type="nf4",
                                                         bnb_4bit_compute_dtype=torch.bfloat16,
                                                         bnb_4bit_use_double_quant=True)}
        trainer = SFTTrainer(model=path, args=args, train_dataset=data,
                             processing_class=tokenizer,
                             peft_config=lora if cfg.use_peft else None, callbacks=[callback])
    trainer.train()


if __name__ == "__main__":
    print(json.dumps(train_once(sys.argv[1], json.loads(sys.argv[2]))))
