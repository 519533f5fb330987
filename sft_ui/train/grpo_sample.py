"""Answers sampled as GRPO's training samples them, and scored by a run's rewards: `sample`
has the model write `n` answers to each of a few prompts (temperature, no top-k, top-p 1)
and scores them; `Sampled` holds them, with each prompt's share of groups whose rewards
differ. The probe before a run (grpo_signal.py) and Test rewards (grpo_try.py) both
sample here. Knows nothing of the quick path's choices or of the page.
"""
from __future__ import annotations

import dataclasses

from sft_ui.config import RunConfig
from sft_ui.data.prompt_preview import prompt_seen
from sft_ui.rewards.check import as_completions, score_table
from sft_ui.train.grpo import reward_weights


@dataclasses.dataclass
class Sampled:
    """The answers of one probe: `group` answers to each prompt, in prompt order, with
    their scores (score_table's rows), tokens, prompts and data columns, and which were
    cut at the length limit (still writing when they reached it)."""
    temperature: float
    group: int
    table: list[dict]
    ids: list[list[int]]
    prompts: list
    columns: dict[str, list]
    cut: list[bool] = dataclasses.field(default_factory=list)

    def totals(self) -> list[list[float]]:
        """Each prompt's answers' total rewards (a skipped answer counts as 0)."""
        values = [r["total"] if r["total"] is not None else 0.0 for r in self.table]
        return [values[i:i + self.group] for i in range(0, len(values), self.group)]

    def spread(self, n: int) -> float:
        """The share of groups of `n` answers expected to hold two different rewards: for
        each prompt, 1 less the chance that n answers drawn from its answers' rewards
        are all one value; the mean over the prompts."""
        shares = []
        for totals in self.totals():
            counts: dict[float, int] = {}
            for t in totals:
                counts[round(t, 6)] = counts.get(round(t, 6), 0) + 1
            shares.append(1 - sum((c / len(totals)) ** n for c in counts.values()))
        return sum(shares) / max(len(shares), 1)

    def rewarded(self) -> list[int]:
        """The answers that scored above the lowest of their prompt's answers."""
        out = []
        for p, totals in enumerate(self.totals()):
            low = min(totals)
            out += [p * self.group + i for i, t in enumerate(totals) if t > low + 1e-9]
        return out

    def alike(self) -> str:
        """How the answers scored when they all scored alike: the one value, or a range."""
        values = sorted({round(t, 3) for totals in self.totals() for t in totals})
        return f"{values[0]:g}" if len(values) == 1 else f"{values[0]:g} to {values[-1]:g}"


def sample(model, tokenizer, cfg: RunConfig, data, functions, n: int, temperature: float,
           max_new_tokens: int, rows: list[dict]) -> Sampled:
    """`n` answers to each of `rows` (of `data`, load_prompts'), sampled as GRPOTrainer
    samples (temperature, no top-k, top-p 1), scored by `functions`."""
    import torch  # heavy: loaded on first use
    model.eval()
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    try:
        enc = tokenizer([prompt_seen(r["prompt"], tokenizer) for r in rows],
                        return_tensors="pt", padding=True, add_special_tokens=False)
        enc = enc.to(model.device)
        torch.manual_seed(cfg.seed)
        with torch.no_grad():
            out = model.generate(**enc, do_sample=True, temperature=temperature, top_k=0,
                                 top_p=1.0, max_new_tokens=max_new_tokens, use_cache=True,
                                 num_return_sequences=n, pad_token_id=tokenizer.pad_token_id)
    finally:
        tokenizer.padding_side = side
    written = out[:, enc["input_ids"].shape[1]:]
    ids = [[t for t in seq.tolist() if t != tokenizer.pad_token_id] for seq in written]
    ends = {tokenizer.pad_token_id, tokenizer.eos_token_id,
            *_listed(model.generation_config.eos_token_id)}
    cut = [int(seq[-1]) not in ends for seq in written]  # (an ended answer is padded after)
    repeated = [r for r in rows for _ in range(n)]
    columns = {k: [r.get(k) for r in repeated] for k in data.source.columns if k != "prompt"}
    prompts_of = [r["prompt"] for r in repeated]
    texts = tokenizer.batch_decode(ids, skip_special_tokens=True)
    table = score_table(functions, prompts_of, as_completions(texts, data.conversational), columns,
                        weights=reward_weights(cfg, functions), completion_ids=ids)
    return Sampled(temperature, n, table, ids, prompts_of, columns, cut)


def _listed(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]
