"""What this machine can do (device, native bf16, memory, optional speed-ups), the
hardware-aware defaults that follow, and which settings this machine cannot run. Knows
nothing of runs or the UI.
"""
from __future__ import annotations

import functools
import gc
import importlib.util
import os
import time
from dataclasses import dataclass

import psutil

from sft_ui.i18n.message import Message


@dataclass(frozen=True)
class Hardware:
    device: str          # "cuda" or "cpu"
    name: str            # human-readable device name
    devices: int         # data-parallel devices a run would use
    bf16: bool           # native bf16 support
    memory_bytes: int    # GPU memory on CUDA, RAM on CPU
    cpu_threads: int
    # The optional packages (module names) installed there; None: look on this machine.
    packages: frozenset | None = None

    def has(self, module: str) -> bool:
        return module in self.packages if self.packages is not None else installed(module)

    def describe(self) -> Message:
        gib = self.memory_bytes / 2**30
        precision = "bf16 mixed precision" if self.bf16 else \
            "fp16 mixed precision (no bf16)" if self.device == "cuda" else \
            "fp32 (bf16 not native or not faster here)"
        return Message("{device}, {memory} GiB, {text}", device=self.name, memory=f"{gib:.0f}",
                       text=Message(precision))


CPU_BF16 = "SFT_UI_CPU_BF16"  # "1"/"0": bf16_pays's answer, as the app measured it


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


@functools.lru_cache(maxsize=1)
def detect() -> Hardware:
    """This machine: CUDA's first device, else the CPU. A CPU's bf16 counts as native only
    with avx512_bf16 or AMX, and only where it pays (`bf16_pays`): emulated, it is many
    times slower than fp32 (docs/benchmarks.md#precision-on-a-cpu)."""
    import torch  # heavy: torch loaded on first use
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        return Hardware("cuda", props.name, torch.cuda.device_count(),
                        torch.cuda.is_bf16_supported(), props.total_memory, os.cpu_count() or 1)
    flags = _cpu_flags()
    native_bf16 = bool(flags & {"avx512_bf16", "amx_bf16"}) and bf16_pays()
    return Hardware("cpu", Message("CPU ({threads} threads)", threads=os.cpu_count()), 1,
                    native_bf16,
                    psutil.virtual_memory().total, os.cpu_count() or 1)


def memory_in_use() -> int:
    """Bytes the training uses now: the process's resident memory on CPU, plus the
    memory the CUDA allocator holds when a GPU is in use."""
    import torch  # heavy: torch loaded on first use
    used = psutil.Process().memory_info().rss
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        used += torch.cuda.memory_reserved()
    return used


def bf16_pays() -> bool:
    """Whether bf16 matrix products beat fp32 ones on this CPU by a fifth, at a small
    model's training shape (a 512-token batch through a 576 x 1536 layer). With AMX bf16
    is far faster; with avx512_bf16 alone (no AMX) it is slower than fp32, and autocast
    adds a cast of every weight per forward (docs/benchmarks.md, Precision on a CPU).
    Timed on one thread, the two precisions in turn, the best of several rounds each: the
    app measures while it starts (its imports, the training process's warm-up take both
    cores), where a one-shot timing on two threads read bf16 as faster than it trains. A
    training process the app started takes the app's answer (CPU_BF16 in its
    environment), so the plan and the run agree."""
    told = os.environ.get(CPU_BF16)
    if told in ("0", "1"):
        return told == "1"

    import torch  # heavy: torch loaded on first use
    a, b = torch.randn(512, 576), torch.randn(576, 1536)
    pairs = {torch.float32: (a, b), torch.bfloat16: (a.bfloat16(), b.bfloat16())}
    best: dict = {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a preempted thread pauses its own product only
    try:
        for _ in range(6):
            for dtype, (x, y) in pairs.items():
                x @ y
                start = time.perf_counter()
                for _ in range(2):
                    x @ y
                best[dtype] = min(best.get(dtype, float("inf")), time.perf_counter() - start)
    finally:
        torch.set_num_threads(threads)
    return best[torch.float32] > 1.2 * best[torch.bfloat16]


def precision(bf16: bool | None, fp16: bool | None, hw: Hardware | None = None) -> str:
    """"bf16", "fp16" or "fp32": the mixed precision a run trains in. Auto (None) picks
    bf16 where the hardware has it natively, fp16 on a CUDA GPU without it, else fp32."""
    hw = hw or detect()
    if bf16 or (bf16 is None and not fp16 and hw.bf16):
        return "bf16"
    if fp16 or (fp16 is None and hw.device == "cuda" and not hw.bf16):
        return "fp16"
    return "fp32"


def installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


# The speed-ups that need a CUDA GPU and a package: (label, setting, module, pip package).
OPTIONAL = (("Load the base in 4 bits (QLoRA)", "load_in_4bit", "bitsandbytes", "bitsandbytes"),
            ("Liger kernels", "use_liger_kernel", "liger_kernel", "liger-kernel"),
            ("An 8-bit optimizer", "optim", "bitsandbytes", "bitsandbytes"),
            ("Generate with vLLM (GRPO)", "use_vllm", "vllm", "vllm"))


def _on(cfg, setting: str) -> bool:
    value = getattr(cfg, setting)
    return value in ("adamw_8bit", "paged_adamw_8bit") if setting == "optim" else bool(value)


def speedups(hw: Hardware | None = None) -> list[Message]:
    """Which of the optional speed-ups this machine can run, a sentence each."""
    hw = hw or detect()
    if hw.device != "cuda":
        return [Message("QLoRA (a 4-bit base) and Liger kernels need a CUDA GPU: this machine "
                        "has none.")]
    return [Message("{label}: ready ({package} is installed)." if installed(module) else
                    "{label}: needs the {package} package (pip install {package}, then "
                    "restart).", label=Message(label), package=package)
            for label, _, module, package in OPTIONAL[:2]]


def unsupported(cfg, hw: Hardware | None = None, fixes: bool = True) -> list[Message]:
    """Why this machine cannot run cfg's precision and speed-up settings (empty: it can);
    `fixes`: with what to change in the settings (not where a way to train is weighed)."""
    hw = hw or detect()
    problems = []
    if cfg.fp16 and hw.device != "cuda":
        problems.append(Message("fp16 mixed precision needs a CUDA GPU, and this machine has "
                                "none: set fp16 to auto."))
    if cfg.bf16 and hw.device == "cuda" and not hw.bf16:
        problems.append(Message("This GPU ({name}) has no bf16: set bf16 to auto, which "
                                "trains in fp16 here.", name=hw.name))
    processes, gpus = cfg.processes(hw.devices), hw.devices
    if hw.device == "cuda" and processes > hw.devices:
        problems.append(Message("Processes ({processes}) is more than the {gpus} GPU(s) of "
                                "this machine: set it to auto or at most the number of GPUs.",
                                processes=processes, gpus=gpus))
    if cfg.distributed == "fsdp" and (hw.device != "cuda" or processes < 2):
        problems.append(Message("The fsdp strategy splits the model across GPUs: it needs a "
                                "CUDA machine and at least 2 processes. Choose ddp here."))
    for label, setting, module, package in OPTIONAL:
        on = _on(cfg, setting)
        if on and hw.device != "cuda":
            problems.append(Message("{label}: a CUDA GPU is needed, and this machine has none. "
                                    "Turn it off." if fixes else "{label}: a CUDA GPU is "
                                    "needed, and this machine has none.", label=Message(label)))
        elif on and not hw.has(module):
            problems.append(Message("{label}: the {package} package is needed. pip install "
                                    "{package} (or requirements-gpu.txt), then restart.",
                                    label=Message(label), package=package))
    return problems


def release_memory() -> None:
    """Give back what a finished or failed run held: objects in reference cycles, and the
    GPU memory PyTorch's allocator keeps cached."""
    gc.collect()
    import torch  # heavy: torch loaded on first use
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.empty_cache()
