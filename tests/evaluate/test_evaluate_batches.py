"""Evaluation answers in batches, on a tiny model whose answers depend on the whole prompt:
batches of 8 answer and score as one prompt at a time does, for text and chats, and one
evaluation runs at a time."""
import json
import threading
from pathlib import Path

import pytest

from sft_ui.chat import ChatService, GenSettings
from sft_ui.config import RunConfig
from sft_ui.evaluate.job import EvaluationBusy, Evaluator
from sft_ui.evaluate.metrics import score
from tests.evaluate.test_evaluate import _finished


@pytest.fixture(scope="module")
def wordy_model(tmp_path_factory, tiny_model_dir):
    """A tiny random model (2 layers, width 64, 4 heads on 2 KV heads, the real tokenizer)
    whose greedy answers depend on the whole prompt: weights drawn 5x wider than the
    default (init 0.1), where the fixtures' model mostly repeats the prompt's last word.
    Answering without the attention mask changes most of its answers."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM
    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(
        vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
        tie_word_embeddings=True, initializer_range=0.1, bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id))
    with torch.no_grad():  # no special token first: visible text
        model.get_input_embeddings().weight[list(tok.added_tokens_decoder)] = 0
    out = tmp_path_factory.mktemp("wordy-model")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


WORDS = "the quick brown fox jumps over a lazy dog while seven tired cats watch".split()


def _prompts(kind: str, n: int = 10) -> list:
    """n prompts of 1 to 56 words (4 to 63 tokens as the model sees them): text, or
    chats (one user turn; or a system prompt and an earlier exchange before it)."""
    texts = [" ".join(WORDS[:1 + (i * 5) % 14] * (1 + i % 4)) for i in range(n)]
    if kind == "text":
        return texts
    return [[{"role": "user", "content": t}] if i % 3 else
            [{"role": "system", "content": "Answer briefly."},
             {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."},
             {"role": "user", "content": t}] for i, t in enumerate(texts)]


def _test_file(path: Path, prompts: list, references: list[str]) -> str:
    rows = [{"messages": p + [{"role": "assistant", "content": r}]} if isinstance(p, list)
            else {"prompt": p, "completion": r} for p, r in zip(prompts, references)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _one_by_one(model_dir: str, prompts: list, settings: GenSettings) -> list[str]:
    from sft_ui.evaluate.answer import answer_batch
    from sft_ui.models import load_model_and_tokenizer
    model, tokenizer = load_model_and_tokenizer(model_dir)
    model.eval()
    return [answer_batch(model, tokenizer, [p], settings)[0] for p in prompts]


@pytest.mark.parametrize("kind", ["text", "chat"])
def test_batches_of_8_answer_and_score_as_one_at_a_time(kind, wordy_model, tmp_path):
    """Prompts of 4 to 63 tokens, left-padded together in batches of 8 (the default;
    10 rows: a batch of 8 and one of 2), get the greedy answers each gets alone, so the
    scores are the same too. The references: every other row the answer the model gives
    alone (exact match 50%), the others its first half and other words."""
    from sft_ui.runs import RunManager, create_run
    settings = GenSettings(max_new_tokens=12)
    prompts = _prompts(kind)
    # (a text prompt reaches the chat model as the user's turn, as it trained: as_chat)
    asked = [[{"role": "user", "content": p}] if isinstance(p, str) else p for p in prompts]
    alone = _one_by_one(wordy_model, asked, settings)
    assert len(set(alone)) == len(alone) and all(alone)  # the answers tell rows apart
    references = [a if i % 2 == 0 else " ".join(a.split()[:len(a.split()) // 2] + ["no"])
                  for i, a in enumerate(alone)]
    data = _test_file(tmp_path / f"{kind}.jsonl", prompts, references)
    run = create_run(tmp_path / "runs", RunConfig(model_name_or_path=wordy_model))
    evaluator = Evaluator(ChatService(RunManager(tmp_path / "runs")))
    results = {}
    for batch in (1, 8):
        job = evaluator.start([f"{run.id}/base"], data, settings=settings, batch_size=batch)
        snap = _finished(evaluator, job)
        assert snap["state"] == "done" and snap["rows_answered"] == len(prompts)
        assert job.test.format == ("prompt/completion" if kind == "text" else "messages")
        results[batch] = (job.answers[0], snap["scores"][0])
    assert results[1][0] == results[8][0] == alone
    assert results[1][1] == results[8][1] == score(alone, references)
    assert results[8][1]["exact_match"] == 50.0 and 50 < results[8][1]["rougeL"] < 100


def test_one_evaluation_at_a_time(wordy_model, tmp_path, monkeypatch):
    """A second evaluation while one answers is refused at once, with a message that
    says why and what to do; the first goes on unaffected (its rows, its answers, its
    scores, its files), and once it has ended the next one starts."""
    from sft_ui.evaluate import answer as answer_module
    from sft_ui.runs import RunManager, create_run
    settings = GenSettings(max_new_tokens=8)
    prompts = _prompts("chat", 3)
    alone = _one_by_one(wordy_model, prompts, settings)
    first_file = _test_file(tmp_path / "first.jsonl", prompts, alone)
    other_file = _test_file(tmp_path / "other.jsonl", _prompts("text", 2), ["a", "b"])
    run = create_run(tmp_path / "runs", RunConfig(model_name_or_path=wordy_model))
    evaluator = Evaluator(ChatService(RunManager(tmp_path / "runs")))
    answering, go_on = threading.Event(), threading.Event()
    real = answer_module.answer_batch

    def held(*args, **kwargs):  # the first evaluation's first batch waits here
        answering.set()
        assert go_on.wait(120)
        return real(*args, **kwargs)
    monkeypatch.setattr(answer_module, "answer_batch", held)
    first = evaluator.start([f"{run.id}/base"], first_file, settings=settings)
    assert answering.wait(120) and first.state == "answering"
    with pytest.raises(EvaluationBusy) as refused:
        evaluator.start(["base"], other_file, settings=GenSettings(max_new_tokens=4),
                        batch_size=1)
    assert str(refused.value) == "An evaluation is running: wait for it to end, or stop it."
    assert evaluator.current() is first and first.state == "answering"
    go_on.set()
    snap = _finished(evaluator, first)
    assert snap["state"] == "done" and snap["rows_asked"] == snap["rows_answered"] == 3
    assert first.answers == [alone] and snap["scores"][0]["exact_match"] == 100.0
    assert first.settings.max_new_tokens == 8 and first.batch_size == 8
    summaries = list((tmp_path / "runs" / "evaluations").glob("*.json"))  # a base: no run's
    assert [Path(snap["files"]["summary"])] == summaries  # the refused one wrote nothing
    assert json.loads(summaries[0].read_text())["rows_answered"] == 3
    second = evaluator.start([f"{run.id}/base"], other_file, settings=settings)
    assert _finished(evaluator, second)["rows_answered"] == 2
