"""The sides `make bench` (scripts/bench.py) compares, each trained in a fresh Python
process: a training's peak memory and tokens/s (figure 4), the studio's engine or TRL's
SFTTrainer (figures 1 and 8), and figure 8's cases, rounds and table."""
from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sft_ui.config import RunConfig  # noqa: E402
from sft_ui.plan.hardware import _cpu_flags, detect  # noqa: E402

STEPS = int(os.environ.get("BENCH_STEPS", 20))
FP32 = {"bf16": False} if os.environ.get("BENCH_FP32") else {}  # as on a CPU without bf16


def fresh(code: str) -> dict:
    """The JSON that `code` prints last, run in a fresh Python process."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])



# One training in a child process: its peak memory (on a CPU the resident memory, sampled
# there: getrusage's ru_maxrss would start from the large parent's size at fork, since Linux
# keeps it across exec; on CUDA the allocator's peak plus what the process holds besides,
# the CUDA context) and its training tokens/s (the median of the logged rates, which leave
# out sampling; the first two logs hold the warm-up).
MEASURE = """
import json, statistics, sys, tempfile, threading, time
from pathlib import Path
import psutil, torch
sys.path.insert(0, {root!r})
peak, done = [0], threading.Event()
def sample():
    me = psutil.Process()
    while not done.is_set():
        peak[0] = max(peak[0], me.memory_info().rss)
        time.sleep(0.02)
threading.Thread(target=sample, daemon=True).start()
from sft_ui.config import RunConfig
from sft_ui.train.engine import train
from sft_ui.train.events import NullSink
class Rates(NullSink):
    rates = []
    def add_metrics(self, record):
        if "tokens_per_second" in record:
            self.rates.append(record["tokens_per_second"])
cfg = RunConfig.from_dict(json.loads({cfg!r}))
train(cfg, Path(tempfile.mkdtemp()), Rates())
done.set()
if torch.cuda.is_available():
    free, total = torch.cuda.mem_get_info()
    outside = total - free - torch.cuda.memory_reserved()
    peak[0] = torch.cuda.max_memory_reserved() + outside
rates = Rates.rates[2:] or Rates.rates
print(json.dumps({{"peak": peak[0], "tokens_per_second": statistics.median(rates)}}))
"""


def measure(cfg: RunConfig) -> dict:
    """{"peak": bytes, "tokens_per_second": ...} of cfg's training in a child process."""
    code = MEASURE.format(root=str(Path(__file__).resolve().parents[1]),
                          cfg=json.dumps(cfg.to_dict()))
    return fresh(code)


# The studio's side of a fresh-process comparison (`cfg` and `out` given): the engine's
# run, its logged records as `history` (scripts/grpo_speed.py runs it too).
STUDIO_SIDE = """
from sft_ui.train.engine import train
from sft_ui.train.events import NullSink
class Records(NullSink):
    history = []
    def add_metrics(self, record):
        self.history.append(record)
train(cfg, out, Records())
history = Records.history
"""

# One side of the lean-step comparison in a fresh process: TRL's SFTTrainer as a careful
# user builds it (the studio's SFTConfig: bf16 where native, plain AdamW, no activation
# checkpointing), or the studio's engine (train/lean.py's step, callbacks, run sink).
SIDE = """
import json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {root!r})
from sft_ui.config import RunConfig
cfg = RunConfig.from_dict(json.loads({cfg!r}))
out = Path(tempfile.mkdtemp())
if {side!r} == "bare":
    from sft_ui.models import load_model_and_tokenizer, resolve_model
    from sft_ui.data.tokens import load_training_data
    from sft_ui.lazy import trl
    from sft_ui.train.engine import sft_config
    _, SFTTrainer = trl()
    model, tokenizer = load_model_and_tokenizer(resolve_model(cfg.model_name_or_path))
    train_set, _ = load_training_data(cfg, tokenizer).datasets()
    trainer = SFTTrainer(model=model, args=sft_config(cfg, out), train_dataset=train_set,
                         processing_class=tokenizer)
    trainer.train()
    history = trainer.state.log_history
else:
{studio}
print(json.dumps({{"runtime": next(r["train_runtime"] for r in history if "train_runtime" in r),
                  "tokens": max(r.get("num_tokens", 0) for r in history),
                  "losses": [r["loss"] for r in history if "loss" in r]}}))
"""


def side(cfg: RunConfig, which: str) -> dict:
    """{"runtime", "tokens", "losses"} of one side ("bare" or "studio") in a fresh process."""
    code = SIDE.format(root=str(Path(__file__).resolve().parents[1]),
                       cfg=json.dumps(cfg.to_dict()), side=which,
                       studio=textwrap.indent(STUDIO_SIDE, "    "))
    return fresh(code)


def chat_file() -> str:
    """A small chat .jsonl whose rows differ in length, as people's own data does."""
    path = Path(tempfile.mkdtemp()) / "chat.jsonl"
    rows = []
    for i in range(64):
        answer = " ".join(f"step {k} of the answer" for k in range(1 + (i * 7) % 23))
        rows.append({"messages": [{"role": "user", "content": f"Question number {i}?"},
                                  {"role": "assistant", "content": answer}]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


LEAN_CASES = {
    "short": dict(max_steps=8, per_device_train_batch_size=2, gradient_accumulation_steps=2,
                  max_length=128, learning_rate=1e-5, seed=0, sample_steps=0),
    "default": dict(sample_steps=0),
}


def lean_rows(rounds: int = 2) -> list[tuple]:
    """(case, runs) for each case: three sides interleaved (careful, bare, studio, careful,
    ...), each in a fresh process. careful: a careful user's SFTTrainer script (TRL's
    defaults, bf16 included where the CPU has it, activation checkpointing off, the same
    data, batch, max_length, lr, steps and seed); bare: TRL's SFTTrainer with the studio's
    own SFTConfig (the studio's trainer class is the only difference); studio: the
    engine with its defaults."""
    rows = []
    only = os.environ.get("BENCH_CASE")
    native = bool(_cpu_flags() & {"avx512_bf16", "amx_bf16"}) or detect().device == "cuda"
    for name, extra in LEAN_CASES.items():
        if only and name != only:
            continue
        data = chat_file() if name == "short" else "demo"
        cfg = RunConfig.from_dict({"dataset_name": data, **extra, **FP32,
                                   **({"max_steps": STEPS} if name == "default" else {})})
        careful = dataclasses.replace(cfg, bf16=native and not FP32)
        runs = {"careful": [], "bare": [], "studio": []}
        for _ in range(rounds):
            for which in runs:
                runs[which].append(side(careful if which == "careful" else cfg,
                                        "studio" if which == "studio" else "bare"))
                print(name, which, runs[which][-1], flush=True)
        rows.append((name, runs))
    return rows


def print_lean(rows: list[tuple]) -> None:
    print("\n| case | careful script / studio runtime | same SFTConfig / studio runtime | "
          "tokens/s careful, same, studio | final loss careful, same, studio |"
          "\n|---|---|---|---|---|")
    for name, runs in rows:
        def ratio(side):
            r = [b["runtime"] / s["runtime"] for b, s in zip(runs[side], runs["studio"])]
            return f"{min(r):.2f}-{max(r):.2f}x"

        def speed(side):
            return f"{statistics.median(r['tokens'] / r['runtime'] for r in runs[side]):.0f}"

        def loss(side):
            return f"{statistics.mean(r['losses'][-1] for r in runs[side]):.4f}"
        print(f"| {name} | {ratio('careful')} | {ratio('bare')} | "
              f"{', '.join(speed(s) for s in runs)} | {', '.join(loss(s) for s in runs)} |")
