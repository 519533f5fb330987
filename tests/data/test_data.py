"""Datasets: every source and format loads, trains 2 steps, holds out its eval rows, and
previews with the right loss mask, token by token."""
import json

import pytest

from sft_ui.config import RunConfig
from sft_ui.data import load_data
from sft_ui.data.preview import preview
from sft_ui.models import load_tokenizer
from sft_ui.train.engine import train

QA = [("What is two plus two?", "Four."), ("Name a colour.", "Blue."),
      ("Say hello.", "Hello!"), ("Count to three.", "One, two, three.")]


def _jsonl(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def _parquet(path, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.Table.from_pylist(rows), path)


def _save_to_disk(path, rows):
    from datasets import Dataset, DatasetDict
    DatasetDict({"train": Dataset.from_list(rows), "test": Dataset.from_list(rows[:2])}) \
        .save_to_disk(str(path))


# name -> (file name, writer(path), extra settings, expected format)
SOURCES = {
    "text-jsonl": ("t.jsonl", lambda p: p.write_text(_jsonl(
        {"text": f"{q} {a}"} for q, a in QA)), {}, "text"),
    "text-field-csv": ("reviews.csv", lambda p: p.write_text(
        "review,stars\n" + "".join(f'"{q} {a}",5\n' for q, a in QA)),
        {"dataset_text_field": "review"}, "text"),
    "messages-json": ("chat.json", lambda p: p.write_text(json.dumps(
        [{"messages": [{"role": "user", "content": q}, {"role": "assistant", "content": a}]}
         for q, a in QA])), {}, "messages"),
    "prompt-completion-jsonl": ("pc.jsonl", lambda p: p.write_text(_jsonl(
        {"prompt": q, "completion": " " + a} for q, a in QA)), {}, "prompt/completion"),
    "alpaca-tsv": ("alpaca.tsv", lambda p: p.write_text(
        "instruction\tinput\toutput\n" + "".join(f"{q}\t\t{a}\n" for q, a in QA)),
        {}, "alpaca"),
    "sharegpt-parquet": ("sg.parquet", lambda p: _parquet(p, [
        {"conversations": [{"from": "human", "value": q}, {"from": "gpt", "value": a}]}
        for q, a in QA]), {}, "sharegpt"),
    "template-csv": ("qa.csv", lambda p: p.write_text(
        "question,answer\n" + "".join(f'"{q}","{a}"\n' for q, a in QA)),
        {"dataset_format": "template", "dataset_template": "Q: {question}\nA: {answer}"},
        "template"),
    "txt-lines": ("notes.txt", lambda p: p.write_text(
        "".join(f"{q} {a}\n\n" for q, a in QA)), {}, "text"),
    "txt-chunks": ("book.txt", lambda p: p.write_text(" ".join(
        f"{q} {a}" for q, a in QA * 10)), {"txt_mode": "chunks", "max_length": 16}, "text"),
    "save-to-disk": ("saved", lambda p: _save_to_disk(p, [{"text": f"{q} {a}"} for q, a in QA]),
                     {}, "text"),
    "demo": (None, None, {}, "messages"),
}


class Sink:
    def __init__(self):
        self.metrics, self.samples = [], []

    def progress(self, step, max_steps):
        pass

    def add_metrics(self, record):
        self.metrics.append(record)

    def add_samples(self, rows):
        self.samples.extend(rows)

    def stop_requested(self):
        return False


def _cfg(tiny_cfg, **extra) -> RunConfig:
    return RunConfig.from_dict({**tiny_cfg, "sample_steps": 0, **extra})


@pytest.mark.parametrize("kind", list(SOURCES))
def test_each_source_and_format_trains_two_steps(kind, tmp_path, tiny_cfg):
    filename, write, extra, fmt = SOURCES[kind]
    name = "demo"
    if filename:
        path = tmp_path / filename
        write(path)
        name = str(path)
    cfg = _cfg(tiny_cfg, dataset_name=name, **extra)
    data = load_data(cfg)
    assert data.format == fmt
    assert len(data.train) >= 4
    if kind == "txt-chunks":
        assert all(len(r["text"]) <= 16 * 4 + 40 for r in data.train)
    sink = Sink()
    out = train(cfg, tmp_path / "run", sink)
    losses = [m["loss"] for m in sink.metrics if "loss" in m]
    assert len(losses) == 2 and all(loss == loss and loss > 0 for loss in losses)
    assert (out / "model.safetensors").exists()


def test_eval_fraction_is_held_out_with_the_seed_and_logged(tmp_path, tiny_cfg):
    rows = [{"text": f"row {i} " + "word " * (i % 5)} for i in range(20)]
    path = tmp_path / "t.jsonl"
    path.write_text(_jsonl(rows))
    cfg = _cfg(tiny_cfg, dataset_name=str(path), eval_fraction=0.25, eval_steps=1)
    a, b = load_data(cfg), load_data(cfg)
    assert len(a.eval) == 5 and len(a.train) == 15 and a.eval == b.eval
    assert not {r["text"] for r in a.eval} & {r["text"] for r in a.train}
    other = load_data(_cfg(tiny_cfg, dataset_name=str(path), eval_fraction=0.25, seed=7))
    assert other.eval != a.eval
    sink = Sink()
    train(cfg, tmp_path / "run", sink)
    assert [m for m in sink.metrics if "eval_loss" in m]


def test_eval_file_split_and_limit(tmp_path, tiny_cfg):
    train_path, eval_path = tmp_path / "train.jsonl", tmp_path / "eval.csv"
    train_path.write_text(_jsonl({"text": f"line {i}"} for i in range(10)))
    eval_path.write_text("text\nheld one\nheld two\n")
    data = load_data(_cfg(tiny_cfg, dataset_name=str(train_path),
                          eval_dataset_name=str(eval_path), max_train_samples=3))
    assert [r["text"] for r in data.eval] == ["held one", "held two"]
    assert [r["text"] for r in data.train] == ["line 0", "line 1", "line 2"]
    folder = tmp_path / "saved"
    _save_to_disk(folder, [{"text": f"{q} {a}"} for q, a in QA])
    data = load_data(_cfg(tiny_cfg, dataset_name=str(folder), dataset_test_split="test"))
    assert len(data.train) == 4 and len(data.eval) == 2


def _flags(p, i=0):
    return [t["loss"] for t in p["examples"][i]["tokens"]]


def test_preview_mask_prompt_completion_token_by_token(tmp_path, tiny_cfg, tiny_model_dir):
    path = tmp_path / "pc.jsonl"
    path.write_text(_jsonl({"prompt": f"Question: {q}\nAnswer:", "completion": " " + a}
                           for q, a in QA))
    p = preview(_cfg(tiny_cfg, dataset_name=str(path), max_length=256,
                     prompts_as_chat=False))
    tok = load_tokenizer(tiny_model_dir)
    prompt, completion = "Question: What is two plus two?\nAnswer:", " Four."
    n_prompt = len(tok(prompt)["input_ids"])
    full = tok(prompt + completion + tok.eos_token)["input_ids"]
    assert [t["text"] for t in p["examples"][0]["tokens"]] == [tok.decode([i]) for i in full]
    assert _flags(p) == [False] * n_prompt + [True] * (len(full) - n_prompt)
    assert p["format"] == "prompt/completion" and p["rows"] == 4
    assert p["examples"][0]["raw"] == {"prompt": prompt, "completion": completion}
    # Loss on every token when completion-only loss is turned off.
    p_all = preview(_cfg(tiny_cfg, dataset_name=str(path), completion_only_loss=False,
                         prompts_as_chat=False))
    assert all(_flags(p_all))


@pytest.mark.parametrize("columns", [("prompt", "completion"), ("question", "answer"),
                                     ("質問", "回答")])
def test_text_prompts_reach_a_chat_model_as_the_user_turn(tmp_path, tiny_cfg, tiny_model_dir,
                                                          columns):
    """A text prompt and its answer (prompt/completion, or a question and its answer under
    other names) train in the chat template, as Chat asks: the text the model sees is the
    template's, with the loss on the assistant's reply only; the preview says so."""
    question, answer = columns
    path = tmp_path / "qa.jsonl"
    path.write_text(_jsonl({question: q, answer: a} for q, a in QA))
    p = preview(_cfg(tiny_cfg, dataset_name=str(path), max_length=256))
    tok = load_tokenizer(tiny_model_dir)
    q, a = QA[0]
    user = [{"role": "user", "content": q}]
    asked = tok.apply_chat_template(user, tokenize=False, add_generation_prompt=True)
    whole = tok.apply_chat_template(user + [{"role": "assistant", "content": a}],
                                    tokenize=False)
    assert p["examples"][0]["text"] == whole and whole.startswith(asked)
    n_asked = len(tok(asked, add_special_tokens=False)["input_ids"])
    flags = _flags(p)
    assert not any(flags[:n_asked]) and all(flags[n_asked:n_asked + 3])
    assert any("as the user's turn of its chat template" in n for n in p["notes"])
    assert p["format"] == ("prompt/completion" if question == "prompt" else "question/answer")


def test_preview_shows_whole_characters_with_their_mask(tmp_path, tiny_cfg, tiny_model_dir):
    """Japanese letters the byte-level tokenizer splits over 2 or 3 tokens (each "\ufffd"
    alone, 「������」 in the page) are shown whole, each group with its loss mask."""
    path = tmp_path / "ja.jsonl"
    path.write_text(_jsonl([{"prompt": "日本の首都はどこですか？", "completion": "東京です。"}]))
    p = preview(_cfg(tiny_cfg, dataset_name=str(path), max_length=256,
                     prompts_as_chat=False))
    tok = load_tokenizer(tiny_model_dir)
    ids = tok("日本の首都はどこですか？東京です。" + tok.eos_token)["input_ids"]
    assert sum("\ufffd" in tok.decode([i]) for i in ids) > 5  # split letters, one by one
    tokens = p["examples"][0]["tokens"]
    assert not [t["text"] for t in tokens if "\ufffd" in t["text"]], tokens
    assert "".join(t["text"] for t in tokens) == p["examples"][0]["text"]
    assert "".join(t["text"] for t in tokens if not t["loss"]) == "日本の首都はどこですか？"
    assert "".join(t["text"] for t in tokens if t["loss"]) == "東京です。" + tok.eos_token
    assert len(tokens) < len(ids)


def test_preview_mask_messages_token_by_token(tmp_path, tiny_cfg, tiny_model_dir):
    tok = load_tokenizer(tiny_model_dir)
    p = preview(_cfg(tiny_cfg, max_length=256))  # the demo set: chat messages
    raw = p["examples"][0]["raw"]["messages"]
    text = tok.apply_chat_template(raw, tokenize=False)
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert p["examples"][0]["text"] == text
    assert [t["text"] for t in p["examples"][0]["tokens"]] == [tok.decode([i]) for i in ids]
    assert _flags(p) == [True] * len(ids)  # whole conversation counts by default
    # Loss on answers only: everything up to the assistant's turn is masked.
    p = preview(_cfg(tiny_cfg, max_length=256, completion_only_loss=True))
    prefix = tok.apply_chat_template(raw[:-1], tokenize=False, add_generation_prompt=True)
    n_prefix = len(tok(prefix, add_special_tokens=False)["input_ids"])
    assert _flags(p) == [False] * n_prefix + [True] * (len(ids) - n_prefix)
    assert p["stats"]["loss_tokens_per_epoch"] < p["stats"]["tokens_per_epoch"]


def test_preview_stats_and_truncation(tmp_path, tiny_cfg):
    """Plain text longer than Max length is split into windows (data/windows.py), not
    cut; an answer longer than it is cut, and the preview marks the tokens cut."""
    path = tmp_path / "t.jsonl"
    path.write_text(_jsonl([{"text": "short"}, {"text": "word " * 100}, {"text": "a b c"}]))
    p = preview(_cfg(tiny_cfg, dataset_name=str(path), max_length=20, max_steps=3))
    s = p["stats"]
    assert s["over_max_length"] == 0 and s["max"] <= 20 and s["min"] <= 3
    assert p["rows"] > 3 and any("split into" in str(n) for n in p["notes"])
    assert s["epochs_in_max_steps"] == round(3 * 2 / p["rows"], 2)
    long = tmp_path / "pc.jsonl"
    long.write_text(_jsonl([{"prompt": "Say it", "completion": "word " * 100}] * 3))
    p = preview(_cfg(tiny_cfg, dataset_name=str(long), max_length=20, max_steps=3))
    assert p["stats"]["over_max_length"] == 3 and p["stats"]["max"] > 100
    assert p["stats"]["tokens_per_epoch"] == sum(min(len(e["tokens"]), 20)
                                                 for e in p["examples"])
    cut = [t["truncated"] for t in p["examples"][0]["tokens"]]
    assert cut == [False] * 20 + [True] * (len(cut) - 20)
