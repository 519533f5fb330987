"""Training speed on this machine: tokens per second remembered per model, device,
precision and what trains (speed.json in the cache), measured by `calibrate` (a few
steps on random tokens) or taken from a finished run, and the time of a round of sample
answers from a run. The plan's time per step and the time budget read it. Knows
nothing of Gradio; imports torch only to measure.
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from sft_ui.config import ConfigError, RunConfig
from sft_ui.i18n.message import Message
from sft_ui.models import cache_dir, load_model_and_tokenizer, resolve_model
from sft_ui.plan.hardware import Hardware, detect, precision, unsupported
from sft_ui.plan.kernels import liger_on
from sft_ui.plan.loading import half_dtype, load_options, peft_config
from sft_ui.plan.memory import memory_problem
from sft_ui.plan.rollouts import writes_answers
from sft_ui.stages import SUPERVISED, stage_of

# A round of sample answers this many steps or fewer before the final step (whose answers
# come anyway) is skipped, where rounds are further apart than that: it would show the same.
NEAR_END = 2


def round_steps(every: int, max_steps: int) -> list[int]:
    """The steps at which a run of `max_steps` steps writes a round of sample answers
    every `every` steps (none: []): before training (0), each due step but those NEAR_END
    or fewer before the end, and the end (train/callbacks.py samples them)."""
    if not every:
        return []
    due = (step for step in range(every, max_steps, every)
           if not (every > NEAR_END and max_steps - step <= NEAR_END))
    return sorted({0, *due, max(max_steps, 0)})


def speed_file() -> Path:
    return cache_dir() / "speed.json"


def speed_key(cfg: RunConfig, hw: Hardware) -> str:
    """Throughput depends on the model, the device, the precision and what trains."""
    mode = ("qlora" if cfg.use_peft and cfg.load_in_4bit else "lora" if cfg.use_peft
            else "full") + (" + checkpointing" if cfg.activation_checkpointing else "") + \
        (" + liger" if liger_on(cfg, hw) else "")
    stage = stage_of(cfg)  # an SFT step's key as before; another stage's its own
    return f"{cfg.model_name_or_path.strip()} | {hw.name} | " \
           f"{precision(cfg.bf16, cfg.fp16, hw)} | {mode}" + \
        ("" if stage.family == SUPERVISED else f" | {stage.name}")


def _speeds() -> dict:
    try:
        return json.loads(speed_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def remembered(cfg: RunConfig, hw: Hardware | None = None) -> dict | None:
    """What is remembered of these settings' speed on this device: `tokens_per_second`,
    and `from` "run" where a finished run measured it (its sample rounds and evaluations
    in it) rather than steps timed on random tokens; or None."""
    return _speeds().get(speed_key(cfg, hw or detect()))


def measured_speed(cfg: RunConfig, hw: Hardware | None = None) -> float | None:
    """Training tokens per second remembered for this model and device, or None."""
    entry = remembered(cfg, hw)
    return entry["tokens_per_second"] if entry else None


def calibrate(cfg: RunConfig, steps: int = 3) -> float:
    """Time `steps` training steps (forward, backward, AdamW) at cfg's batch and max_length
    on random tokens; remember and return the tokens per second (the first step warms up)."""
    import torch  # heavy: loaded on first use
    if writes_answers(cfg):
        raise ConfigError([Message("Measure speed times training steps on random tokens; a "
                                   "step of this stage is mostly the answers the model "
                                   "writes: a run of these settings measures it.")])
    hw = detect()
    problems = unsupported(cfg, hw) + [p for p in [memory_problem(cfg, hw)] if p]
    if problems:
        raise ConfigError(problems)
    options = load_options(cfg)
    model, _ = load_model_and_tokenizer(resolve_model(cfg.model_name_or_path),
                                        cfg.trust_remote_code, **options)
    if liger_on(cfg, hw):  # as transformers' Trainer applies them
        from transformers.integrations.liger import apply_liger_kernel  # heavy, as torch
        apply_liger_kernel(model, {"fused_linear_cross_entropy": False})  # as TRL does
    if cfg.activation_checkpointing:
        model.gradient_checkpointing_enable()
    if cfg.use_peft:
        from peft import get_peft_model  # heavy, as torch
        if cfg.activation_checkpointing:
            model.enable_input_require_grads()  # a frozen base passes no gradient otherwise
        model = get_peft_model(model, peft_config(cfg))
    if "device_map" not in options:  # else already on its GPU (and 4 bits cannot move)
        model.to(hw.device)
    model.train()
    half = half_dtype(cfg)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-6)
    ids = torch.randint(0, model.config.vocab_size,
                        (cfg.per_device_train_batch_size, cfg.max_length), device=hw.device)
    times = []
    for _ in range(max(steps, 2)):
        start = time.perf_counter()
        with torch.autocast(hw.device, dtype=half or torch.float32, enabled=half is not None):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if hw.device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    speed = ids.numel() / statistics.median(times[1:])
    remember(speed_key(cfg, hw), {"tokens_per_second": speed, "measured": time.time(),
                                   "batch": cfg.per_device_train_batch_size,
                                   "max_length": cfg.max_length})
    return speed


def remember_run_speed(cfg: RunConfig, log_history: list[dict]) -> float | None:
    """After a run: its tokens per second (tokens seen over the training time, samples
    included) replace the remembered speed of its settings, so the next plan and time
    budget use what a real run did. None when the run was too short to say."""
    tokens = next((r["num_tokens"] for r in reversed(log_history) if "num_tokens" in r), 0)
    runtime = next((r["train_runtime"] for r in reversed(log_history)
                    if "train_runtime" in r), 0)
    steps = sum(1 for r in log_history if "loss" in r)
    if steps < 3 or not tokens or runtime <= 0:
        return None
    speed = tokens / runtime
    remember(speed_key(cfg, detect()), {"tokens_per_second": speed, "measured": time.time(),
                                          "from": "run"})
    return speed


def _round_key(cfg: RunConfig, hw: Hardware) -> str:
    return f"{speed_key(cfg, hw)} | answers"


def remember_round(cfg: RunConfig, seconds: float) -> None:
    """After a run: the seconds its latest round of sample answers took, kept per new
    token (a round is one batch of the prompts: its time grows with its length)."""
    remember(_round_key(cfg, detect()), {
        "seconds_per_token": seconds / max(cfg.sample_max_new_tokens, 1),
        "measured": time.time()})


def round_seconds(cfg: RunConfig, hw: Hardware | None = None) -> float | None:
    """The seconds a round of cfg's sample answers takes, from a run of these settings
    (None: no run measured one yet)."""
    entry = _speeds().get(_round_key(cfg, hw or detect()))
    return entry["seconds_per_token"] * cfg.sample_max_new_tokens if entry else None


def remember(key: str, entry: dict) -> None:
    speeds = {**_speeds(), key: entry}
    speed_file().parent.mkdir(parents=True, exist_ok=True)
    tmp = speed_file().with_suffix(".tmp")
    tmp.write_text(json.dumps(speeds, indent=1), encoding="utf-8")
    tmp.replace(speed_file())
