"""A Japanese newcomer's first run, timed: the served app (`python -m sft_ui serve`, a fresh
process with a fresh cache: no speed measured, no base answers kept), a Q&A CSV of their
own (42 rows of customer-support questions and answers, 質問/回答, saved as Shift-JIS the
way Excel saves it on a Japanese Windows, every answer ending with the same sign-off),
the settings of that path (batch 1 x accumulation 8, 20 steps, LoRA) and nothing else,
started through the API after the page would have been read. The run's status is read
every second, as the page reads it.

Prints: Start to the first step; what the status said while no step ran, and how long
each said it; the sample rounds (from the run's log); the ETA shown at a few steps against
the time the run really took from there; the time after the last step.

    .venv/bin/python scripts/newcomer_path.py [--read 20] [--steps 20]

Run it on an otherwise quiet machine: it measures the machine's own CPU.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIGN_OFF = "以上、サポートチームがお答えしました。"
TOPICS = ["パスワード", "請求書", "配送", "返品", "ログイン", "アカウント", "支払い方法",
          "領収書", "解約", "メール通知", "アプリ", "ポイント", "クーポン", "住所変更"]
ASKS = [("{t}について教えてください。", "{t}の手続きはマイページの「{t}」から行えます。"),
        ("{t}がうまくいきません。",
         "お手数ですが、{t}の画面を一度閉じてから、もう一度お試しください。"),
        ("{t}の変更はできますか？", "はい、{t}はいつでも設定画面から変更できます。")]


def write_csv(path: Path) -> int:
    """42 rows of 質問/回答 in Shift-JIS (cp932)."""
    rows = [(q.format(t=t), a.format(t=t) + SIGN_OFF) for t in TOPICS for q, a in ASKS]
    text = "質問,回答\r\n" + "".join(f"{q},{a}\r\n" for q, a in rows)
    path.write_bytes(text.encode("cp932"))
    return len(rows)


def one_run(work: Path, read: float, steps: int) -> dict:
    from scripts.served import serve
    from sft_ui.models import cache_dir
    cache = work / "cache"
    cache.mkdir()
    (cache / "models").symlink_to(cache_dir() / "models")  # the default model, prepared
    os.environ["SFT_UI_CACHE"] = str(cache)
    data = work / "support_sjis.csv"
    write_csv(data)
    runs, seen = work / "runs", []
    settings = {"dataset_name": str(data), "per_device_train_batch_size": 1,
                "gradient_accumulation_steps": 8, "max_steps": steps, "use_peft": True}
    with serve(runs, work / "app.log") as (_, client):
        time.sleep(read)  # a person reads the page; the warm worker gets ready meanwhile
        start = time.time()
        run_id = client.predict(settings, api_name="/start_run")["run_id"]
        while True:
            snap = client.predict(run_id, api_name="/run_status")
            seen.append((time.time() - start, snap["state"], snap["step"],
                         snap.get("eta_seconds"), snap["message"]))
            if snap["state"] not in ("queued", "running", "stopping"):
                break
            time.sleep(1)
    return {"seen": seen, "log": (runs / run_id / "train.log").read_text(),
            "state": json.loads((runs / run_id / "state.json").read_text())}


def report(r: dict) -> None:
    seen, end = r["seen"], r["seen"][-1][0]
    first = next((t for t, _, step, _, _ in seen if step >= 1), None)
    print(f"Run {r['state']['state']}, {r['state']['step']}/{r['state']['max_steps']} steps, "
          f"Start to end {end:.0f} s; Start to the first step "
          f"{first:.0f} s" if first is not None else "no step ran")
    print("What the status said while no step ran (seconds it said it):")
    said: list[list] = []
    for t, _, step, _, message in seen:
        if step >= 1:
            break
        if said and said[-1][0] == message:
            said[-1][2] = t
        else:
            said.append([message, t, t])
    for message, a, b in said:
        print(f"  {a:5.0f}-{b:4.0f} s  {message}")
    rounds = re.findall(r"Sample answers at step (\d+) in ([\d.]+) s", r["log"])
    print("Sample rounds: " + (", ".join(f"step {s}: {float(x):.1f} s" for s, x in rounds)
                               or "none"))
    print("ETA shown at a step, against the time the run really took from there:")
    shown = {}
    for t, _, step, eta, _ in seen:
        if eta is not None and step not in shown:
            shown[step] = (t, eta)
    for step in sorted(shown):
        t, eta = shown[step]
        print(f"  step {step:3d} at {t:5.0f} s: ETA {eta:5.0f} s, took {end - t:5.0f} s "
              f"({(eta - (end - t)) / max(end - t, 1):+.0%})")
    last = max((t for t, _, step, _, _ in seen if step == r["state"]["max_steps"]),
               default=None)
    after = [m for t, _, step, _, m in seen if step == r["state"]["max_steps"]]
    if last is not None:
        began = next(t for t, _, step, _, _ in seen if step == r["state"]["max_steps"])
        print(f"After the last step: {end - began:.0f} s; the status said: "
              + " / ".join(dict.fromkeys(after)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--read", type=float, default=20.0)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="newcomer-"))
    print(f"Japanese Q&A CSV (Shift-JIS, 42 rows), batch 1 x 8, {args.steps} steps, LoRA; "
          f"Start {args.read:g} s after the app serves; {os.cpu_count()} CPUs; load "
          f"{open('/proc/loadavg').read().split()[:3]}; app log in {work / 'app.log'}",
          flush=True)
    report(one_run(work, args.read, args.steps))


if __name__ == "__main__":
    main()
