"""The processes of one run (accelerate's, one per GPU) deciding together: how many there
are, and a yes that holds in all of them when any one says it. One process: itself.
"""
from __future__ import annotations

import torch
import torch.distributed as dist


def processes() -> int:
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def agree(wanted: bool, device) -> bool:
    """True in every process when any process wants it (one process: `wanted`)."""
    if processes() == 1:
        return wanted
    flag = torch.tensor([1 if wanted else 0], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag.item())
