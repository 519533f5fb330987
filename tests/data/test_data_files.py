"""Data files as people bring them: every bad file gives a message naming the file, line
and fix; a file not in UTF-8 or over the size limit says so, a Shift JIS CSV reads with a
note; an upload keeps its name and is kept with the runs; a Hub dataset's errors name its
config and split, and say when the Hub cannot be reached."""
from pathlib import Path

import pytest

from sft_ui.config import RunConfig
from sft_ui.data import DataError, load_data, store_upload
from sft_ui.data.load import read_source
from sft_ui.data.preview import preview
from sft_ui.models import hub_reachable
from tests.data.test_data import _cfg, _jsonl, _save_to_disk

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
