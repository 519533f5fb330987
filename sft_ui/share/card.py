"""The model card (README.md) of an export: base model, data, stage, settings, the run's real
losses and curve, its latest evaluation, sample answers and how to load it. The file is the
English of its lines, which are kept as Messages beside it so the page renders the card in
its own language (`written_lines`, `card_for_page`).
"""
from __future__ import annotations

import base64
import json
import mimetypes
import re
import time
from pathlib import Path

import yaml

from sft_ui.config.registry import card_names
from sft_ui.evaluate import store
from sft_ui.evaluate.metrics import NAMES
from sft_ui.i18n.message import Message, as_message, read_messages, saved_messages
from sft_ui.runs import Run
from sft_ui.runs.run import base_model_name
from sft_ui.stages import PREFERENCE, SUPERVISED, family_of, stage_of
from sft_ui.train.preference import reference_description

# A preference trainer's figures (DPO, ORPO; KTO the margin), last logged value each.
REWARD_FIGURES = {"rewards/accuracies": "final_reward_accuracy",
                  "rewards/margins": "final_reward_margin"}


def loss_figures(run: Run) -> dict:
    train = [(m["step"], m["loss"]) for m in run.metrics if "loss" in m]
    evals = [(m["step"], m["eval_loss"]) for m in run.metrics if "eval_loss" in m]
    out = {}
    if train:
        out["final_loss"], out["best_loss"] = train[-1][1], min(v for _, v in train)
    if evals:
        out["final_eval_loss"], out["best_eval_loss"] = evals[-1][1], min(v for _, v in evals)
    for key, name in REWARD_FIGURES.items():
        values = [m[key] for m in run.metrics if key in m]
        if values:
            out[name] = values[-1]
    return out


def tags(cfg) -> list[str]:
    """The card's tags: the stage ("sft", "dpo", "orpo", "kto"), TRL, the studio, LoRA."""
    return [cfg.stage, "trl", "sft-studio"] + (["lora"] if cfg.use_peft else [])


def about_lines(run: Run, cfg, what: str, checkpoint: str) -> list[str]:
    """What the model is and how it was trained: the stage, its TRL trainer and, for a
    preference stage, its reference model; another family's stage by its family's kind of
    training (GRPO: reinforcement learning from rewards, not preference tuning). Each a
    Message (`what`: English words of their own, as `kind` and the reference)."""
    stage = stage_of(cfg)
    values = {"what": as_message(what), "model": base_model_name(cfg),
              "trainer": stage.trainer[1], "data": Path(cfg.dataset_name).name,
              "count": run.step, **({"checkpoint": checkpoint} if checkpoint else {})}
    if stage.family == SUPERVISED:
        return [Message("This model is {what} of `{model}`, trained with TRL's {trainer} in SFT "
                        "Studio on `{data}` ({count} steps, {checkpoint})." if checkpoint else
                        "This model is {what} of `{model}`, trained with TRL's {trainer} in SFT "
                        "Studio on `{data}` ({count} steps).", **values)]
    if stage.family != PREFERENCE:
        return [Message("This model is {what} of `{model}`, trained by {kind} with {stage} (TRL's "
                        "{trainer}) in SFT Studio on `{data}` ({count} steps, {checkpoint})."
                        if checkpoint else
                        "This model is {what} of `{model}`, trained by {kind} with {stage} (TRL's "
                        "{trainer}) in SFT Studio on `{data}` ({count} steps).", **values,
                        kind=as_message(family_of(stage).kind), stage=stage.title)]
    return [Message("This model is {what} of `{model}`, preference-tuned with {stage} (TRL's "
                    "{trainer}) in SFT Studio on `{data}` ({count} steps, {checkpoint})."
                    if checkpoint else
                    "This model is {what} of `{model}`, preference-tuned with {stage} (TRL's "
                    "{trainer}) in SFT Studio on `{data}` ({count} steps).", **values,
                    stage=stage.title), "",
            Message("Reference model: {description}.",
                    description=reference_description(cfg))]  # (a Message)


def plot_loss(run: Run, path: Path) -> bool:
    """Save the loss curve as a PNG; False when the run logged no loss."""
    train = [(m["step"], m["loss"]) for m in run.metrics if "loss" in m]
    if not train:
        return False
    import matplotlib  # matplotlib: loaded on first use
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # matplotlib: loaded on first use
    fig, ax = plt.subplots(figsize=(6, 3.2), dpi=100)
    ax.plot(*zip(*train), label="train loss")
    evals = [(m["step"], m["eval_loss"]) for m in run.metrics if "eval_loss" in m]
    if evals:
        ax.plot(*zip(*evals), marker="o", label="eval loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def _lines_file(path: Path) -> Path:
    """Where a card's lines are kept as made (their Messages' templates and values): beside
    its export folder, not in it, so that neither the zip nor the Hub repo holds them."""
    return path.parent.parent / f".{path.parent.name}.card.json"


def write_card(run: Run, out: Path, kind: str, checkpoint: str = "") -> Path:
    """README.md in `out`: the card's lines joined, English; its lines are kept as they
    were made (`written_lines`)."""
    lines = card_lines(run, out, kind, checkpoint)
    path = out / "README.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    kept = saved_messages({"lines": lines}, ("lines",)).get("lines")
    if kept is not None:
        _lines_file(path).write_text(json.dumps(kept), encoding="utf-8")
    return path


def card_moved(folder: Path, to: Path) -> None:
    """The kept lines of the card in export folder `folder` follow it, renamed `to`."""
    kept = _lines_file(folder / "README.md")
    if kept.exists():
        kept.replace(_lines_file(to / "README.md"))


def written_lines(path: Path) -> list[str]:
    """The lines of a card's README.md: as they were made (its person-facing lines
    Messages; the front matter and a sample's answer one item of several lines) while the
    file is as it was written, else the file's, one line each."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        lines = read_messages(json.loads(_lines_file(Path(path)).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        lines = None
    return lines if isinstance(lines, list) and "\n".join(lines) == text else \
        text.split("\n")


def card_lines(run: Run, out: Path, kind: str, checkpoint: str = "") -> list[str]:
    """The card's lines (its loss curve written to `out`), some of several lines (the
    front matter, a sample's answer); the person-facing ones Messages."""
    cfg = run.config
    figures = loss_figures(run)
    has_plot = plot_loss(run, out / "loss.png")
    front = {"base_model": base_model_name(cfg), "library_name":
             "peft" if kind == "adapter" else "transformers",
             "tags": tags(cfg),
             "pipeline_tag": "text-generation"}
    if "/" in cfg.dataset_name and not Path(cfg.dataset_name).exists():
        front["datasets"] = [cfg.dataset_name]
    what = {"adapter": "a LoRA adapter", "merged": "a LoRA adapter merged into the base model",
            "full": "a full fine-tune"}[kind]
    lines = [
        "---", yaml.safe_dump(front, sort_keys=False).strip(), "---", "",
        f"# {run.name if getattr(run, 'name', '') else run.id}", "",
        *about_lines(run, cfg, what, checkpoint), "",
        _heading(Message("Results")), "",
        _row(as_message("figure"), as_message("value")), "|---|---|",
        _row(as_message("steps"), run.step),
    ]
    lines += [_row(as_message(k.replace("_", " ")), f"{v:.4f}") for k, v in figures.items()]
    if has_plot:
        lines += ["", Message("![loss curve](loss.png)")]
    lines += evaluation_lines(run)
    lines += ["", _heading(Message("Settings")), "", _row(as_message("setting"),
                                                          as_message("value")), "|---|---|"]
    lines += [f"| {k} | {getattr(cfg, k)} |" for k in card_names(cfg)]  # (names, values)
    samples = [s for s in run.samples if s["step"] == max((x["step"] for x in run.samples),
                                                          default=-1)]
    if samples:
        lines += ["", _heading(Message("Sample answers (step {step})",
                                       step=samples[0]["step"])), ""]
        for s in samples:
            lines += [f"**{s['prompt']}**", "", "> " + s["completion"].replace("\n", "\n> "), ""]
    lines += ["", _heading(Message("How to load it")), "", "```python", *load_code(kind, cfg),
              "```", ""]
    return lines


def _row(name, value) -> Message:
    """A table row of two cells, each a Message where it is words ("| final loss | 1.2 |")."""
    return Message("| {name} | {value} |", name=name, value=value)


def _heading(words: Message) -> Message:
    """A section's heading ("## Results"), its words a Message of their own."""
    return Message("## {heading}", heading=words)


def evaluation_lines(run: Run) -> list[str]:
    """The run's latest evaluation (Evaluate tab): its scores beside the other model's."""
    result = store.latest(run.dir)
    side = store.side_of(result, run.id) if result else None
    if side is None or result is None:
        return []
    models, scores = result["models"], result["scores"]
    order = [side] + [i for i in range(len(models)) if i != side]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(result["created"]))
    lines = ["", _heading(Message("Evaluation")), "",
             Message("Latest evaluation: {rows} rows of {test_set} ({when}).",
                     rows=result["rows_answered"], test_set=result["test_set"], when=when), "",
             _row(as_message("score"), " | ".join(f"`{models[i]['ref']}`" for i in order)),
             "|---" * (len(order) + 1) + "|"]
    for key, name in NAMES.items():
        values = [scores[i].get(key) for i in order]  # (a text test set's own: there only)
        if any(v is not None for v in values):
            lines.append(_row(as_message(name), " | ".join(
                "--" if v is None else f"{v:.1f}" for v in values)))
    return lines


def load_code(kind: str, cfg) -> list[str]:
    if kind == "adapter":
        return ["from peft import AutoPeftModelForCausalLM",
                "from transformers import AutoTokenizer", "",
                'model = AutoPeftModelForCausalLM.from_pretrained("PATH_OR_REPO_ID")',
                'tokenizer = AutoTokenizer.from_pretrained("PATH_OR_REPO_ID")',
                Message("# {comment}", comment=Message(
                    "the base model ({model}) is loaded with it", model=base_model_name(cfg)))]
    return ["from transformers import AutoModelForCausalLM, AutoTokenizer", "",
            'model = AutoModelForCausalLM.from_pretrained("PATH_OR_REPO_ID")',
            'tokenizer = AutoTokenizer.from_pretrained("PATH_OR_REPO_ID")']


# A Markdown image whose target is a plain relative path: ![alt](loss.png)
_RELATIVE_IMAGE = re.compile(r"!\[([^\]]*)\]\((?![a-zA-Z][\w+.-]*:|/|#)([^)\s]+)\)")


def card_for_page(text: str, folder: Path) -> str:
    """The card's body (without its YAML front matter) for a Markdown component in the
    page: a page cannot resolve the card's relative image links (`loss.png`, right on the
    Hub, where the file sits next to README.md), so each becomes a data URI of the file in
    `folder`; a link to a missing file leaves its alt text."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 3)
        if end != -1:
            text = text[end + len("\n---\n"):]
    root = Path(folder).resolve()

    def inline(match: re.Match) -> str:
        alt, target = match.group(1), match.group(2)
        path = (root / target).resolve()
        kind = mimetypes.guess_type(path.name)[0] or ""
        if not (path.is_relative_to(root) and path.is_file() and kind.startswith("image/")):
            return alt
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f"![{alt}](data:{kind};base64,{data})"

    return _RELATIVE_IMAGE.sub(inline, text)

