"""The studio's side of scripts/own_tasks.py: a task trained through the command line as a
person would start it (a fresh process, `python -m sft_ui train --config`), with a time
budget and the studio's own choices for every setting not named, then its held-out
figures asked as the Chat tab asks.

GRPO tasks (a, b, c) get the built-in `regex` reward for the form (the task's pattern) and
a reward written in the page for the right answer (own_tasks.written_reward); task s is
SFT on the prompt/completion file. Prints, and writes into the run's folder as
result.json: the load at the start, the wall time, the steps, what the studio chose and
why, the "nothing learnt" warning if any, and the held-out counts.

    .venv/bin/python scripts/own_tasks_studio.py a 10
    .venv/bin/python scripts/own_tasks_studio.py s 5 sample_steps=0 prompts_as_chat=false
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import own_tasks  # noqa: E402

CHOSEN = ("num_generations", "temperature", "max_completion_length", "learning_rate",
          "use_peft", "per_device_train_batch_size", "gradient_accumulation_steps",
          "max_steps", "num_train_epochs", "train_by")


def studio(key: str, minutes: float, extra: dict, folder: Path) -> dict:
    task, root = own_tasks.TASKS[key], Path(__file__).resolve().parents[1]
    cfg = {"dataset_name": str((folder / f"{key}_train.jsonl").resolve()),
           "time_budget_minutes": minutes}
    if key == "s":
        cfg["stage"] = "sft"
    else:
        cfg.update(stage="grpo", rewards=["regex", "written"], reward_pattern=task.pattern,
                   reward_code=own_tasks.written_reward(task))
    cfg.update(extra)
    out = (folder / f"studio-{key}-{int(time.time())}").resolve()
    out.mkdir(parents=True)
    (out / "cfg.yaml").write_text(yaml.safe_dump(cfg, allow_unicode=True))
    load = Path("/proc/loadavg").read_text().split()[:3]
    began = time.time()
    done = subprocess.run([sys.executable, "-m", "sft_ui", "train", "--config",
                           str(out / "cfg.yaml"), "--runs-dir", str(out / "runs")],
                          cwd=root, capture_output=True, text=True)
    wall = time.time() - began
    (out / "cli.log").write_text(done.stdout + done.stderr)
    run = next((out / "runs").iterdir())
    state = json.loads((run / "state.json").read_text())
    chosen = yaml.safe_load((run / "config.yaml").read_text())
    held = own_tasks.held_out(str(run), key, folder)
    result = {"task": key, "settings": extra, "load_at_start": load, "wall_s": round(wall),
              "state": state.get("state"), "error": state.get("error"),
              "steps": state.get("step"), "chosen": {k: chosen.get(k) for k in CHOSEN},
              "why": state.get("budget"), "stalled": state.get("stalled"),
              "held_out": {k: held[k] for k in ("n", "in_form", "right", "anywhere")},
              "replies": held["replies"][:3]}
    (out / "result.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return result


def main() -> int:
    key, minutes = sys.argv[1], float(sys.argv[2])
    extra = {k: yaml.safe_load(v) for k, v in (a.split("=", 1) for a in sys.argv[3:])}
    studio(key, minutes, extra, own_tasks.DEFAULT_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())
