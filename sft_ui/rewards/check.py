"""What "Test rewards" shows (each function's score of each completion and their total, the
prompts whose answers all scored alike, answers cut at Max completion length) and the checks
made before a GRPO run starts (`preflight`).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from sft_ui.errors import said
from sft_ui.i18n.message import Message, as_message
from sft_ui.rewards import RewardError
from sft_ui.rewards.builtin import BUILTINS, available, make_reward
from sft_ui.rewards.scores import text_of

ROW_KEYS = ("prompt", "completion", "total")  # a table row's own keys, besides the scores


def _prompt_text(prompt) -> str:
    """A prompt's text: of a conversation, its last user turn."""
    if isinstance(prompt, (list, tuple)):
        users = [m for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
        return text_of(users[-1] if users else prompt)
    return text_of(prompt)


def _labels(functions: Sequence[Callable]) -> list[str]:
    labels: list[str] = []
    seen: Counter[str] = Counter()
    for fn in functions:
        name = getattr(fn, "__name__", type(fn).__name__)
        name = f"{name} (reward)" if name in ROW_KEYS else name
        seen[name] += 1
        labels.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return labels


def weighted_total(scores: list, weights: list[float] | None = None) -> float | None:
    """The scores' sum weighted by `weights` (1 each when None), of the scores given: a
    function that skipped an answer gives None (TRL logs it as NaN); None when every one
    skipped (as TRL)."""
    weights = [1.0] * len(scores) if weights is None else weights
    given = [(w, s) for w, s in zip(weights, scores) if s is not None and s == s]
    return sum(w * s for w, s in given) if given else None


def as_completions(texts: list[str], conversational: bool) -> list:
    """Answers in the form TRL gives the rewards: messages for conversational prompts."""
    if conversational:
        return [[{"role": "assistant", "content": t}] for t in texts]
    return texts


def score_table(functions: Sequence[Callable], prompts: Sequence, completions: Sequence,
                columns: dict[str, list], weights: list[float] | None = None,
                completion_ids: list[list[int]] | None = None) -> list[dict]:
    """One row per completion: its prompt and text, each function's score by name, and
    `total`, the scores' sum weighted by `weights` (1 each when None). Each function is
    called once, as TRL calls it, with `columns` one value per completion."""
    n = len(completions)
    if len(prompts) != n:
        raise RewardError(Message("{prompts} prompts for {n} completions: give each completion "
                                  "its prompt (repeat a prompt for each of its answers).",
                                  prompts=len(prompts), n=n))
    weights = [1.0] * len(functions) if weights is None else [float(w) for w in weights]
    if len(weights) != len(functions):
        raise RewardError(Message("{weights} weights for {functions} rewards: give one weight "
                                  "per reward, in their order.", weights=len(weights),
                                  functions=len(functions)))
    labels, scores = _labels(functions), []
    for fn, label in zip(functions, labels):
        got = list(fn(prompts=list(prompts), completions=list(completions),
                      completion_ids=completion_ids, **columns))
        if len(got) != n:
            raise RewardError(Message("The reward {label} gave {got} scores for {n} "
                                      "completions: it must give one per completion.",
                                      label=label, got=len(got), n=n))
        scores.append(got)
    rows = []
    for i in range(n):
        row: dict[str, object] = {"prompt": _prompt_text(prompts[i]),
                                  "completion": text_of(completions[i])}
        mine = [s[i] for s in scores]
        row.update(zip(labels, mine))
        row["total"] = weighted_total(mine, weights)
        rows.append(row)
    return rows


def no_spread(rows: list[dict], group_size: int,
              cut: list[bool] | None = None) -> list[Message]:
    """A warning for each group of `group_size` consecutive rows (one prompt's answers)
    whose totals are all equal: GRPO learns from the differences within a group. `cut`
    (one per row: the answer reached Max completion length before it ended): a group
    mostly cut is told to raise the limit, not to vary its answers."""
    if group_size < 2:
        return []
    warnings = []
    for start in range(0, len(rows), group_size):
        group = rows[start:start + group_size]
        if len(group) < 2:
            continue
        prompt = repr(group[0]["prompt"][:60])
        totals = [r["total"] for r in group if r["total"] is not None]
        cuts = sum((cut or [])[start:start + group_size])
        if not totals:
            warnings.append(Message(
                "Prompt {prompt}: every reward skipped all {group} answers (None), so nothing "
                "is learned from it. Check that its columns hold what the rewards read.",
                prompt=prompt, group=len(group)))
        elif max(totals) - min(totals) > 1e-9:
            continue
        elif cuts >= MOSTLY_CUT * len(group):
            warnings.append(Message(
                "Prompt {prompt}: all {group} answers scored {value}, and {cuts} of them were "
                "cut at Max completion length before they ended: a reward for how an answer "
                "ends (a sign-off, a closing tag, a final answer) cannot be earned by a cut "
                "answer. Raise Max completion length.",
                prompt=prompt, group=len(group), value=f"{totals[0]:g}", cuts=cuts))
        else:
            warnings.append(Message(
                "Prompt {prompt}: all {group} answers scored {value}, so there is no learning "
                "signal from it. Raise the number of generations or the temperature, or change "
                "the reward or the task so that some answers score better than others.",
                prompt=prompt, group=len(group), value=f"{totals[0]:g}"))
    return warnings


# Answers cut at Max completion length before they ended: at least this share of them
# is "most" (Test rewards and the probe before a run say so, with the fix).
MOSTLY_CUT = 0.5


def cut_warning(cut: list[bool], limit: int, need: int | None = None) -> Message | None:
    """What to say when most answers (`cut`: one per answer) reached Max completion
    length (`limit` tokens) before they ended, with the fix (`need`: the tokens the
    data's answers need, where known); None otherwise."""
    if not cut or sum(cut) < MOSTLY_CUT * len(cut):
        return None
    share = f"{sum(cut) / len(cut):.0%}"
    if need and need > limit:
        return Message("{share} of the answers were cut at Max completion length ({limit} "
                       "tokens) before they ended, so a reward for how an answer ends (a "
                       "sign-off, a closing tag, a final answer) cannot be earned: raise it "
                       "to {need} tokens, what the data's answers need. More answers or a "
                       "higher temperature would not help.", share=share, limit=limit,
                       need=need)
    return Message("{share} of the answers were cut at Max completion length ({limit} tokens) "
                   "before they ended, so a reward for how an answer ends (a sign-off, a "
                   "closing tag, a final answer) cannot be earned: raise it. More answers or a "
                   "higher temperature would not help.", share=share, limit=limit)


# The generation batch's fix, by (two sizes to choose from, a Generations that fits too).
_BATCH = {
    (True, True): "The generation batch ({generation_batch} answers a step) must be a multiple "
                  "of Generations ({num_generations}), so that each prompt gets all its answers "
                  "in one batch: set it to {lower} or {upper}, or Generations to one of {join}.",
    (True, False): "The generation batch ({generation_batch} answers a step) must be a multiple "
                   "of Generations ({num_generations}), so that each prompt gets all its "
                   "answers in one batch: set it to {lower} or {upper}.",
    (False, True): "The generation batch ({generation_batch} answers a step) must be a multiple "
                   "of Generations ({num_generations}), so that each prompt gets all its "
                   "answers in one batch: set it to {sizes}, or Generations to one of {join}.",
    (False, False): "The generation batch ({generation_batch} answers a step) must be a "
                    "multiple of Generations ({num_generations}), so that each prompt gets all "
                    "its answers in one batch: set it to {sizes}.",
}


def _generations(num_generations: int, generation_batch: int) -> list[Message]:
    if num_generations < 2:
        return [Message("Generations is {num_generations}: GRPO compares several answers to "
                        "each prompt, so it must be at least 2 (4 to 16 is usual).",
                        num_generations=num_generations)]
    if generation_batch < 1 or generation_batch % num_generations:
        lower = generation_batch // num_generations * num_generations
        sizes = [str(s) for s in (lower, lower + num_generations) if s > 0]
        fits = [g for g in range(2, min(generation_batch, 64) + 1) if generation_batch % g == 0]
        template = _BATCH[len(sizes) == 2, bool(fits)]
        values = dict(generation_batch=generation_batch, num_generations=num_generations,
                      join=", ".join(map(str, fits)), lower=sizes[0], upper=sizes[-1],
                      sizes="".join(sizes))
        return [Message(template, **{name: value for name, value in values.items()
                                     if "{" + name + "}" in template})]
    return []


def _lengths(max_prompt_tokens: int | None, max_completion_length: int,
             max_length: int | None) -> list[Message]:
    if max_completion_length < 1:
        return [Message("Max completion length is {max_completion_length}: give the answers "
                        "at least 1 token (64 to 1024 is usual).",
                        max_completion_length=max_completion_length)]
    if max_length is None:
        return []
    if max_prompt_tokens is None:
        if max_completion_length >= max_length:
            return [Message("Max completion length ({max_completion_length} tokens) leaves no "
                            "room for the prompt within Max length ({max_length}): lower it, "
                            "or raise Max length.", max_completion_length=max_completion_length,
                            max_length=max_length)]
        return []
    total = max_prompt_tokens + max_completion_length
    if total > max_length:
        room = max_length - max_prompt_tokens
        sizes = dict(max_prompt_tokens=max_prompt_tokens, total=total,
                     max_completion_length=max_completion_length, max_length=max_length)
        if room > 0:  # (the whole message: its piece "lower ... to {room}, " said in place)
            return [Message("The longest prompt ({max_prompt_tokens} tokens) plus an answer "
                            "({max_completion_length} tokens) is {total} tokens, more than Max "
                            "length ({max_length}): lower Max completion length to {room}, "
                            "shorten the prompts, or raise Max length.", room=room, **sizes)]
        return [Message("The longest prompt ({max_prompt_tokens} tokens) plus an answer "
                        "({max_completion_length} tokens) is {total} tokens, more than Max "
                        "length ({max_length}): {fix}shorten the prompts, or raise Max length.",
                        fix="", **sizes)]
    return []


def _missing(name: str, needed: Sequence[str], columns: Sequence[str]) -> list[Message]:
    missing = [c for c in needed if c not in columns]
    if not missing:
        return []
    which = ", ".join(f"'{c}'" for c in missing)
    return [Message(("The reward {name} needs the columns {which}, " if len(missing) > 1 else
                     "The reward {name} needs the column {which}, ") +
                    "which the data does not have (it has: {value}). Choose a column it has, "
                    "or add the column to the data.", name=name, which=which,
                    value=", ".join(columns) or as_message("no columns"))]


def preflight(reward_names: list[str], options: dict, columns: list[str],
              num_generations: int, generation_batch: int, max_prompt_tokens: int | None,
              max_completion_length: int, max_length: int | None,
              written: dict[str, tuple[str, ...]] | None = None) -> list[Message | str]:
    """What would stop a GRPO run, one message each; empty when all is fine. `written`:
    the functions of the person's code and the columns each needs (function_columns)."""
    problems: list[Message | str] = []
    problems += _generations(num_generations, generation_batch)
    problems += _lengths(max_prompt_tokens, max_completion_length, max_length)
    written = written or {}
    options = dict(options)
    if options.get("max_completion_length") in (None, ""):
        options["max_completion_length"] = max_completion_length
    if not reward_names:
        problems.append("Choose at least one reward: a built-in one, or a function of "
                        "your reward code.")
    for name, times in Counter(reward_names).items():
        if times > 1:
            problems.append(Message("The reward {name} is chosen {times} times: keep it once "
                                    "(to count it more, give it a higher weight).",
                                    name=name, times=times))
    for name in dict.fromkeys(reward_names):
        if name in written:
            if name in BUILTINS:
                problems.append(Message("Your function {name} has the name of a built-in "
                                        "reward: rename it.", name=name))
            problems += _missing(name, written[name], columns)
        elif name in BUILTINS:
            try:
                make_reward(name, options)
            except RewardError as e:
                problems.append(said(e))
                continue
            problems += _missing(name, BUILTINS[name].columns_for(options), columns)
        else:
            code = Message("; your code defines: {join}",
                           join=", ".join(written)) if written else ""
            problems.append(Message("There is no reward {name}. The built-in rewards are: "
                                    "{join}{code}.", name=repr(name),
                                    join=", ".join(available()), code=code))
    return problems
