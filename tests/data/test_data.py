"""Datasets: every source and format loads, trains 2 steps, previews with the right
loss mask; a file in another encoding than UTF-8 reads with a note; every bad file gives
a message naming the file, line and fix."""
import json
from pathlib import Path

import pytest

from sft_ui.config import RunConfig
from sft_ui.data import DataError, load_data, store_upload
from sft_ui.data.load import read_source
from sft_ui.data.preview import preview
from sft_ui.models import hub_reachable, load_tokenizer
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


# ---- bad data ------------------------------------------------------------------
BAD = {
    "malformed-json": ("b.jsonl", '{"text": "ok"}\n\n{"text": "fine"}\n{"text": \n',
                       r"b\.jsonl: line 4 is not valid JSON"),
    "empty": ("e.jsonl", "", r"e\.jsonl is empty"),
    "csv-no-text-column": ("c.csv", "review,stars\ngood,5\n",
                           r"c\.csv line 2 matches no known format.*Columns: review, stars"),
    "message-without-role": ("m.jsonl", _jsonl([
        {"messages": [{"role": "user", "content": "hi"}]},
        {"messages": [{"content": "hi"}]}]),
        r"m\.jsonl line 2: entry 1 of 'messages' has no 'role'"),
    "message-without-content": ("m2.jsonl", _jsonl([
        {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant"}]}]),
        r"m2\.jsonl line 1: entry 2 of 'messages' has no 'content'"),
    "mixed-formats": ("x.jsonl", _jsonl([{"text": "plain"}, {"text": "more"}, {"messages": [
        {"role": "user", "content": "hi"}]}]),
        r"Mixed formats: x\.jsonl line 1 is text but x\.jsonl line 3 is messages"),
    "unsupported-extension": ("sheet.xlsx", "x", r"sheet\.xlsx: unsupported file type '\.xlsx'"),
    "json-not-records": ("n.json", '"just a string"', r"n\.json: expected an array of objects"),
    "csv-extra-fields": ("w.csv", "text\nfine\ntoo,many\n",
                         r"w\.csv: line 3 has more fields than the header"),
    "missing-file": ("", None, r"does not exist"),
}


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_files_name_the_file_line_and_fix(kind, tmp_path):
    filename, content, pattern = BAD[kind]
    path = tmp_path / (filename or "nowhere.jsonl")
    if content is not None:
        path.write_text(content)
    with pytest.raises(DataError, match=pattern):
        load_data(RunConfig(dataset_name=str(path)))


def test_not_utf8_and_over_the_size_limit(tmp_path, monkeypatch):
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(DataError, match=r"binary\.jsonl: line 2 is not UTF-8 text \(byte "
                                        r"128\)\. Save the file with UTF-8 encoding"):
        load_data(RunConfig(dataset_name=str(binary)))
    # UTF-8 up to a broken byte is not read as another encoding.
    path = tmp_path / "broken.csv"
    path.write_bytes("text\nfine\ncafé\n".encode() + b"caf\xff\n")
    with pytest.raises(DataError, match=r"broken\.csv: line 4 is not UTF-8"):
        load_data(RunConfig(dataset_name=str(path)))
    big = tmp_path / "big.jsonl"
    big.write_text(_jsonl({"text": "x" * 100} for _ in range(50)))
    monkeypatch.setenv("SFT_UI_MAX_DATA_MB", "0.001")
    with pytest.raises(DataError, match=r"big\.jsonl is .* over the limit"):
        load_data(RunConfig(dataset_name=str(big)))
    with pytest.raises(DataError, match="over the limit"):
        store_upload(big, tmp_path / "uploads")


JAPANESE_QA = [("日本の首都はどこですか？", "東京です。"),
               ("富士山の高さは？", "3776メートルです。"),
               ("「ありがとう」を英語で言うと？", "Thank you です。"),
               ("一週間は何日ですか？", "七日です。")]


def test_a_shift_jis_csv_is_read_with_a_note(tmp_path, tiny_cfg, tiny_model_dir):
    """A CSV that Excel saved on a Japanese Windows (cp932) reads as its UTF-8 twin, and
    the preview, the run's data and the plan say how it was read; with SmolLM2 they say
    too that the model does not know Japanese."""
    from sft_ui.plan import planner
    from sft_ui.ui.plan_text import plan_markdown
    text = "質問,回答\n" + "".join(f"{q},{a}\n" for q, a in JAPANESE_QA)
    utf8, sjis = tmp_path / "utf8.csv", tmp_path / "support.csv"
    utf8.write_text(text, encoding="utf-8")
    sjis.write_bytes(text.encode("cp932"))
    cfg = RunConfig()
    plain, read = read_source(str(utf8), cfg, "train"), read_source(str(sjis), cfg, "train")
    assert read.rows == plain.rows and read.columns == ["質問", "回答"] and plain.notes == []
    note = "support.csv was read as Shift-JIS (cp932), not UTF-8."
    assert read.notes == [note]
    model = tmp_path / "SmolLM2-135M-Instruct"  # the tiny model under the default's name
    model.symlink_to(tiny_model_dir, target_is_directory=True)
    settings = _cfg(tiny_cfg, model_name_or_path=str(model), dataset_name=str(sjis),
                    dataset_format="template", dataset_template="{質問}\n{回答}")
    assert load_data(settings).notes == [note]
    language = ("Most of this data is in Japanese, which SmolLM2-135M-Instruct was not "
                "trained for: its answers in Japanese will be poor. A small model trained for "
                "Japanese: Qwen/Qwen2.5-0.5B-Instruct (0.5B parameters).")
    assert preview(settings)["notes"] == [note, language]
    p = planner.plan_with_data(settings)
    assert p["data_notes"] == [note, language]
    assert note in plan_markdown(p) and language in plan_markdown(p)
    # Where the model knows Japanese (or is not known), only how the file was read.
    assert preview(_cfg(tiny_cfg, dataset_name=str(sjis), dataset_format="template",
                        dataset_template="{質問}\n{回答}"))["notes"] == [note]


def test_an_upload_keeps_its_name(tmp_path):
    """The stored file is named as the person's file (no prefix before its name); another
    file of the same name is kept apart, the same file once."""
    first, other = tmp_path / "a" / "qa.jsonl", tmp_path / "b" / "qa.jsonl"
    for path, text in ((first, "x"), (other, "y")):
        path.parent.mkdir()
        path.write_text(_jsonl([{"text": text}]))
    stored = [store_upload(p, tmp_path / "uploads") for p in (first, other, first)]
    assert all(Path(s).name == "qa.jsonl" for s in stored)
    assert stored[0] != stored[1] and stored[0] == stored[2]
    assert Path(stored[1]).read_text() == other.read_text()


def test_missing_split_and_template_column(tmp_path):
    folder = tmp_path / "saved"
    _save_to_disk(folder, [{"text": "a"}, {"text": "b"}])
    with pytest.raises(DataError, match=r"has no split 'validation'. Its splits: train, test"):
        load_data(RunConfig(dataset_name=str(folder), dataset_train_split="validation"))
    path = tmp_path / "qa.csv"
    path.write_text("question,answer\nq,a\n")
    with pytest.raises(DataError, match=r"uses \{reply\} but the data has no such column. "
                                        r"Columns: question, answer"):
        load_data(RunConfig(dataset_name=str(path), dataset_format="template",
                            dataset_template="{question} {reply}"))
    with pytest.raises(DataError, match=r"qa\.csv line 2: 'instruction' is missing "
                                        r"\(the row has question, answer\)"):
        load_data(RunConfig(dataset_name=str(path), dataset_format="alpaca"))


def test_hub_dataset_errors_name_config_and_split(monkeypatch):
    import datasets

    import sft_ui.models as models

    def refuse(name, config=None, split=None):
        raise ValueError(f"BuilderConfig '{config}' not found. Available: ['plain_text']")
    monkeypatch.setattr(models, "hub_reachable", lambda timeout=0: True)
    monkeypatch.setattr(datasets, "load_dataset", refuse)
    with pytest.raises(DataError, match=r"imdb \(config nope, split train\): BuilderConfig "
                                        r"'nope' not found. Available: \['plain_text'\]"):
        load_data(RunConfig(dataset_name="imdb", dataset_config="nope"))


@pytest.mark.skipif(hub_reachable(), reason="the Hub is reachable here")
def test_unreachable_hub_dataset_says_offline():
    with pytest.raises(DataError, match="offline"):
        load_data(RunConfig(dataset_name="imdb"))


def test_upload_is_kept_with_the_runs(tmp_path):
    src = tmp_path / "my data.jsonl"
    src.write_text(_jsonl([{"text": "hello"}]))
    stored = store_upload(src, tmp_path / "runs" / "uploads")
    assert stored.endswith("/my_data.jsonl") and store_upload(src, tmp_path / "runs" /
                                                              "uploads") == stored
    assert load_data(RunConfig(dataset_name=stored)).train == [{"text": "hello"}]
