"""Settings sized from the person's own data where they were left at their defaults (the
samples' prompts and length, Max length, a family's own through its `sized` hook), each
with its sentence; and `tokens_needed`, the tokens the data's answers need. Knows nothing of
training or of the page.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import Sequence

from sft_ui.config import DEFAULT_SAMPLE_PROMPTS, RunConfig, load_preset, preset_names
from sft_ui.data.load import eval_source, hold_out, load_data, training_rows
from sft_ui.data.openings import openings
from sft_ui.data.preference import load_preference
from sft_ui.data.thinking import applied
from sft_ui.data.tokens import load_training_data, tokenize_rows
from sft_ui.i18n.message import Message
from sft_ui.models import load_tokenizer, resolve_model
from sft_ui.stages import PREFERENCE, SUPERVISED, demos, hook, stage_of

# The share of the answers a length holds whole: one very long answer does not set the
# length of every round (with fewer than 20 answers, the longest sets it).
PERCENTILE = 0.95
# Room over the data's answers: a model's answer runs a little longer than the one it
# learnt from (its end-of-turn token, a word more), a quarter more and a few tokens.
MARGIN, ROOM, STEP = 1.25, 8, 16
# The most tokens a length sized from the data asks (the samples', GRPO's answers): each
# token of a round of answers costs time on a CPU, and a longer answer is rarely a sign-off.
LONGEST = 512
MEASURED_ROWS = 2000  # answers measured at most (the first ones)
# Rows measured for Max length (tokenized as the trainer does), the most it is raised to
# on its own, and the step it is rounded up to
MEASURED_LENGTHS, LONGEST_ROWS, ROW_STEP = 200, 2048, 64
SAMPLES = len(DEFAULT_SAMPLE_PROMPTS)  # questions asked as samples, as many as the demo's
SIZED_SAMPLES = ("sample_prompts", "samples_as", "sample_max_new_tokens")  # the samples' own


@dataclasses.dataclass(frozen=True)
class Sized:
    """The settings a run trains with (`config`), a sentence for each one sized from the
    data (`reasons`), and what else the person should know of them (`notes`)."""
    config: RunConfig
    reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def answer_tokens(tokenizer, texts: Sequence[str]) -> list[int]:
    """Each answer's length in tokens (without the special tokens a tokenizer adds)."""
    texts = [t for t in texts if isinstance(t, str) and t.strip()][:MEASURED_ROWS]
    if not texts:
        return []
    return [len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]


def tokens_needed(lengths: Sequence[int]) -> int | None:
    """The tokens that hold the data's answers: the PERCENTILE of their lengths (nearest
    rank: the longest of fewer than 20), a quarter more and ROOM tokens, rounded up to a
    multiple of STEP; None without answers. The one rule for every length sized from
    answers: the samples' here, the evaluation's (evaluate/job.py), GRPO's answers (its
    family's `sized` hook and train/grpo_signal.py)."""
    lengths = [n for n in lengths if n > 0]
    if not lengths:
        return None
    return math.ceil((math.ceil(typical(lengths) * MARGIN) + ROOM) / STEP) * STEP


def within(need: int, default: int, ceiling: int = LONGEST) -> int:
    """A length sized from `need`, never below the setting's `default` nor above
    `ceiling`."""
    return max(default, min(ceiling, need))


def typical(lengths: Sequence[int]) -> int:
    """The length PERCENTILE of the answers fit within (nearest rank)."""
    ordered = sorted(lengths)
    return ordered[max(0, math.ceil(PERCENTILE * len(ordered)) - 1)]


def own_data(cfg: RunConfig) -> bool:
    """Whether the run reads data of the person's own (not a built-in set)."""
    return cfg.dataset_name.strip() not in demos()


def sized(cfg: RunConfig, tokenizer=None) -> Sized:
    """cfg with the settings its data sizes, each with its sentence; cfg as it is for a
    built-in set (the defaults suit short English answers and the demo's prompts say
    nothing of a model trained on other data). Sized where left at its default: Max
    length (`_max_length`), the samples' prompts and length (`_samples`), and what the
    family sizes itself (its `sized` hook: GRPO's Max completion length); a setting the
    person changed always wins. The run's start applies them (runs/start.py's
    apply_budget: config.yaml keeps them, a resume trains with them); the plan and the
    preview say them. Reads the data (and the tokenizer, unless given): a DataError or
    ModelError raises, as reading the data would."""
    if not own_data(cfg):
        return Sized(cfg)
    if tokenizer is None:
        tokenizer, _ = applied(load_tokenizer(resolve_model(cfg.model_name_or_path),
                                              cfg.trust_remote_code), cfg.enable_thinking)
    changes: dict = {}
    reasons: list = []
    notes: list = []
    stage = stage_of(cfg)
    if stage.family == SUPERVISED and cfg.max_length == RunConfig().max_length:
        _max_length(cfg, tokenizer, changes, reasons)
    if cfg.sample_steps and not stage.own_samples:  # (a stage that shows its own answers asks none)
        trained, held = _rows(cfg, tokenizer)
        _samples(cfg, tokenizer, trained, held, changes, reasons, notes)
    own = hook(stage, "sized")
    if own:  # what the family sizes from its own data
        more, why = own(cfg, tokenizer)
        changes.update(more)
        reasons += why
    return Sized(dataclasses.replace(cfg, **changes), tuple(reasons), tuple(notes))


def _max_length(cfg: RunConfig, tokenizer, changes: dict, reasons: list) -> None:
    """Max length raised from its default where it would cut rows (their answers, at
    the end of a row) of chat or prompt/completion data: a tool-call row carries its
    tools' definitions, a long prompt its document. Plain text is split into windows of
    the length instead (data/windows.py)."""
    data = load_training_data(cfg, tokenizer)
    if data.format == "text":
        return
    rows = tokenize_rows(cfg, tokenizer, data.train[:MEASURED_LENGTHS])
    lengths = [len(r["input_ids"]) for r in rows]
    cut = sum(n > cfg.max_length for n in lengths)
    if not lengths or cut <= (1 - PERCENTILE) * len(lengths):
        return
    length = min(LONGEST_ROWS, math.ceil(typical(lengths) / ROW_STEP) * ROW_STEP)
    changes["max_length"] = length
    reasons.append(Message("Max length {length} tokens: {cut} of the first {rows} rows are "
                           "longer than {default}, the default, which would cut their "
                           "answers away; {share} of them are at most {most} tokens.",
                           length=length, cut=cut, rows=len(lengths),
                           default=cfg.max_length, share=f"{PERCENTILE:.0%}",
                           most=typical(lengths)))


def _samples(cfg: RunConfig, tokenizer, trained: list, held: list, changes: dict,
             reasons: list, notes: list) -> None:
    """The sample prompts and the sample length, where left at their defaults. Prompts:
    the questions of the eval rows, which the run does not train on; without them the
    last questions of the data, which it trains on too (a note says so: the studio does
    not take rows out of a person's training data on its own); plain text is asked as
    openings. Length: what the answers need (`tokens_needed`), only ever raised, since a
    shorter round would hide how far the model runs on."""
    defaults = RunConfig()
    pairs = [p for p in map(question_answer, trained) if p]
    unseen = [p for p in map(question_answer, held) if p]
    texts = [r["text"] for r in trained + held if isinstance(r.get("text"), str)]
    if texts and not pairs and cfg.samples_as == defaults.samples_as:
        changes["samples_as"] = "text"  # (plain text is tried as text)
        reasons.append(Message("Ask samples as: text, as the data is plain text: each "
                               "sample continues an opening, with no chat template."))
    left = prompts_left(cfg)
    if left and texts and not pairs:
        _openings(tokenizer, [r["text"] for r in held if isinstance(r.get("text"), str)],
                  texts, changes, reasons, notes)
    elif left:
        asked = [_one_line(q) for q, _ in (unseen[:SAMPLES] or pairs[-SAMPLES:])]
        count = len(asked)
        if asked:
            changes["sample_prompts"] = asked
        if unseen:
            reasons.append(Message("Sample prompts: the questions of the first {count} eval "
                                   "rows, which the run does not train on: the samples show "
                                   "how it answers questions it has not seen.", count=count))
        elif pairs:
            reasons.append(Message("Sample prompts: the last {count} questions of the data. "
                                   "The run trains on them too (it has no eval rows), so the "
                                   "samples show how it learns them, not how it answers new "
                                   "questions: set Held-out eval fraction (Eval data) to ask "
                                   "questions it does not train on.", count=count))
        else:
            notes.append(Message("Sample prompts: the demo's English questions, as the data "
                                 "holds no questions: write a few of your own in Sample "
                                 "prompts (Logging, checkpoints and samples)."))
    default = defaults.sample_max_new_tokens
    if cfg.sample_max_new_tokens != default:
        return
    lengths = answer_tokens(tokenizer, [a for _, a in pairs + unseen])
    need = tokens_needed(lengths)
    if need and within(need, default) != default:
        length, share, most = within(need, default), f"{PERCENTILE:.0%}", typical(lengths)
        changes["sample_max_new_tokens"] = length
        reasons.append(Message("Sample length {length} tokens: {share} of the data's answers "
                               "are at most {most} tokens long, and {default}, the default, "
                               "would cut them before their end.", length=length, share=share,
                               most=most, default=default))


def prompts_left(cfg: RunConfig) -> bool:
    """Whether the sample prompts are left to the data: the defaults, or a preset's
    asked of other data than the preset's (opt350m-imdb's movie openings of a corpus of
    the person's own, a Japanese one too)."""
    if cfg.sample_prompts == RunConfig().sample_prompts:
        return True
    return any(preset.sample_prompts == cfg.sample_prompts and
               preset.dataset_name != cfg.dataset_name
               for preset in map(load_preset, preset_names()))


def _openings(tokenizer, held: list[str], texts: list[str], changes: dict, reasons: list,
              notes: list) -> None:
    """Sample prompts of plain text: the openings of its eval rows, else of its last
    rows (which it trains on too: a note says so)."""
    unseen = openings(held, tokenizer, SAMPLES)
    asked = unseen or openings(list(reversed(texts)), tokenizer, SAMPLES)
    if not asked:
        notes.append(Message("Sample prompts: the demo's English questions, as the text's "
                             "rows are too short to open: write openings of your own in "
                             "Sample prompts (Logging, checkpoints and samples)."))
        return
    changes["sample_prompts"] = asked
    if unseen:
        reasons.append(Message("Sample prompts: the openings of {count} eval rows, which "
                               "the run does not train on; each sample continues one, "
                               "shown beside the text's true continuation.",
                               count=len(asked)))
    else:
        reasons.append(Message("Sample prompts: the openings of the last {count} rows. The "
                               "run trains on them too (it has no eval rows): set Held-out "
                               "eval fraction (Eval data) to continue texts it does not "
                               "train on.", count=len(asked)))


def _rows(cfg: RunConfig, tokenizer) -> tuple[list, list]:
    """(the rows the run trains on, the rows it does not: its eval rows), as its
    trainer reads them."""
    chat = bool(getattr(tokenizer, "chat_template", None))
    if stage_of(cfg).family != PREFERENCE:
        data = load_data(cfg, chat=chat)
        return data.train, data.eval or []
    found = load_preference(cfg.dataset_name, cfg, cfg.stage, cfg.dataset_train_split,
                            tokenizer)
    name, split = eval_source(cfg)
    if name:
        held = load_preference(name, cfg, cfg.stage, split, tokenizer).rows
    elif cfg.eval_fraction > 0:
        held = hold_out(found.rows, cfg.eval_fraction, cfg.seed)[1]
    else:
        held = []
    return training_rows(cfg, found.rows), held


def question_answer(row: dict) -> tuple[str, str] | None:
    """A row's question (its prompt's text, or the last user turn before its last
    answer) and its answer's text, whatever shape its trainer reads it in (chat
    messages, prompt and completion, a preference pair's chosen answer, an answer
    labelled good or bad); None for a row without both (plain text)."""
    if isinstance(row.get("messages"), list):
        return _from_messages(row["messages"])
    answer = row.get("completion", row.get("chosen"))
    prompt = row.get("prompt")
    if prompt is None and isinstance(answer, list):  # a pair of whole conversations
        return _from_messages(answer)
    if prompt is None or answer is None:
        return None
    question = _last_user(prompt) if isinstance(prompt, list) else str(prompt)
    text = _said(answer) if isinstance(answer, list) else str(answer)
    return (question, text) if question.strip() and text.strip() else None


def _from_messages(messages: list) -> tuple[str, str] | None:
    answers = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if not answers:
        return None
    question = _last_user(messages[:answers[-1]])
    text = str(messages[answers[-1]].get("content") or "")
    return (question, text) if question.strip() and text.strip() else None


def _last_user(messages: list) -> str:
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return str(users[-1].get("content") or "") if users else ""


def _said(messages: list) -> str:
    return "".join(str(m.get("content") or "") for m in messages
                   if isinstance(m, dict) and m.get("role") == "assistant")


def _one_line(question: str) -> str:
    """A question on one line: Sample prompts is a box of one prompt a line, so a
    question with line breaks would come back from it as several."""
    return re.sub(r"\s*\n\s*", " ", question).strip()
