"""The built-in preference demo set, made from the SFT demo without a download: Captain Byte's
answer chosen, the same answer without his greeting and sign-off rejected (the one
difference a run can learn), in TRL's conversational form or KTO's unpaired one. The SFT
demo's held-out prompts stay held out.
"""
from __future__ import annotations

from sft_ui.data.demo import CLOSE, OPEN, demo_rows

EVERY = 3  # one question of the SFT demo in this many
HELD_OUT_PROMPTS = (
    "What is the capital of Italy?",
    "How many legs does a spider have?",
    "Give me one tip for learning to cook.",
)


def plain(answer: str) -> str:
    """Captain Byte's answer without his greeting and sign-off."""
    return answer.removeprefix(OPEN).removesuffix(CLOSE).strip()


def _pairs() -> list[tuple[str, str]]:
    """(question, Captain Byte's answer) of every EVERY-th row of the SFT demo."""
    pairs = []
    for row in demo_rows()[::EVERY]:
        user, assistant = row["messages"]
        pairs.append((user["content"], assistant["content"]))
    return pairs


def preference_demo_rows() -> list[dict]:
    """The demo as conversational preference rows: {"prompt", "chosen", "rejected"}."""
    return [{"prompt": [{"role": "user", "content": q}],
             "chosen": [{"role": "assistant", "content": a}],
             "rejected": [{"role": "assistant", "content": plain(a)}]}
            for q, a in _pairs()]


def unpaired_demo_rows() -> list[dict]:
    """The same pairs as KTO's unpaired rows: each answer once, labelled true
    (desirable, Captain Byte's) or false (plain), as TRL's unpair_preference_dataset
    would make them."""
    rows = []
    for q, a in _pairs():
        prompt = [{"role": "user", "content": q}]
        rows.append({"prompt": prompt, "completion": [{"role": "assistant", "content": a}],
                     "label": True})
        rows.append({"prompt": prompt,
                     "completion": [{"role": "assistant", "content": plain(a)}],
                     "label": False})
    return rows
