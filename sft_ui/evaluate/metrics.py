"""Scores of answers against references, from established libraries: ROUGE-1/2/L
F-measures (rouge-score, Google's reimplementation of ROUGE-1.5.5), corpus BLEU and chrF
(sacrebleu, with its default tokenisation), plus exact match (equal after trimming
surrounding whitespace), answer length, and, where references are JSON, the share of
answers that parse as JSON. Every score but length is 0-100. Knows nothing of models.
"""
from __future__ import annotations

import json
import statistics

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
# The scores in the order a page shows them, with their names there.
NAMES = {"exact_match": "Exact match (%)", "rouge1": "ROUGE-1", "rouge2": "ROUGE-2",
         "rougeL": "ROUGE-L", "bleu": "BLEU", "chrf": "chrF",
         "answer_words": "Answer length (words)", "answer_chars": "Answer length (characters)",
         "json_valid": "Valid JSON (% of JSON references)"}


def is_json(text: str) -> bool:
    """Whether a text is a JSON object or array (a bare number or word is not counted
    as a JSON answer)."""
    try:
        return isinstance(json.loads(text.strip()), (dict, list))
    except (json.JSONDecodeError, ValueError):
        return False


def score(answers: list[str], references: list[str]) -> dict:
    """The scores of `answers` (one per reference); json_valid is None when no reference
    is JSON."""
    import sacrebleu  # sacrebleu: loaded on first use
    from rouge_score import rouge_scorer
    if not answers or len(answers) != len(references):
        raise ValueError("score needs one answer per reference, and at least one")
    scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES))
    rouge = [scorer.score(ref, ans) for ans, ref in zip(answers, references)]
    out = {"rows": len(answers),
           "exact_match": 100 * statistics.fmean(a.strip() == r.strip()
                                                for a, r in zip(answers, references))}
    for kind in ROUGE_TYPES:
        out[kind] = 100 * statistics.fmean(r[kind].fmeasure for r in rouge)
    out["bleu"] = sacrebleu.corpus_bleu(answers, [references]).score
    out["chrf"] = sacrebleu.corpus_chrf(answers, [references]).score
    out["answer_words"] = statistics.fmean(len(a.split()) for a in answers)
    out["answer_chars"] = statistics.fmean(len(a) for a in answers)
    json_answers = [is_json(a) for a, r in zip(answers, references) if is_json(r)]
    out["json_valid"] = 100 * statistics.fmean(json_answers) if json_answers else None
    out["json_references"] = len(json_answers)
    return out
