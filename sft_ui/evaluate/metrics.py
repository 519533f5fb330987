"""Scores of answers against references, from established libraries (rouge-score, sacrebleu)
plus exact match, answer length and valid JSON, every score but length 0-100; how the text
is cut into tokens is chosen from the references' letters. Knows nothing of models.
"""
from __future__ import annotations

import json
import re
import statistics
import unicodedata
from typing import Any

from sft_ui.data.language import MOSTLY, SCRIPTS, language_shares
from sft_ui.data.language import NAMES as LANGUAGES
from sft_ui.i18n.message import Message

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")
# The scores in the order a page shows them, with their names there.
NAMES = {"exact_match": "Exact match (%)", "rouge1": "ROUGE-1", "rouge2": "ROUGE-2",
         "rougeL": "ROUGE-L", "bleu": "BLEU", "chrf": "chrF",
         "answer_words": "Answer length (words)", "answer_chars": "Answer length (characters)",
         "json_valid": "Valid JSON (% of JSON references)",
         "continuation_match": "Continuation match (%)",
         "perplexity": "Held-out perplexity (lower is better)"}
# A continuation matches where it begins as the text does: its first words, or for text
# without spaces between words its first characters.
MATCH_WORDS, MATCH_CHARS = 4, 8
# Languages scored over characters, and their BLEU tokenizer (sacrebleu's names).
CHARACTER_LANGUAGES = {"japanese": "char", "chinese": "zh", "korean": "char", "thai": "char"}
NO_SPACES = frozenset({"japanese", "chinese", "thai"})  # no spaces between words
WORDS_OF_ANY_SCRIPT = frozenset({"cyrillic", "arabic", "devanagari"})
# Each character of these scripts is one ROUGE token (a run of other letters is one).
_ONE = "[" + "".join(f"{chr(low)}-{chr(high)}" for script in ("kana", "han", "hangul", "thai")
                     for low, high in SCRIPTS[script]) + "]"
_CHARACTER_TOKEN = re.compile(f"{_ONE}|(?:(?!{_ONE}).)+")
# How each choice cut the text, as the page says it (tokens' values).
ROUGE_TOKENS = {
    "words": "ROUGE: over words (rouge-score's own tokenizer: Latin letters and digits).",
    "script_words": "ROUGE: over words of any script (split at spaces, punctuation and "
                    "symbols).",
    "characters": "ROUGE: over characters (each CJK or Thai character one token, a run of "
                  "other letters or digits one).",
}
BLEU_TOKENS = {
    "13a": "BLEU: over sacrebleu's 13a tokens (words and punctuation).",
    "char": "BLEU: over characters (sacrebleu's char tokenizer).",
    "zh": "BLEU: over sacrebleu's zh tokens (each Chinese character one token, other words "
          "whole).",
}
CHRF_TOKENS = "chrF: over characters, as for every language (sacrebleu's chrF)."
LENGTH_TOKENS = {"words": "Answer length: in words and in characters.",
                 "characters": "Answer length: in characters; in words it is not valid "
                               "(no spaces between words)."}


def is_json(text: str) -> bool:
    """Whether a text is a JSON object or array (a bare number or word is not counted
    as a JSON answer)."""
    try:
        return isinstance(json.loads(text.strip()), (dict, list))
    except (json.JSONDecodeError, ValueError):
        return False


def tokenisation(references: list[str]) -> dict:
    """How a test set's text is cut, from its references' letters: the language chosen
    (data/language.py's key; None for no one language) and the ROUGE, BLEU and length
    units. Scripts without spaces between words (CJK, Thai) are chosen when they hold
    most of the letters together; mostly Latin (or no one script) is scored exactly as
    rouge-score and sacrebleu (13a) score by default."""
    shares = language_shares(references, limit=len(references))
    characters = {k: v for k, v in shares.items() if k in CHARACTER_LANGUAGES}
    top = max(shares, key=shares.__getitem__, default=None)
    if sum(characters.values()) >= MOSTLY:
        most = max(characters, key=characters.__getitem__)
        return {"language": most, "rouge": "characters",
                "bleu": CHARACTER_LANGUAGES[most],
                "length": "characters" if most in NO_SPACES else "words"}
    language = top if top and shares[top] >= MOSTLY else None
    rouge = "script_words" if language in WORDS_OF_ANY_SCRIPT else "words"
    return {"language": language, "rouge": rouge, "bleu": "13a", "length": "words"}


class ScriptTokenizer:
    """rouge-score's tokenizer interface (`tokenize`) for text beyond ASCII: lower case,
    cut at spaces, punctuation and symbols (any script's letters, marks and digits
    kept); with `characters`, each CJK or Thai character is a token of its own."""

    def __init__(self, characters: bool):
        self.characters = characters

    def tokenize(self, text: str) -> list[str]:
        words = "".join(c if unicodedata.category(c)[0] in "LMN" else " "
                        for c in text.lower()).split()
        if not self.characters:
            return words
        return [token for word in words for token in _CHARACTER_TOKEN.findall(word)]


def rouge_tokenizer(unit: str):
    """The tokenizer ROUGE uses for a unit of ROUGE_TOKENS (rouge-score's own for
    words)."""
    from rouge_score import tokenizers  # rouge-score: loaded on first use
    if unit == "words":
        return tokenizers.DefaultTokenizer(use_stemmer=False)  # RougeScorer's default
    return ScriptTokenizer(characters=unit == "characters")


def score(answers: list[str], references: list[str]) -> dict:
    """The scores of `answers` (one per reference); json_valid is None when no reference
    is JSON; "tokens" says how the text was cut (`tokenisation`), "not_valid" which
    scores are None because they do not apply to this text (never 0: answer length in
    words without spaces between words, ROUGE or BLEU where no reference holds a
    token)."""
    import sacrebleu  # sacrebleu: loaded on first use
    from rouge_score import rouge_scorer
    if not answers or len(answers) != len(references):
        raise ValueError("score needs one answer per reference, and at least one")
    tokens = tokenisation(references)
    tokenizer = rouge_tokenizer(tokens["rouge"])
    out: dict[str, Any] = {"rows": len(answers),
                           "exact_match": 100 * statistics.fmean(
                               a.strip() == r.strip() for a, r in zip(answers, references))}
    not_valid: list[str] = []
    if any(tokenizer.tokenize(r) for r in references):
        scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), tokenizer=tokenizer)
        rouge = [scorer.score(ref, ans) for ans, ref in zip(answers, references)]
        for kind in ROUGE_TYPES:
            out[kind] = 100 * statistics.fmean(r[kind].fmeasure for r in rouge)
    else:
        out.update(dict.fromkeys(ROUGE_TYPES))
        not_valid += ROUGE_TYPES
    if any(r.strip() for r in references):
        out["bleu"] = sacrebleu.corpus_bleu(answers, [references],
                                            tokenize=tokens["bleu"]).score
    else:
        out["bleu"] = None
        not_valid.append("bleu")
    out["chrf"] = sacrebleu.corpus_chrf(answers, [references]).score
    if tokens["length"] == "words":
        out["answer_words"] = statistics.fmean(len(a.split()) for a in answers)
    else:
        out["answer_words"] = None
        not_valid.append("answer_words")
    out["answer_chars"] = statistics.fmean(len(a) for a in answers)
    json_answers = [is_json(a) for a, r in zip(answers, references) if is_json(r)]
    out["json_valid"] = 100 * statistics.fmean(json_answers) if json_answers else None
    out["json_references"] = len(json_answers)
    out["tokens"], out["not_valid"] = tokens, not_valid
    return out


def continuation_match(answers: list[str], references: list[str]) -> float:
    """The share (0-100) of continuations that begin as the text's own does
    (MATCH_WORDS words, or MATCH_CHARS characters where the text has no spaces)."""
    return 100 * statistics.fmean(_head(a) == _head(r) for a, r in zip(answers, references))


def _head(text: str) -> str:
    words = text.split()
    if len(words) > MATCH_WORDS:
        return " ".join(words[:MATCH_WORDS]).lower()
    return "".join(words)[:MATCH_CHARS].lower()


def tokenisation_lines(scores: dict) -> list[str]:
    """How the scores cut the text, one line per score (Messages; the page translates
    them): the heading, then ROUGE, BLEU, chrF and answer length. [] for scores saved
    before tokens were recorded."""
    tokens = scores.get("tokens")
    if not tokens:
        return []
    not_valid = set(scores.get("not_valid", ()))
    label = LANGUAGES.get(tokens.get("language"))
    head = (Message("How the text was cut for the scores (most of the references are in "
                    "{label}):", label=Message(label))
            if label else Message("How the text was cut for the scores:"))
    rouge = (Message("ROUGE: not valid here: no reference holds a word it counts.")
             if not_valid & set(ROUGE_TYPES) else Message(ROUGE_TOKENS[tokens["rouge"]]))
    bleu = (Message("BLEU: not valid here: every reference is empty.") if "bleu" in not_valid
            else Message(BLEU_TOKENS[tokens["bleu"]]))
    return [head, rouge, bleu, Message(CHRF_TOKENS), Message(LENGTH_TOKENS[tokens["length"]])]
