"""The plan in words: the full plan (tokens per step, peak memory by part against the
machine, time per step and padding, the stage's own sentences) and its one-line summary,
the time budget's choices, and the run's pace beside the plan while it trains; each
sentence a Message, said in the page's language. The arithmetic is plan/planner.py's;
ui/plan_panel.py shows these texts in the page."""
from __future__ import annotations

from sft_ui.i18n.message import Message, as_message, joined_sentences
from sft_ui.plan.memory import size_text
from sft_ui.plan.planner import duration_text
from sft_ui.ui import target_plan
from sft_ui.ui.lang import say

NO_PLAN = "no plan"  # the kind of the plan line that says why no plan could be made

PARTS = [("weights", "weights"), ("gradients", "gradients"),
         ("optimizer", "optimizer state (AdamW)"), ("activations", "activations"),
         ("logits", "logits and loss"), ("reference", "reference model"),
         ("generation", "answers' KV cache (beyond the step's own)"),
         ("vllm", "vLLM's share of the GPU (its weights and KV cache)"),
         ("runtime", "runtime")]
RUNTIME = {"cpu": "runtime (Python and its libraries)", "cuda": "runtime (CUDA context)"}


class _Joined(Message):
    """Sentences said one after the other as one Message: in English a space between
    them, in a language whose sentences end in a full stop of its own ("。") none after
    it, as the translator joins sentences. Its template only places them; each is
    rendered from its own."""

    def render(self, lookup) -> str:
        return joined_sentences(part.render(lookup) if isinstance(part, Message) else str(part)
                                for part in self.args.values())


def _joined(*parts: str) -> Message:
    return _Joined(" ".join(f"{{part{n}}}" for n in range(len(parts))),
                   **{f"part{n}": part for n, part in enumerate(parts)})


def budget_markdown(p: dict) -> str:
    """What the time budget chose (nothing without a budget), in the page's language."""
    if not p.get("budget_minutes"):
        return ""
    lines = [say(Message("**Time budget, {minutes} min,** chose:",
                         minutes=f"{p['budget_minutes']:g}"))]
    lines += [f"- {say(reason)}" for reason in p["budget"]] or \
        [f"- {say(Message('nothing: every setting it would choose is set'))}"]
    if p["budget_needs_speed"] and p.get("budget_fits_in_run"):  # a paragraph of its own
        lines.append("\n" + say(Message("The speed of these settings is not measured yet: "
                                         "the run's first steps measure it (they train), "
                                         "then set the number of steps.")))
    elif p["budget_needs_speed"]:
        lines.append("\n" + say(Message("The speed of these settings is not measured yet: "
                                         "Start measures it first (a few steps, counted in "
                                         "the budget), then sets the number of steps.")))
    return "\n".join(lines)


def plan_markdown(p: dict) -> str:
    """The plan in full, in the page's language: each of its sentences said on its own (a
    Message rendered from its template, nested values too)."""
    m = p["memory"]
    lines = [budget_markdown(p), say(_tokens_line(p))]
    if p.get("sized"):  # what the run's start sizes from the data (data/sized.py)
        lines.insert(1, "\n".join([say(Message("**Sized from the data** (settings left at "
                                                "their defaults):")),
                                    *(f"- {say(line)}" for line in p["sized"])]))
    if p.get("budget_needs_speed"):
        lines.append(say(Message("**Run:** the steps that fit the time budget, set by the "
                                 "run's first steps.")))
    elif p["steps"]:
        lines.append(say(Message("**Run:** {count} steps, at most {tokens} tokens.",
                                 count=f"{p['steps']:,}", tokens=f"{p['total_tokens']:,}")))
    else:
        lines.append(say(Message("**Run:** the number of steps is unknown until the data is "
                                 "measured.")))
    if p.get("length_note"):  # a length given and not used (config/length.py)
        lines.append(say(p["length_note"]))
    where = Message("GPU memory") if p["device"] == "cuda" else Message("RAM")
    lines.append(say(Message(
        "**Peak memory** ({where}, {precision}, {trained} of {params} parameters trained): "
        "about {total} of {available} available: **{fit}**", where=where,
        precision=p["precision"], trained=_count(p["trainable_params"]),
        params=_count(p["params"]), total=size_text(m["total"]),
        available=size_text(p["available_bytes"]), fit=as_message(p["fit"]))))
    lines += [say(note) for note in p.get("memory_notes") or []]
    rows = [Message("| {label} | {size} |", size=size_text(m[key]), label=as_message(
        RUNTIME.get(p["device"], label) if key == "runtime" else label))
        for key, label in PARTS if key in m]  # each row said on its own
    lines.append("\n".join(say(row) for row in [
        "| part | size |", "|---|---:|", *rows,
        Message("| **total** | **{size}** |", size=size_text(m["total"]))]))
    if p.get("strategy"):
        lines.append(say(Message("**{processes} processes:** {reason}",
                                 processes=p["processes"], reason=p["strategy"]["reason"])))
    lines.append(say(_time_line(p)))
    if p.get("disk"):
        lines.append(say(_disk_line(p["disk"])))
    lines.append(say(_padding_line(p) or p.get("data_note", "")))
    lines += [say(note) for note in p.get("data_notes") or []]  # how the data was read
    if p.get("modes"):
        lines.append(target_plan.modes_markdown(p))  # (said there, part by part)
    return "\n\n".join(line for line in lines if line)


def _count(n: int) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _tokens_line(p: dict) -> Message:
    tokens, typical = f"{p['tokens_per_step']:,}", f"{p['tokens_per_step_typical']:,}"
    what = Message("the prompt and the longest answer") if p.get("writes_answers") else \
        "max_length"
    if p["padding"] and p["tokens_per_step_typical"] != p["tokens_per_step"]:
        return Message("**Tokens per optimizer step:** at most {tokens} (effective batch x "
                       "{what}; shorter rows are padded only to the longest in their batch), "
                       "about {typical} with this data.", tokens=tokens, what=what,
                       typical=typical)
    return Message("**Tokens per optimizer step:** at most {tokens} (effective batch x {what}; "
                   "shorter rows are padded only to the longest in their batch).",
                   tokens=tokens, what=what)


def _time_line(p: dict) -> Message:
    if not p["seconds_per_step"] and p.get("for_target"):
        return Message("**Time:** not measured on {device} for these settings yet (Measure "
                       "speed measures this machine; a run there remembers its speed).",
                       device=p["device_name"])
    if not p["seconds_per_step"] and p.get("writes_answers"):
        return Message("**Time:** not measured yet for these settings: a step of this stage "
                       "is mostly the answers the model writes, so a run of them measures it "
                       "(a time budget sets the steps on the run's first steps).")
    if not p["seconds_per_step"]:
        return Message("**Time:** not measured yet for this model, device and precision: "
                       "press *Measure speed* (a few training steps).")
    parts = [Message("**Time:** {duration} per step ({speed} tokens/s measured on {device}).",
                     duration=duration_text(p["seconds_per_step"]),
                     speed=f"{p['tokens_per_second']:,.0f}", device=p["device_name"])]
    if p["seconds_total"] and p.get("round_seconds"):
        parts.append(Message("{count} steps with {rounds} rounds of sample answers (about "
                             "{seconds} s each, measured in a run): {duration}.",
                             count=f"{p['steps']:,}", rounds=p["sample_rounds"],
                             seconds=f"{p['round_seconds']:.0f}",
                             duration=duration_text(p["seconds_total"])))
    elif p["seconds_total"]:
        parts.append(Message("{count} steps: {duration}.", count=f"{p['steps']:,}",
                             duration=duration_text(p["seconds_total"])))
    if p["padding"] is None and not p["packing"]:
        parts.append(Message("At most: every answer counted at its longest.")
                     if p.get("writes_answers") else
                     Message("At most: every row counted at max_length."))
    return _joined(*parts)


def _disk_line(d: dict) -> Message:
    """What the run's checkpoints and model take on disk, against the free disk; how to
    keep fewer checkpoints, beside it; a warning where it will not fit."""
    parts = [Message("**Disk:** each checkpoint about {checkpoint} (the trained weights and "
                     "the optimizer's state, to resume from); the model saved at the end "
                     "{model}.", checkpoint=size_text(d["checkpoint"]),
                     model=size_text(d["model"]))]
    if d["kept"] is None:
        parts.append(Message("Checkpoints written: one per save, as many as the steps the "
                             "run sets allow."))
    elif not d["written"]:
        parts.append(Message("No checkpoint is written as it trains (a Stop writes one): "
                             "about {total} in all.", total=size_text(d["total"])))
    else:
        parts.append(Message("{kept} checkpoints kept of {written} written: about {total} in "
                             "all.", kept=d["kept"], written=d["written"],
                             total=size_text(d["total"])))
    if d["free"] is not None:
        parts.append(Message("{free} free where runs are kept.", free=size_text(d["free"])))
    if (d["kept"] or 0) > 1 or d["kept"] is None and d["written"] != 0:
        parts.append(Message("Keep at most N checkpoints (Logging, checkpoints and samples) "
                             "set to 1 keeps only the newest: {size} of checkpoints.",
                             size=size_text(d["checkpoint"])))
    if not d["fits"]:
        parts.append(Message("**It will not fit:** keep fewer checkpoints, save less often "
                             "(Save every N steps), train a LoRA adapter, or free disk "
                             "space before Start."))
    return _joined(*parts)


def _padding_line(p: dict) -> Message | str:
    pad = p["padding"]
    if p["packing"]:
        return Message("**Padding:** none: packing fills each sequence up to max_length.")
    if not pad:
        return ""
    if p.get("padding_free"):
        return Message("**Padding:** none: on a CPU the rows of a batch go end to end "
                       "(padding-free), so the {waste} of padding that batches of {batch} "
                       "consecutive rows would hold is not computed.",
                       waste=f"{pad['waste']:.0%}", batch=pad["batch"])
    text = Message("**Padding:** {waste} of the tokens in batches of {batch} consecutive rows "
                   "are padding (measured on the first {rows} rows).",
                   waste=f"{pad['waste']:.0%}", batch=pad["batch"], rows=f"{pad['rows']:,}")
    if pad["packed_sequences"] < pad["rows"] and not p.get("writes_answers"):
        return _joined(text, Message(
            "Packing would put these rows into about {sequences} sequences of max_length: "
            "{share} fewer sequences per epoch, and no padding.",
            sequences=f"{pad['packed_sequences']:,}",
            share=f"{1 - pad['packed_sequences'] / pad['rows']:.0%}"))
    return text


def plan_line(p: dict, run: dict | None = None) -> str:
    """The plan in one line, beside Start, each part in the request's language. While a
    run trains (`run`, its snapshot), its time is the plan's beside the run's own at its
    pace (run_time), not the plan's alone."""
    if p.get("data_error"):  # no figure holds for data it could not read: not "fits"
        return say("**Plan:**") + " " + say(Message("cannot read the data: {error}",
                                                    error=p["data_error"]))
    parts = [Message("time budget {minutes} min", minutes=f"{p['budget_minutes']:g}")] \
        if p.get("budget_minutes") else []
    if p.get("for_target"):
        parts.append(Message("on {where}", where=p["target"]))
    if p.get("budget_needs_speed"):
        steps = Message("steps set by the run's first steps")
    elif p.get("budget_fits_in_run") and p["steps"]:  # (an estimate: the run sets them)
        steps = Message("about {n} steps (the run's first steps set them)", n=f"{p['steps']:,}")
    else:
        steps = Message("{n} steps", n=f"{p['steps']:,}") if p["steps"] else \
            Message("steps unknown until the data is read")
    parts += [Message("effective batch {n}", n=p["effective_batch"]), steps,
              Message("peak memory about {size} of {available}: **{fit}**",
                      size=size_text(p["memory"]["total"]),
                      available=size_text(p["available_bytes"]), fit=as_message(p["fit"]))]
    if run is not None:
        parts.append(run_time(p.get("seconds_total"), run))
    elif p["seconds_total"]:
        parts.append(duration_text(p["seconds_total"]))  # "about 2 min" already
    disk = p.get("disk")
    if disk and not disk["fits"]:  # (before Start: the full plan says what to do)
        parts.append(Message("disk about {total} of {free} free: **will not fit**",
                             total=size_text(disk["total"]), free=size_text(disk["free"])))
    return say("**Plan:**") + " " + " · ".join(say(part) for part in parts)


def run_time(planned: float | None, run: dict) -> Message:
    """What the plan said a run takes beside what the training run's pace says now (its
    time so far and its ETA: steps, sample rounds and the save left)."""
    if run.get("eta_seconds") is None:
        if not planned:
            return Message("the run's own estimate comes after its first steps")
        return Message("the plan said {duration}; the run's own estimate comes after its "
                       "first steps", duration=duration_text(planned))
    duration2 = duration_text(run["elapsed_seconds"] + run["eta_seconds"])
    duration3 = duration_text(run["eta_seconds"])
    if not planned:
        return Message("at the run's pace {duration2} in all, {duration3} left",
                       duration2=duration2, duration3=duration3)
    return Message("the plan said {duration}; at the run's pace {duration2} in all, "
                   "{duration3} left", duration=duration_text(planned), duration2=duration2,
                   duration3=duration3)


