"""A time-budgeted run judged by its held-out rows while it trains (the policy:
plan/plateau.py): every evaluation's loss is heard; the trainable weights of the best one
so far are kept (in memory: a LoRA adapter's few megabytes, or every weight of a full
fine-tune); once PATIENCE evaluations in a row bring no gain, the held-out
loss has reached its plateau and the run stops; at its end the best model is put back
before it is saved, and the run's last record says which model was kept and why it
ended (`ending`).

The callback (train/callbacks.py) asks for an evaluation at the run's last step, so the
model the run ends with is judged too. Not after a Stop: the person asked for the model
as it is. Knows nothing of the UI; reports through the callback's sink and log.
"""
from __future__ import annotations

import torch

from sft_ui.plan import plateau
from sft_ui.plan.plateau import BUDGET, LENGTH, PATIENCE, PLATEAU, ending_record


class HeldOut:
    def __init__(self, patience: int = PATIENCE):
        self.patience = patience
        self.best: tuple[float, int] | None = None  # (held-out loss, step)
        self.last_step: int | None = None  # the step of the latest evaluation
        self.since = 0  # evaluations since the latest gain
        self.plateau_at: int | None = None
        self._kept: dict[str, torch.Tensor] = {}

    def heard(self, loss: float, step: int, model) -> bool:
        """An evaluation's loss at `step`; True when it is the plateau (stop here)."""
        self.last_step = step
        if self.best is None or plateau.is_better(loss, self.best[0]):
            gain = self.best is None or plateau.is_gain(loss, self.best[0])
            self.best = (loss, step)
            self._keep(model)
            self.since = 0 if gain else self.since + 1
        else:
            self.since += 1
        if self.since >= self.patience and self.plateau_at is None:
            self.plateau_at = step
            return True
        return False

    def _keep(self, model) -> None:
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
        return ending_record(step, best[1], best[0], why)
