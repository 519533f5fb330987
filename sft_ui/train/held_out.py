"""A time-budgeted run judged by its held-out rows while it trains (the policy: plan/plateau.py):
each evaluation heard, the best model's trainable weights kept in memory and put back before
the save, and the run's ending recorded. Knows nothing of the UI.
"""
from __future__ import annotations

import torch

from sft_ui.plan import plateau
from sft_ui.plan.plateau import BUDGET, LENGTH, PATIENCE, PLATEAU, ending_record

SHORT_ANSWER_TOKENS = 16  # held-out answers this short (median) are also matched exactly
MATCHED_ROWS = 24  # of the held-out rows, those whose answers are matched (one batch)


def short_answers(cfg, tokenizer, rows: list[dict]) -> list[tuple[list[int], str, int]]:
    """(prompt's token ids, answer's text, tokens to generate) of the run's held-out `rows`
    (as data/tokens.py reads them) where their answers are short (a fact, a label, a
    number); [] where they are not, or the rows carry no answer apart from their prompt
    (plain text)."""
    from sft_ui.data.tokens import tokenize_rows  # (late: the data layer, for a judged run)
    rows = tokenize_rows(cfg, tokenizer, rows[:MATCHED_ROWS])
    found = []
    for row in rows:
        labels = row.get("labels") or []
        at = next((i for i, x in enumerate(labels) if x != -100), None)
        if at is None or at == 0:
            continue
        answer = [x for x in labels[at:] if x != -100]
        text = tokenizer.decode(answer, skip_special_tokens=True).strip()
        found.append((row["input_ids"][:at], text, len(answer) + 2))
    lengths = sorted(limit for _, _, limit in found)
    if not found or lengths[len(lengths) // 2] - 2 > SHORT_ANSWER_TOKENS:
        return []
    return found


class HeldOut:
    """`measure`: the evaluation's value it reads and whether more is better (the stage's
    `judged_by`); kept internally as a loss, lower better (a reward negated)."""

    def __init__(self, patience: int = PATIENCE, answers=(), tokenizer=None,
                 measure: tuple = ("eval_loss", False)):
        self.patience = patience
        self.key, self.higher = measure
        self.answers, self.tokenizer = list(answers), tokenizer  # (short_answers)
        self.match: float | None = None  # the latest evaluation's exact match
        self._best_match: float | None = None
        self.best: tuple[float, int] | None = None  # (held-out loss, step)
        self.last_step: int | None = None  # the step of the latest evaluation
        self.since = 0  # evaluations since the latest gain
        self.plateau_at: int | None = None
        self._kept: dict[str, torch.Tensor] = {}

    def read(self, metrics: dict) -> float | None:
        """The measure of an evaluation's `metrics` as a loss (lower better), or None."""
        value = (metrics or {}).get(self.key)
        return None if value is None else -float(value) if self.higher else float(value)

    def shown(self, loss: float) -> str:
        """A value as the measure says it ("reward 1.25", "loss 0.031")."""
        return f"{self.key.removeprefix('eval_')} {-loss if self.higher else loss:.4g}"

    def heard(self, loss: float, step: int, model) -> bool:
        """An evaluation's loss at `step` (and where the answers are short, the share of
        held-out answers the model gives exactly, which counts first: a held-out loss can
        rise while more answers come out right); True when it is the plateau (PATIENCE
        evaluations without a gain: the rate comes down from here). A model of the
        cool-down that answers as many rows exactly as the best is kept over it."""
        self.last_step = step
        self.match = match = self.matches(model)
        if self.best is None:
            better = gain = True
        elif match is not None and self._best_match is not None and \
                match != self._best_match:
            better = gain = match > self._best_match
        elif match is not None and self.plateau_at is not None:
            # a model of the cool-down that answers as many rows right is kept over the
            # best: the cool-down settles what the plateau found, and the loss of answers
            # asked in new words can rise while as many come out right
            better, gain = True, False
        else:
            better = plateau.is_better(loss, self.best[0])
            gain = plateau.is_gain(loss, self.best[0])
        if better:
            self.best, self._best_match = (loss, step), match
            self._keep(model)
        self.since = 0 if gain else self.since + 1
        if self.since >= self.patience and self.plateau_at is None:
            self.plateau_at = step
            return True
        return False

    def matches(self, model) -> float | None:
        """The share of the held-out rows' short answers the model gives exactly (greedy),
        or None where there are none to match."""
        if not self.answers or model is None or self.tokenizer is None:
            return None
        pad = self.tokenizer.pad_token_id
        pad = self.tokenizer.eos_token_id if pad is None else pad
        width = max(len(prompt) for prompt, _, _ in self.answers)
        # one batch, padded on the left (as a decoder generates after its prompt)
        ids = torch.tensor([[pad] * (width - len(p)) + list(p) for p, _, _ in self.answers],
                           device=model.device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p, _, _ in
                             self.answers], device=model.device)
        training = model.training
        model.eval()
        with torch.no_grad():
            out = model.generate(input_ids=ids, attention_mask=mask, do_sample=False,
                                 max_new_tokens=max(limit for _, _, limit in self.answers),
                                 use_cache=True, pad_token_id=pad)
        if training:
            model.train()
        said = self.tokenizer.batch_decode([row[width:width + limit] for row, (_, _, limit)
                                            in zip(out, self.answers)],
                                           skip_special_tokens=True)
        return sum(s.strip() == answer for s, (_, answer, _) in zip(said, self.answers)) / \
            len(self.answers)

    def _keep(self, model) -> None:
        # (in memory: a LoRA adapter's few megabytes, or every weight of a full fine-tune)
        if model is None:
            return
        self._kept = {name: p.detach().to("cpu", copy=True)
                      for name, p in model.named_parameters() if p.requires_grad}

    def restore(self, model, step: int) -> bool:
        """Put the best model's weights back where the run moved past it; True if so."""
        if self.best is None or not self._kept or model is None or self.best[1] == step:
            return False
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name in self._kept:
                    p.copy_(self._kept[name].to(p.device, p.dtype))
        return True

    def ending(self, step: int, out_of_time: bool) -> dict:
        """The run's last record (plan/plateau.py): the held-out loss of the model it
        saves (the best's), which step's model that is, and why training ended."""
        why = PLATEAU if self.plateau_at is not None else BUDGET if out_of_time else LENGTH
        best = self.best or (None, step)
        value = best[0] if best[0] is None or not self.higher else -best[0]
        return ending_record(step, best[1], value, why, self.plateau_at, self.key)
