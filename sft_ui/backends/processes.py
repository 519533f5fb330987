"""A run on several processes of this machine: `accelerate launch` (DDP or FSDP) started as
the app's child and followed (child.py), and the one place that turns processes and a
strategy into accelerate's settings.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from sft_ui.backends.child import child_environment, end_with_parent, follow
from sft_ui.plan.hardware import detect
from sft_ui.train.events import STOP_FILE

# How FSDP shards a run: everything split, one unit per transformer layer, the whole
# model gathered in the main process when it is saved.
FSDP_OPTIONS = {"fsdp_sharding_strategy": "FULL_SHARD",
                "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                "fsdp_state_dict_type": "FULL_STATE_DICT"}


def accelerate_settings(processes: int, strategy: str, machines: int = 1) -> dict:
    """accelerate's settings for `processes` processes on each of `machines` machines,
    DDP or FSDP ("fsdp"): the keys of its config file. The one source of both the
    launch's flags here and the config file "Show code" writes (share/recipe.py)."""
    machines = max(1, int(machines))
    values: dict[str, object] = {
        "compute_environment": "LOCAL_MACHINE",
        "distributed_type": "FSDP" if strategy == "fsdp" else "MULTI_GPU",
        "num_machines": machines, "num_processes": max(1, int(processes)) * machines,
        "machine_rank": 0,
        "mixed_precision": "no",  # the run's own bf16/fp16 settings decide
        "dynamo_config": {}}
    if strategy == "fsdp":
        values["fsdp_config"] = dict(FSDP_OPTIONS)
    return values


def launch_command(run_dir: Path, processes: int, strategy: str,
                   resume_from: Path | None = None) -> list[str]:
    """`accelerate launch` of the studio's trainer on `processes` processes of this
    machine for the run in `run_dir` (accelerate_settings as flags; on a machine without
    GPUs, DDP is gloo processes)."""
    settings = accelerate_settings(processes, strategy)
    command = [sys.executable, "-m", "accelerate.commands.launch",
               "--num_processes", str(settings["num_processes"]),
               "--num_machines", str(settings["num_machines"]),
               "--main_process_port", str(_free_port()),
               "--mixed_precision", settings["mixed_precision"], "--dynamo_backend", "no"]
    if settings["distributed_type"] == "FSDP":
        command += ["--use_fsdp"]
        for key, value in settings["fsdp_config"].items():
            command += [f"--{key}", value]
    else:
        command += ["--multi_gpu"]
    command += ["-m", "sft_ui", "train", "--run-dir", str(run_dir)]
    if resume_from is not None:
        command += ["--resume", str(resume_from)]
    return command


def train_in_processes(cfg, run_dir: Path, sink, resume_from: Path | None = None,
                       start=subprocess.Popen) -> Path:
    """Train the run in `run_dir` (its config.yaml is cfg) on cfg.processes() processes,
    feeding their events to `sink` (the app's Run); return the model folder. The
    processes train with `python -m sft_ui train --run-dir` and only the main one reports,
    so the run looks like one trained in the app. A stop is the folder's stop file, which
    the processes agree on at each step's end (train/callbacks.py), so all of them save
    and stop at the same step; a failure raises with their last lines. `start`: what
    starts the launcher (the served app's: WarmWorker.start)."""
    hw = detect()
    processes = cfg.processes(hw.devices)
    command = launch_command(run_dir, processes, cfg.distributed, resume_from)
    env = child_environment(getattr(sink, "deadline", None))
    if hw.device == "cpu":  # the processes share the cores instead of each taking all
        env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // processes)))
    (run_dir / STOP_FILE).unlink(missing_ok=True)
    child = start(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                  stdin=subprocess.DEVNULL, text=True, bufsize=1, env=env,
                  start_new_session=True, preexec_fn=end_with_parent)
    return follow(child, run_dir, sink)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
