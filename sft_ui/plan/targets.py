"""The GPUs a plan can be made for besides this machine: the cards a person picks when
creating a Hugging Face Space, the A100 40 GB, H100 and any size typed in GB.

Owns each target's memory (as nvidia-smi reports it), whether it has bf16, the name
CUDA gives the card (the key of speeds measured on it), and turning a target named in
the page or the API into a Hardware description. Knows nothing of runs or the UI.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import Hardware, detect

THIS_MACHINE = "this machine"
# A plan for a target assumes requirements-gpu.txt is installed there (QLoRA, Liger).
GPU_PACKAGES = frozenset({"bitsandbytes", "liger_kernel"})


class TargetError(UserError, ValueError):
    """A target GPU the planner does not know."""


@dataclass(frozen=True)
class Target:
    key: str          # what the API takes
    label: str        # what the page shows
    memory_mib: int   # total GPU memory, as nvidia-smi reports it
    bf16: bool        # Ampere or newer; a T4 (Turing) has none
    cuda_name: str    # torch.cuda.get_device_name() on that card

    def hardware(self) -> Hardware:
        return Hardware("cuda", self.cuda_name, 1, self.bf16, self.memory_mib * 2**20, 8,
                        GPU_PACKAGES)


TARGETS = (
    Target("t4-small", "Nvidia T4 small (16 GB)", 15360, False, "Tesla T4"),
    Target("t4-medium", "Nvidia T4 medium (16 GB)", 15360, False, "Tesla T4"),
    Target("l4", "Nvidia L4 (24 GB)", 23034, True, "NVIDIA L4"),
    Target("a10g-small", "Nvidia A10G small (24 GB)", 23028, True, "NVIDIA A10G"),
    Target("a10g-large", "Nvidia A10G large (24 GB)", 23028, True, "NVIDIA A10G"),
    Target("a100-40gb", "Nvidia A100 (40 GB)", 40960, True, "NVIDIA A100-SXM4-40GB"),
    Target("a100-large", "Nvidia A100 large (80 GB)", 81920, True, "NVIDIA A100-SXM4-80GB"),
    Target("h100", "Nvidia H100 (80 GB)", 81559, True, "NVIDIA H100 80GB HBM3"),
)


def choices() -> list[tuple[str, str]]:
    """(label, key) for the page's "Plan for" list; a number typed there is a custom size."""
    return [("This machine", THIS_MACHINE), *((t.label, t.key) for t in TARGETS)]


def find(target: str | None) -> Target | None:
    """The target named by its key or label (any case), a custom "N GB" GPU, or None for
    this machine (blank). TargetError for anything else."""
    text = (target or "").strip()
    if not text or text.lower() == THIS_MACHINE:
        return None
    known = next((t for t in TARGETS if text.lower() in (t.key, t.label.lower())), None)
    if known:
        return known
    size = re.fullmatch(r"(?:custom\s*:?\s*)?(\d+(?:\.\d+)?)\s*(?:gb|gib|g)?", text.lower())
    if size and 1 <= float(size.group(1)) <= 4096:
        gb = float(size.group(1))
        return Target(f"{gb:g}gb", Message("A CUDA GPU with {size} GB (bf16 assumed)",
                                           size=f"{gb:g}"),
                      round(gb * 1024), True, f"GPU ({gb:g} GB)")
    raise TargetError(Message("Unknown GPU to plan for: '{name}'. Choose one of {names}, a "
                              "size such as '24 GB', or leave it blank for this machine.",
                              name=text, names=", ".join(t.key for t in TARGETS)))


def resolve(target: str | None) -> tuple[Hardware, int | None, str]:
    """(hardware, memory the plan may use or None for this machine's free memory, label)."""
    found = find(target)
    if found is None:
        hw = detect()
        return hw, None, Message("this machine ({device})", device=hw.describe())
    hw = found.hardware()
    return hw, hw.memory_bytes, found.label
