"""An evaluation's files: a summary (models, test set, settings, scores) as
evaluations/<time>.json and its predictions as <time>.predictions.jsonl and .csv, kept
in the folder of each run evaluated (else in the runs folder's evaluations/); and a
run's latest evaluation, read back for its model card and its row in the Runs history.
Knows nothing of models or of the page."""
from __future__ import annotations

import csv
import json
import time
from pathlib import Path

from sft_ui.i18n.message import Message

EVALUATIONS = "evaluations"
SIDES = ("a", "b")


def prediction_rows(result: dict) -> list[dict]:
    """One row per answered test row: prompt, reference, answer_a (answer_b), and
    whether the two answers are the same."""
    rows = []
    for row in result["rows"]:
        out = {"prompt": row["prompt"], "reference": row["reference"]}
        out.update({f"answer_{s}": a for s, a in zip(SIDES, row["answers"])})
        if len(row["answers"]) == 2:
            out["same"] = row["answers"][0] == row["answers"][1]
        rows.append(out)
    return rows


def save(result: dict, folders: list[Path]) -> dict:
    """Write the evaluation into each folder's evaluations/; the paths in the first."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(result["created"]))
    summary = {k: v for k, v in result.items() if k != "rows"}
    rows = prediction_rows(result)
    paths: dict[str, str] = {}
    for folder in folders:
        target = Path(folder) / EVALUATIONS
        target.mkdir(parents=True, exist_ok=True)
        files = {"summary": target / f"{stamp}.json",
                 "jsonl": target / f"{stamp}.predictions.jsonl",
                 "csv": target / f"{stamp}.predictions.csv"}
        files["summary"].write_text(json.dumps({**summary, "files": {
            k: p.name for k, p in files.items()}}, indent=1, ensure_ascii=False),
            encoding="utf-8")
        files["jsonl"].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                          for r in rows), encoding="utf-8")
        with open(files["csv"], "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        paths = paths or {k: str(p) for k, p in files.items()}
    return paths


def latest(run_dir: Path) -> dict | None:
    """The newest evaluation summary in a run folder, or None."""
    for path in sorted((Path(run_dir) / EVALUATIONS).glob("*.json"), reverse=True):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue  # a file cut short: look at the one before
    return None


def side_of(result: dict, run_id: str) -> int | None:
    """Which model of the evaluation is this run's own (its final model or a
    checkpoint), or None."""
    return next((i for i, m in enumerate(result.get("models", []))
                 if m.get("run_id") == run_id), None)


def headline(result: dict | None, run_id: str) -> Message | str:
    """'ROUGE-L 53.2, exact 40% (20 rows)' for this run's model, or '--'."""
    side = side_of(result, run_id) if result else None
    if side is None or result is None:
        return "--"
    s = result["scores"][side]
    rouge = "--" if s["rougeL"] is None else f"{s['rougeL']:.1f}"  # not valid for the text
    return Message("ROUGE-L {rouge}, exact {exact}% ({rows} rows)", rouge=rouge,
                   exact=f"{s['exact_match']:.0f}", rows=s["rows"])
