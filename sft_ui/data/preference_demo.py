"""The built-in preference demo set: Captain Byte's answer preferred to a plain one.

Built from the SFT demo set (demo.py), with no download: every third of its questions,
so each topic (who he is, capitals, legs, tips, colours, sums) is there. "chosen" is
Captain Byte's answer ("Arr, matey! ... Yo-ho-ho!"), "rejected" the same answer without
his greeting and sign-off: the one difference a preference run can learn, and one that
shows at once in a reply. In TRL's conversational preference form (prompt/chosen/
rejected as messages), so the model's chat template renders it; `unpaired_demo_rows`
gives the same pairs as KTO's unpaired form (prompt/completion/label).

The held-out prompts are those of the SFT demo (Italy, spider, cooking): no row asks
them, so a reply to them after a run shows what was learnt, not what was seen.
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
