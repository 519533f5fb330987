"""Whether a GRPO run's rewards tell its answers apart, measured on a few prompts before it
trains, and the settings the quick path chooses from that (the family's `signal` hook, called
where a run starts). Loads the model in the calling process.
"""
from __future__ import annotations

import dataclasses
import math
import time
from contextlib import nullcontext

from sft_ui.config import RunConfig
from sft_ui.config.grpo import whole_groups
from sft_ui.config.grpo_settings import WRITTEN_REWARD
from sft_ui.data.load import training_rows
from sft_ui.data.prompts import answers_need, load_prompts
from sft_ui.data.sized import within
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.models import load_for_inference, resolve_model
from sft_ui.plan.shape import model_shape
from sft_ui.rewards.check import as_completions, cut_warning, score_table
from sft_ui.rewards.written import WrittenRewards
from sft_ui.train import grpo_warmup
from sft_ui.train.grpo import reward_functions, reward_weights
from sft_ui.train.grpo_sample import Sampled, sample

PROBE_ANSWERS = 8   # answers to each prompt tried before a run
# (temperature, prompts): tried in order until the groups differ; the last round asks
# more prompts, so that a form the model writes once in 30 answers is met at least once
ROUNDS = ((0.8, 4), (1.0, 4), (1.2, 8))
GENERATIONS = (4, 8)  # the Answers per prompt the quick path may choose
WANTED_SPREAD = 0.5  # the share of groups that should differ
# Another round is begun only within this share of a time budget (or PROBE_SECONDS without
# one): on a busy 2-core CPU a round of the default model took minutes.
PROBE_SHARE = 0.1
PROBE_SECONDS = 120.0
LENGTHS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)  # answer lengths tried
QUICK_LORA_RATE = 2e-4  # a LoRA adapter's rate when a budget of minutes gives few steps
MAX_PARAMS = 3e9  # larger models are not loaded a second time to probe


class NothingToLearn(UserError):
    """Every answer of the probe scored alike: GRPO would learn nothing."""


def needed_tokens(found: Sampled, tokenizer, cfg: RunConfig, data, functions) -> int | None:
    """The tokens the rewarded answers need to keep their reward: for each, the least of
    LENGTHS at which its answer cut there scores as the whole one; of those, the one 90%
    of them fit. None when no answer was rewarded."""
    chosen = found.rewarded()
    if not chosen:
        return None
    need = {i: _ladder(len(found.ids[i])) for i in chosen}
    weights = reward_weights(cfg, functions)
    for length in reversed(LENGTHS):
        longer = [i for i in chosen if len(found.ids[i]) > length]
        if not longer:
            continue
        cut = tokenizer.batch_decode([found.ids[i][:length] for i in longer],
                                     skip_special_tokens=True)
        table = score_table(functions, [found.prompts[i] for i in longer],
                            as_completions(cut, data.conversational),
                            {k: [v[i] for i in longer] for k, v in found.columns.items()},
                            weights=weights,
                            completion_ids=[found.ids[i][:length] for i in longer])
        for i, row in zip(longer, table):
            if row["total"] is not None and row["total"] >= found.table[i]["total"] - 1e-9:
                need[i] = min(need[i], length)
    ordered = sorted(need.values())
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def _ladder(tokens: int) -> int:
    """The least of LENGTHS that holds `tokens`."""
    return next((n for n in LENGTHS if n >= tokens), LENGTHS[-1])


def _probe_tokens(cfg: RunConfig, person: RunConfig, need: int | None) -> int:
    """How long the probe's answers may be: the run's limit where the person set it;
    else at least the run's limit and `need`, what the data's answers need in the column
    exact_match reads (data/prompts.py's answers_need: the rule that sized the limit
    where the run started, data/sized.py), at most LENGTHS' longest."""
    if person.max_completion_length != RunConfig().max_completion_length:
        return cfg.max_completion_length
    return within(need or 0, cfg.max_completion_length, LENGTHS[-1])


def probe(person: RunConfig, cfg: RunConfig, log,
          folder=None) -> tuple[RunConfig, list[str]]:
    """The GRPO family's `signal` hook: before a run of `cfg` (the settings a time budget
    chose from `person`'s, or `person`'s own) trains, its rewards tried on a few prompts.
    A time-budgeted run gets Answers per prompt, Temperature, Max completion length, the
    accumulation and the LoRA rate its rewards call for, among the settings `person` left
    at their defaults: (its settings, a reason for each choice). GRPO learns only from
    prompts whose answers got different rewards: the answers are sampled as training
    samples them (grpo_sample.py) and scored by the run's own rewards, and from each
    prompt's rewards follows the share of groups that would differ. Where they rarely
    would and a regex reward holds the form, the run warms up first (grpo_warmup.py).
    NothingToLearn where every answer scored alike and no warm-up can be made, on such a
    run; another run only has it in its log. The model is loaded here (small beside the
    run's); one over MAX_PARAMS is not tried."""
    if cfg.run_on == "hf_jobs":
        return cfg, []  # the model is loaded where the run trains, not here
    try:
        if model_shape(cfg.model_name_or_path).params() <= MAX_PARAMS:
            return _probe(person, cfg, log, folder)
        log.info("The rewards were not tried before training: the model is too large to "
                 "load a second time.")
    except UserError:
        raise
    except Exception as e:  # the run itself will meet (and report) what failed here
        log.warning("%s", f"The rewards could not be tried before training: "
                    f"{type(e).__name__}: {e}")
    return cfg, []


def _probe(person: RunConfig, cfg: RunConfig, log,
           folder=None) -> tuple[RunConfig, list[str]]:
    """probe() on a model small enough to load here."""
    path = resolve_model(cfg.model_name_or_path)
    model, tokenizer = load_for_inference(path, cfg.trust_remote_code)
    data = load_prompts(cfg.dataset_name, cfg, cfg.dataset_train_split, tokenizer)
    data = dataclasses.replace(data, rows=training_rows(cfg, data.rows))
    choosing = bool(cfg.time_budget_minutes)
    defaults = RunConfig()
    free = {name for name in ("num_generations", "temperature", "max_completion_length")
            if choosing and getattr(person, name) == getattr(defaults, name)}
    rounds = ROUNDS if "temperature" in free else \
        ((cfg.temperature, ROUNDS[0][1]), (cfg.temperature, ROUNDS[-1][1]))
    answers = max(PROBE_ANSWERS, cfg.num_generations)
    need = (answers_need(cfg, data.rows, tokenizer) or (None,))[0]
    tokens = _probe_tokens(cfg, person, need)
    with WrittenRewards(cfg.reward_code) if WRITTEN_REWARD in cfg.rewards \
            else nullcontext() as written:
        functions = reward_functions(cfg, written, data.as_chat)
        found, start, seen = None, 0, []
        began = time.time()
        until = began + (cfg.time_budget_minutes * 60 * PROBE_SHARE if choosing
                         else PROBE_SECONDS)
        for temperature, prompts in rounds:
            if found is not None and time.time() > until:
                log.info("Rewards tried in %d rounds of answers: the time for trying them "
                         "is up.", len(seen))
                break
            rows = list(data.rows[start:start + prompts]) or list(data.rows[:prompts])
            start += prompts
            sampled = sample(model, tokenizer, cfg, data, functions, answers, temperature,
                             tokens, rows)
            seen.append(sampled)
            if found is None or sampled.spread(answers) > found.spread(answers):
                found = sampled
            if found.spread(answers) >= WANTED_SPREAD:
                break
        assert found is not None  # (the first round is always run)
        needed = needed_tokens(found, tokenizer, cfg, data, functions) \
            if "max_completion_length" in free else None
        rounds_run, examples = len(seen), []
        if choosing and folder and not cfg.warmup_file and \
                found.spread(GENERATIONS[-1]) < WANTED_SPREAD:
            def more(rows):  # further prompts' answers, as the last round's were written
                return sample(model, tokenizer, cfg, data, functions,
                              grpo_warmup.MORE_ANSWERS, found.temperature, tokens, rows)
            examples = grpo_warmup.gather(seen, more, data.rows[start:], tokenizer, cfg,
                                          data.conversational, functions,
                                          reward_weights(cfg, functions),
                                          until + (until - began))
    prompts = len(found.totals())
    tried = Message("{prompts} prompts x {answers} answers at temperature {temperature}, up "
                    "to {tokens} tokens", prompts=prompts, answers=answers,
                    temperature=f"{found.temperature:g}", tokens=tokens)
    cut = cut_warning(found.cut, tokens, need)
    warmed = _warm(cfg, person, found, examples, folder, free, tried, tokenizer, log) \
        if examples else None
    if warmed:
        return warmed
    if not found.rewarded():
        message = _nothing_message(found, tried, rounds_run, cut)
        if choosing and rounds_run == len(rounds):  # (fewer: too few answers to be sure)
            raise NothingToLearn(message)
        log.warning("%s", message)
        return cfg, []
    share = found.spread(cfg.num_generations)
    log.info("Rewards tried before training (%s): %.0f%% of groups of %d answers would "
             "differ.", tried, 100 * share, cfg.num_generations)
    if cut:  # (the fix is the length, whatever the spread)
        log.warning("%s", cut)
    if not choosing:
        if share < WANTED_SPREAD / 2 and not cut:
            log.warning("%s", f"Few groups of answers will differ ({share:.0%}): GRPO "
                        "learns from those only. Raise Answers per prompt or Temperature, "
                        "or give partial credit in the reward.")
        return cfg, []
    return _choose(cfg, person, found, needed, free, tried, log)


def _choose(cfg: RunConfig, person: RunConfig, found: Sampled, needed: int | None,
            free: set[str], tried: Message, log, changes: dict | None = None,
            reasons: list[str] | None = None) -> tuple[RunConfig, list[str]]:
    """The quick path's settings from a probe that found a spread (or a warm-up that
    gives one: `changes` and `reasons` already chosen), with their reasons."""
    changes, reasons = dict(changes or {}), list(reasons or [])
    if "temperature" in free and found.temperature != cfg.temperature:
        changes["temperature"] = found.temperature
        reasons.append(Message("temperature {temperature}: the answers' rewards differ most "
                               "there, of the temperatures tried ({tried})",
                               temperature=f"{found.temperature:g}", tried=tried))
    n = changes.get("num_generations", cfg.num_generations)
    if "num_generations" in free and "num_generations" not in changes:
        n = next((g for g in GENERATIONS if found.spread(g) >= WANTED_SPREAD),
                 GENERATIONS[-1])
        if n != cfg.num_generations:
            changes["num_generations"] = n
        reasons.append(Message("{n} answers per prompt: {spread} of groups of {n} would hold "
                               "different rewards (GRPO learns from those)", n=n,
                               spread=f"{found.spread(n):.0%}"))
    if needed is not None and needed != cfg.max_completion_length:
        changes["max_completion_length"] = needed
        reasons.append(Message("answers of at most {needed} tokens: the rewarded answers keep "
                               "their reward within that length, and shorter answers make "
                               "more steps fit", needed=needed))
    if person.gradient_accumulation_steps == RunConfig().gradient_accumulation_steps:
        batch = cfg.per_device_train_batch_size
        accumulation = max(cfg.gradient_accumulation_steps, math.ceil(2 * n / batch))
        while batch * accumulation % n:
            accumulation += 1
        if accumulation != cfg.gradient_accumulation_steps:
            changes["gradient_accumulation_steps"] = accumulation
            reasons.append(Message("gradient accumulation {accumulation}: two prompts' groups "
                                   "of {n} answers a step ({total} answers)",
                                   accumulation=accumulation, n=n,
                                   total=batch * accumulation))
    else:  # the person's accumulation, raised only as far as whole groups need
        whole, note = whole_groups(dataclasses.replace(cfg, num_generations=n))
        if note:
            changes["gradient_accumulation_steps"] = whole.gradient_accumulation_steps
            reasons.append(note)
    if cfg.use_peft and person.learning_rate == RunConfig().learning_rate and \
            cfg.learning_rate < QUICK_LORA_RATE:
        changes["learning_rate"] = QUICK_LORA_RATE
        reasons.append(Message("learning rate {rate}: a LoRA adapter that has minutes of GRPO "
                               "steps needs a rate that moves it within them",
                               rate=f"{QUICK_LORA_RATE:g}"))
    for reason in reasons:
        log.info("Chosen for the rewards: %s", reason)
    return dataclasses.replace(cfg, **changes), reasons


def _warm(cfg: RunConfig, person: RunConfig, found: Sampled, examples: list[dict], folder,
          free: set[str], tried: Message, tokenizer, log) -> tuple[RunConfig, list[str]] | None:
    """The quick path where the answers rarely or never differ but the model's own answers,
    put in the rewards' form, give examples of it: a warm-up on them first (grpo_warmup),
    then GRPO at the settings that suit a model that writes the form. None where the
    form does not fit the Max completion length the person set."""
    longest = max(len(tokenizer(e["completion"], add_special_tokens=False)["input_ids"])
                  for e in examples) + 1  # (and the end of the answer)
    if "max_completion_length" not in free and longest > cfg.max_completion_length:
        return None  # the form does not fit the person's limit: the limit is said instead
    path = grpo_warmup.write(examples, folder)
    changes: dict[str, object] = {"warmup_file": str(path)}
    most = GENERATIONS[-1]
    reasons: list[str]
    reasons = [Message("a warm-up of {steps_for} SFT steps on {examples} examples of the form "
                       "before GRPO: {spread} of groups of {most} answers would differ "
                       "({tried}), too few to learn from; the examples are the model's own "
                       "answers and the data's own values put in the Pattern's form, the best "
                       "your rewards scored", steps_for=grpo_warmup.steps_for(examples),
                       examples=len(examples), spread=f"{found.spread(most):.0%}",
                       most=most, tried=tried)]
    if "num_generations" in free:
        changes["num_generations"] = most
        reasons.append(Message("{most} answers per prompt: the most the quick path gives, as a "
                               "warmed-up model's answers differ less", most=most))
    needed = _ladder(longest + 1) if "max_completion_length" in free else None
    return _choose(cfg, person, found, needed, free, tried, log, changes, reasons)


def _nothing_message(found: Sampled, tried: Message, rounds: int,
                     advice: str | None) -> Message:
    """What to say when every answer of the probe scored alike, and what helps (`advice`:
    cut_warning's, where most answers were cut at the length limit)."""
    where = Message("{tried}; {rounds} rounds of answers tried", tried=tried, rounds=rounds) \
        if rounds > 1 else tried
    if advice:
        return Message("Nothing to learn: every answer the model wrote ({where}) got the same "
                       "reward, {alike}. {advice}", where=where, alike=found.alike(),
                       advice=advice)
    values = {round(t, 6) for totals in found.totals() for t in totals}
    if len(values) == 1 and values.pop() > 0:
        return Message("Nothing to learn: every answer the model wrote ({where}) got the same "
                       "reward, {alike}: it may already do what the rewards ask. GRPO learns "
                       "from answers that score differently: make the task harder, add a "
                       "reward that tells good answers from better ones, or use the model as "
                       "it is.", where=where, alike=found.alike())
    return Message("Nothing to learn: every answer the model wrote ({where}) got the same "
                   "reward, {alike}: the rewards never told one answer from another, so GRPO "
                   "would learn nothing. What helps: a reward with partial credit (for example "
                   "0.5 for part of the form), a few examples of the form in Warm-up examples "
                   "(a time budget writes them itself where a regex reward's Pattern holds the "
                   "form), or a prompt that asks for the form more plainly. Test rewards shows "
                   "the answers and their scores.", where=where, alike=found.alike())
