"""What this machine can do: device, native bf16, memory.

Owns the hardware-aware defaults (bf16 only where it is native: on a CPU
without avx512_bf16/amx it is emulated and 10-125x slower). Knows nothing of
runs or the UI.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import psutil


@dataclass(frozen=True)
class Hardware:
    device: str          # "cuda" or "cpu"
    name: str            # human-readable device name
    devices: int         # data-parallel devices a run would use
    bf16: bool           # native bf16 support
    memory_bytes: int    # GPU memory on CUDA, RAM on CPU
    cpu_threads: int

    def describe(self) -> str:
        gib = self.memory_bytes / 2**30
        precision = "bf16 mixed precision" if self.bf16 else "fp32 (no native bf16)"
        return f"{self.name}, {gib:.0f} GiB, {precision}"


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
    import torch
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        return Hardware("cuda", props.name, torch.cuda.device_count(),
                        torch.cuda.is_bf16_supported(), props.total_memory, os.cpu_count() or 1)
    flags = _cpu_flags()
    native_bf16 = bool(flags & {"avx512_bf16", "amx_bf16"})
    return Hardware("cpu", f"CPU ({os.cpu_count()} threads)", 1, native_bf16,
                    psutil.virtual_memory().total, os.cpu_count() or 1)


def memory_in_use() -> int:
    """Bytes the training uses now: the process's resident memory on CPU, plus the
    memory the CUDA allocator holds when a GPU is in use."""
    import torch
    used = psutil.Process().memory_info().rss
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        used += torch.cuda.memory_reserved()
    return used
