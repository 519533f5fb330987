"""A GRPO run that learns nothing, judged from its logged steps (the GRPO family's "stalled"
hook, stages/grpo.py; the run reads it where every record arrives, runs/run.py): its answers
all cut at Max completion length, or most prompts' answers alike in reward. Said apart:
a run whose warm-up already taught the form every answer takes."""
from __future__ import annotations

from sft_ui.i18n.message import Message

# A run learns nothing when, over its last STALL_STEPS logged steps (all of them when
# fewer, but at least STALL_LEAST), prompts without reward spread were on average at
# least STALL_SHARE of each step's (TRL's frac_reward_zero_std); its answers are cut when
# on average at least STALL_SHARE of them reached Max completion length (TRL's
# completions/clipped_ratio), which is said first: it is often why no answer scores
# better than another.
STALL_STEPS, STALL_LEAST, STALL_SHARE = 5, 3, 0.9
NO_SPREAD, CLIPPED = "frac_reward_zero_std", "completions/clipped_ratio"


def _recent_mean(records: list[dict], key: str) -> tuple[float, int]:
    """The mean of `key` over the last STALL_STEPS records that logged it (a NaN is not
    equal to itself: left out), and how many; (0, n) for fewer than STALL_LEAST."""
    values = [r[key] for r in records
              if isinstance(r.get(key), (int, float)) and r[key] == r[key]][-STALL_STEPS:]
    return (sum(values) / len(values) if len(values) >= STALL_LEAST else 0.0), len(values)


def _rewards(records: list[dict]) -> list[float]:
    return [r["reward"] for r in records
            if isinstance(r.get("reward"), (int, float)) and r["reward"] == r["reward"]]


def _learnt(records: list[dict]) -> bool:
    """Whether the answers are alike because the run learnt: the reward of its last
    logged steps rose from its first ones' to (near) the highest it logged."""
    rewards = _rewards(records)
    if len(rewards) <= STALL_STEPS:
        return False
    first = sum(rewards[:STALL_STEPS]) / STALL_STEPS
    recent = sum(rewards[-STALL_STEPS:]) / STALL_STEPS
    top = max(rewards)
    return recent > first + 1e-6 and recent >= top - 0.05 * abs(top)


def _at_top(records: list[dict]) -> bool:
    """Whether the reward of the last logged steps is above 0 and (near) the highest the
    run logged."""
    rewards = _rewards(records)
    if len(rewards) < STALL_LEAST:
        return False
    recent = rewards[-STALL_STEPS:]
    mean, top = sum(recent) / len(recent), max(rewards)
    return mean > 0 and mean >= top - 0.05 * abs(top)


def stalled(records: list[dict], cfg=None) -> Message | None:
    """A GRPO run that learns nothing, from its logged metric records (oldest first):
    over its last logged training steps, (almost) every answer was cut at Max completion
    length, or most prompts' answers all got the same reward (unless their reward rose to
    the highest logged: it learnt). After a warm-up (cfg's Warm-up examples) whose form
    every answer already takes, at a reward above 0 that has not fallen, it says that
    instead of "nothing learnt". The message says so and what to do; None while the run
    learns or cannot be judged."""
    cut, count = _recent_mean(records, CLIPPED)
    if cut >= STALL_SHARE:
        share = f"{100 * cut:.0f}%"
        return Message("Answers cut at the length limit: over the last {count} logged steps, "
                       "{share} of the answers reached Max completion length before they "
                       "ended, so a reward for how an answer ends (a sign-off, a closing tag, "
                       "a final answer) cannot be earned. Raise Max completion length (Test "
                       "rewards shows how long the answers are), or ask for shorter answers "
                       "in the prompts.", count=count, share=share)
    mean, count = _recent_mean(records, NO_SPREAD)
    if mean < STALL_SHARE or _learnt(records):
        return None
    share = f"{100 * mean:.0f}%"
    if getattr(cfg, "warmup_file", "") and _at_top(records):
        return Message("Nothing more to learn after the warm-up: over the last {count} logged "
                       "steps, {share} of the prompts got the same reward for all their "
                       "answers, at the highest the run logged: the warm-up already taught the "
                       "form the rewards ask, and GRPO learns only from the differences "
                       "between a prompt's answers. Try the model in Chat; to teach more, give "
                       "partial credit in the reward or raise Temperature.",
                       count=count, share=share)
    return Message("Nothing learnt: over the last {count} logged steps, {share} of the "
                   "prompts got the same reward for all their answers (no spread), and GRPO "
                   "learns only from the differences between a prompt's answers. Raise "
                   "Answers per prompt or Temperature, give partial credit in the reward (or "
                   "make the task harder, if every answer already scores the most), or give "
                   "a few examples of the form the reward wants in Warm-up examples.",
                   count=count, share=share)
