"""How likely the starting model finds a preference set's answers: the mean log-probability
per token of the chosen and of the rejected answers on the first pairs (DPO's Loss type
auto reads it). Imports torch when it measures.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sft_ui.data.preference import rendered
from sft_ui.i18n.message import Message
from sft_ui.models import load_for_inference, resolve_model

CHECK_PAIRS = 16  # the first pairs measured
# The data preview measures with a model whose weights on disk are up to this size (loaded
# in the app for it: 135M-360M models in fp32, 0.5B in bf16); a run measures with the
# model it trains whatever its size.
PREVIEW_BYTES = 1.5 * 2**30
BATCH = 4  # sequences a forward
GAP = 1.0  # nats a token: chosen answers this far below the rejected ones are "unlikely"


@dataclass(frozen=True)
class Likelihood:
    chosen: float    # mean log-probability per token of the chosen answers
    rejected: float  # ... of the rejected answers
    pairs: int       # the pairs measured

    @property
    def unlikely(self) -> bool:
        """The chosen answers are a form the starting model does not write yet. DPO alone
        then learns to rank the pairs (reward accuracy 1) while the model still writes the
        rejected form, so a DPO run whose Loss type is auto adds TRL's SFT term on the
        chosen answers (loss_type sigmoid + sft)."""
        return self.chosen < self.rejected - GAP

    def sentence(self) -> str:
        """What the check found, for the page and the run's log."""
        chosen, rejected, pairs = f"{self.chosen:.2f}", f"{self.rejected:.2f}", self.pairs
        if self.unlikely:
            return Message("The starting model finds the chosen answers far less likely "
                           "than the rejected ones ({chosen} against {rejected} nats a token "
                           "over {pairs} pairs): it does not write them yet, and DPO alone "
                           "tends to rank the pairs without writing the chosen form. Loss type "
                           "auto adds the SFT term on the chosen answers (sigmoid + sft).",
                           chosen=chosen, rejected=rejected, pairs=pairs)
        return Message("The starting model finds the chosen answers about as likely as the "
                       "rejected ones or more ({chosen} against {rejected} nats a token over "
                       "{pairs} pairs): DPO's own loss (sigmoid).", chosen=chosen,
                       rejected=rejected, pairs=pairs)


def rate_sentence(title: str, own: float, rate: float) -> str:
    """What the SFT term does to a learning rate left at the stage's own (Stage.sft_term_rate)."""
    return Message("Learning rate {rate} with the SFT term: the chosen form is learnt at an "
                   "SFT rate ({title}'s {own} learns little of it); a learning rate you set "
                   "stays.", rate=f"{rate:g}", title=title, own=f"{own:g}")


def measure(model, tokenizer, rows: list[dict], pairs: int = CHECK_PAIRS) -> Likelihood | None:
    """The Likelihood of the first `pairs` paired rows (prompt/chosen/rejected, standard or
    conversational, or implicit pairs) under `model`; None without paired rows."""
    import torch  # heavy: loaded when measuring

    shown = [rendered(row, tokenizer) for row in rows if "chosen" in row and "rejected" in row]
    shown = shown[:pairs]
    if not shown:
        return None
    sequences: dict[str, list] = {"chosen": [], "rejected": []}
    for row in shown:
        prompt = tokenizer(row["prompt"], add_special_tokens=False)["input_ids"]
        for answer, found in sequences.items():
            ids = tokenizer(row[answer], add_special_tokens=False)["input_ids"]
            if prompt and ids:  # (nothing to condition on, or nothing to measure)
                found.append((prompt, ids))
    if not sequences["chosen"] or not sequences["rejected"]:
        return None
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            means = {answer: [m for at in range(0, len(found), BATCH)
                              for m in _mean_log_probs(model, found[at:at + BATCH])]
                     for answer, found in sequences.items()}
    finally:
        if was_training:
            model.train()
    return Likelihood(sum(means["chosen"]) / len(means["chosen"]),
                      sum(means["rejected"]) / len(means["rejected"]), len(shown))


def _mean_log_probs(model, batch: list[tuple[list[int], list[int]]]) -> list[float]:
    """Mean log-probability per token of each answer after its prompt (token ids), in
    one forward (right padding, masked)."""
    import torch  # heavy: loaded when measuring
    longest = max(len(p) + len(a) for p, a in batch)
    ids = torch.zeros((len(batch), longest), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, (prompt, answer) in enumerate(batch):
        ids[i, :len(prompt) + len(answer)] = torch.tensor(prompt + answer)
        mask[i, :len(prompt) + len(answer)] = 1
    ids, mask = ids.to(model.device), mask.to(model.device)
    logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1].float()
    picked = torch.log_softmax(logits, dim=-1).gather(2, ids[:, 1:].unsqueeze(2)).squeeze(2)
    return [picked[i, len(p) - 1:len(p) + len(a) - 1].mean().item()
            for i, (p, a) in enumerate(batch)]


_PREVIEWED: dict[tuple, Likelihood | None] = {}  # (model, data, rows) -> found


def before_start(cfg, rows: list[dict], tokenizer) -> Likelihood | None:
    """The check for the data preview, before Start: with cfg's starting model where it
    is a small local one (PREVIEW_BYTES), else None (the run checks at its start). Kept
    per model and data, so a preview asked again measures nothing."""
    key = (cfg.model_name_or_path.strip(), cfg.dataset_name.strip(), repr(rows[:CHECK_PAIRS]))
    if key not in _PREVIEWED:
        folder = Path(resolve_model(cfg.model_name_or_path))
        weights = [f for f in folder.glob("*") if f.suffix in (".safetensors", ".bin")] \
            if folder.is_dir() else []
        if not weights or sum(f.stat().st_size for f in weights) > PREVIEW_BYTES:
            return None
        model, _ = load_for_inference(str(folder), cfg.trust_remote_code)
        _PREVIEWED.clear()  # one model's result kept: the person is looking at one set
        _PREVIEWED[key] = measure(model, tokenizer, rows)
    return _PREVIEWED[key]
