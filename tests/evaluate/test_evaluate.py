"""Evaluate: a run trained on a few rows scores higher on them than its base; the scores
are the libraries' own, and Japanese text is scored over characters; Stop ends an
evaluation early; bad test sets get the training data's messages (a file no format fits,
what a test set needs); 質問/回答 columns are a test set; the files, card and Runs history
keep the latest evaluation; the /evaluate endpoint and the Evaluate tab in a real
browser."""
import csv
import json
import re
import statistics
import threading
from pathlib import Path

import pytest

from sft_ui.chat import ChatService, GenSettings
from sft_ui.config import RunConfig
from sft_ui.data import DataError, load_data
from sft_ui.evaluate.job import EvaluationBusy, Evaluator
from sft_ui.evaluate.metrics import score
from sft_ui.evaluate.testset import load_test_set
from tests.conftest import HANG, HANG_MS, wait_for

ROWS = [("The sky is", "blue"), ("The grass is", "green"), ("The snow is", "white"),
        ("The coal is", "black")]


def _qa_file(folder: Path) -> Path:
    path = folder / "colours.jsonl"
    path.write_text("".join(json.dumps({"prompt": q, "completion": " " + a}) + "\n"
                            for q, a in ROWS))
    return path


@pytest.fixture(scope="module")
def trained(live_app, tiny_model_dir, tmp_path_factory):
    """A run of the live app's that learned ROWS (100 steps at a high constant learning
    rate: the tiny model then answers each prompt with its colour); (manager, run id,
    test file)."""
    manager = live_app[1]
    data = _qa_file(tmp_path_factory.mktemp("test-set"))
    run_id = manager.start({"model_name_or_path": tiny_model_dir, "dataset_name": str(data),
                            "max_steps": 100, "per_device_train_batch_size": 4,
                            "gradient_accumulation_steps": 1, "max_length": 64,
                            "learning_rate": 3e-3, "lr_scheduler_type": "constant",
                            "sample_steps": 0})
    run = wait_for(lambda: (lambda r: r if r.state not in ("queued", "running") else None)(
        manager.get(run_id)), timeout=HANG)
    assert run.state == "done", run.error
    manager.rename(run_id, "memorised colours")
    return manager, run_id, data


def _finished(evaluator, job):
    snap = evaluator.wait(job, timeout=HANG)
    assert snap["state"] in ("done", "stopped"), snap["error"]
    return snap


def test_the_trained_run_beats_its_base_on_what_it_learned(trained):
    from sft_ui.share.card import write_card
    from sft_ui.ui.runs_tab import history_rows
    manager, run_id, data = trained
    evaluator = Evaluator(ChatService(manager))
    job = evaluator.start([f"{run_id}/base", run_id], str(data),
                          settings=GenSettings(max_new_tokens=6), batch_size=3)
    snap = _finished(evaluator, job)
    base, tuned = snap["scores"]
    print(f"\nbase: {base}\ntrained: {tuned}")
    assert snap["rows_answered"] == len(ROWS) and tuned["rows"] == len(ROWS)
    assert tuned["exact_match"] > base["exact_match"]
    assert tuned["rougeL"] > base["rougeL"]
    # The predictions, in the run's folder, load back with one row per test row.
    files = {k: Path(v) for k, v in snap["files"].items()}
    assert files["summary"].parent == manager.get(run_id).dir / "evaluations"
    lines = [json.loads(x) for x in files["jsonl"].read_text().splitlines()]
    assert [r["reference"] for r in lines] == [" " + a for _, a in ROWS]
    with open(files["csv"], newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["answer_b"] for r in table] == [r["answer_b"] for r in lines]
    assert score([r["answer_b"] for r in lines], [r["reference"] for r in lines]) == tuned
    saved = json.loads(files["summary"].read_text())
    assert saved["scores"] == snap["scores"] and saved["models"][1]["run_id"] == run_id
    # Rows where the answers differ come first.
    ordered = evaluator.rows(job)
    same = [len(set(r["answers"])) == 1 for r in ordered]
    assert same == sorted(same)
    # The model card and the Runs history show this run's side.
    out = Path(files["summary"]).parent.parent / "card-check"
    out.mkdir(exist_ok=True)
    card = write_card(manager.get(run_id), out, "full").read_text()
    assert "## Evaluation" in card
    assert f"| ROUGE-L | {tuned['rougeL']:.1f} | {base['rougeL']:.1f} |" in card
    from sft_ui.ui.export_tab import card_view
    from tests.i18n.test_i18n import _in_japanese
    page = _in_japanese(lambda: card_view(str(out)))
    assert "## 評価" in page and f"| 完全一致（%） | {tuned['exact_match']:.1f} |" in page
    row = next(r for r in history_rows(manager) if r["run_id"] == run_id)
    assert row["evaluation"].startswith(f"ROUGE-L {tuned['rougeL']:.1f}")


def test_scores_are_the_libraries_own():
    import sacrebleu
    from rouge_score import rouge_scorer
    answers = ["the cat sat on the mat", '{"a": 1}', "Paris", "a dog", "{broken"]
    references = ["the cat sat on a mat", '{"a": 2}', "Paris", "the dog barked", '[1, 2]']
    ours = score(answers, references)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for kind in ("rouge1", "rouge2", "rougeL"):
        expected = 100 * statistics.fmean(scorer.score(r, a)[kind].fmeasure
                                          for a, r in zip(answers, references))
        assert ours[kind] == pytest.approx(expected)
    assert ours["bleu"] == pytest.approx(sacrebleu.corpus_bleu(answers, [references]).score)
    assert ours["chrf"] == pytest.approx(sacrebleu.corpus_chrf(answers, [references]).score)
    assert ours["exact_match"] == pytest.approx(20.0)  # "Paris" only
    assert ours["json_references"] == 2 and ours["json_valid"] == pytest.approx(50.0)
    assert ours["answer_words"] == pytest.approx(statistics.fmean(
        len(a.split()) for a in answers))
    assert score(["x"], ["y"])["json_valid"] is None  # no JSON reference: no JSON score


# About 60-70 characters of Japanese each; the close answers reword a little, the far ones
# answer something else.
JA_REFERENCES = [
    "日本の首都は東京です。東京は日本で最も人口の多い都市で、政治と経済の中心でもあります。"
    "国会議事堂や首相官邸、多くの省庁が千代田区に集まっています。",
    "富士山は日本で一番高い山で、標高は三七七六メートルです。静岡県と山梨県にまたがり、"
    "二〇一三年に世界文化遺産に登録されました。",
    "光合成とは、植物が光のエネルギーを使って二酸化炭素と水から糖をつくり、酸素を出す"
    "しくみです。おもに葉の葉緑体で行われます。"]
JA_CLOSE = [
    "日本の首都は東京です。東京は日本でいちばん人口の多い都市で、政治と経済の中心です。"
    "国会議事堂や首相官邸、多くの省庁は千代田区に集まっています。",
    "富士山は日本で最も高い山で、標高は三七七六メートルです。静岡県と山梨県にまたがって"
    "おり、二〇一三年に世界文化遺産に登録されました。",
    "光合成とは、植物が光のエネルギーで二酸化炭素と水から糖をつくり、酸素を出すしくみ"
    "です。主に葉の葉緑体で行われます。"]
JA_FAR = ["すみません、その質問にはお答えできません。",
          "猫はかわいい動物で、よく寝ます。毎日たくさん遊びます。",
          "明日の天気は雨のち晴れでしょう。傘を持って出かけましょう。"]
SCORES = ("rouge1", "rouge2", "rougeL", "bleu", "chrf")


def test_japanese_is_scored_over_characters():
    """Japanese has no spaces between words: split on spaces, ROUGE and BLEU were 0 for
    close and far answers alike and an answer of 60 characters was 1 word. Over
    characters, close answers score high and far ones low; the length is in characters,
    the length in words is marked not valid (not 0), and the scores say how they cut."""
    close, far = score(JA_CLOSE, JA_REFERENCES), score(JA_FAR, JA_REFERENCES)
    print(f"\nclose: {close}\nfar: {far}")
    for kind in SCORES:
        assert close[kind] > 75 and far[kind] < 25, kind
        assert close[kind] - far[kind] > 50, kind
    assert close["tokens"] == {"language": "japanese", "rouge": "characters", "bleu": "char",
                               "length": "characters"}
    assert close["answer_chars"] == pytest.approx(statistics.fmean(len(a) for a in JA_CLOSE))
    assert close["answer_words"] is None and close["not_valid"] == ["answer_words"]
    assert score(JA_REFERENCES, JA_REFERENCES)["bleu"] == pytest.approx(100.0)
    # Chinese: sacrebleu's zh tokenizer; Korean (spaces between phrases): length in words too.
    zh_ref, zh_close, zh_far = ["中国的首都是北京。北京是中国的政治和文化中心。"], \
        ["中国的首都是北京，也是中国的政治中心。"], ["我不知道。"]
    zh = score(zh_close, zh_ref)
    assert zh["tokens"]["bleu"] == "zh" and zh["answer_words"] is None
    assert all(zh[k] > score(zh_far, zh_ref)[k] + 20 for k in SCORES)
    ko = score(["한국의 수도는 서울이다."], ["한국의 수도는 서울입니다."])
    assert ko["tokens"]["rouge"] == "characters" and ko["answer_words"] == 3.0
    assert ko["rouge1"] > 70 and ko["not_valid"] == []


def test_an_english_test_set_keeps_its_figures():
    """The figures the scores gave English before CJK text had its own tokenisation, to
    the last digit: rouge-score's and sacrebleu's default tokenisers, length in words."""
    answers = ["The capital of France is Paris.", "Water boils at 90 degrees.",
               "I do not know.", "blue"]
    references = ["Paris is the capital of France.",
                  "Water boils at 100 degrees Celsius at sea level.", "The answer is 42.",
                  "blue"]
    ours = score(answers, references)
    assert {k: ours[k] for k in (*SCORES, "exact_match", "answer_words", "answer_chars")} == {
        "rouge1": 64.28571428571428, "rouge2": 23.333333333333332,
        "rougeL": 55.952380952380956, "bleu": 16.424920069986474, "chrf": 49.111709254654265,
        "exact_match": 25.0, "answer_words": 4.0, "answer_chars": 18.75}
    assert ours["tokens"] == {"language": "latin", "rouge": "words", "bleu": "13a",
                              "length": "words"} and ours["not_valid"] == []
    # A score the references give nothing to count is marked, not 0.
    empty = score(["x"], ["{}"])
    assert empty["rougeL"] is None and {"rouge1", "rouge2", "rougeL"} <= set(empty["not_valid"])


def test_the_page_says_how_the_text_was_cut(tmp_path):
    """The scores table marks length in words not valid for Japanese answers (English and
    Japanese pages), and the note under it names each score's tokenisation."""
    from sft_ui import i18n
    from sft_ui.evaluate.store import headline
    from sft_ui.ui.evaluate_tab import scores_frame, tokens_markdown
    from tests.i18n.test_i18n import _in_japanese, english_left
    snap = {"models": [{"ref": "base"}], "scores": [score(JA_CLOSE, JA_REFERENCES)]}
    cells = dict(scores_frame(snap).iloc[:, :2].values.tolist())
    assert cells["Answer length (words)"] == "not valid"
    assert float(cells["Answer length (characters)"]) > 60
    note = tokens_markdown(snap)
    assert "Japanese" in note and "ROUGE: over characters" in note
    assert "BLEU: over characters (sacrebleu's char tokenizer)" in note
    page = _in_japanese(lambda: (scores_frame(snap), tokens_markdown(snap)))
    cells = dict(page[0].iloc[:, :2].values.tolist())
    assert cells["回答の長さ（単語）"] == "適用外" and float(cells["回答の長さ（文字）"]) > 60
    assert "日本語" in page[1] and "文字単位" in page[1] and not english_left(page[1])
    result = {"models": [{"run_id": "r"}], "scores": [score(["x"], ["{}"])]}
    assert headline(result, "r") == "ROUGE-L --, exact 0% (1 rows)"  # ROUGE not valid
    assert i18n.translate(headline(result, "r"), "ja") == "ROUGE-L --、完全一致 0%（1 行）"


def test_a_question_answer_csv_is_a_test_set(tmp_path):
    """Columns 質問/回答 (a question and its answer) are read as a training run reads them;
    a file no format fits is told what a test set needs (not the Train tab's Text field)."""
    qa = tmp_path / "qa.csv"
    qa.write_text("質問,回答\n日本の首都は？,東京です。\n富士山の高さは？,三七七六メートルです。\n",
                  encoding="utf-8")
    test = load_test_set(str(qa))
    assert test.format == "question/answer" and test.rows == 2
    assert [c.reference for c in test.cases] == ["東京です。", "三七七六メートルです。"]
    assert [c.shown for c in test.cases] == ["日本の首都は？", "富士山の高さは？"]
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("foo,bar\na,b\n")
    assert "Text field" in _training_message(unknown)
    with pytest.raises(DataError) as e:
        load_test_set(str(unknown))
    assert str(e.value).startswith("unknown.csv line 2 matches no format a test set can be "
                                   "read in") and "Columns: foo, bar." in str(e.value)
    assert "質問/回答" in str(e.value) and "Text field" not in str(e.value)


def test_stop_ends_an_evaluation_early(trained, tmp_path):
    manager, run_id, _ = trained
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({"prompt": f"Count to {n}:", "completion": " 1"}) + "\n"
                            for n in range(300)))
    evaluator = Evaluator(ChatService(manager))
    job = evaluator.start([f"{run_id}/base"], str(many), settings=GenSettings(
        max_new_tokens=48), batch_size=1)
    wait_for(lambda: job.answered >= 1, timeout=HANG, interval=0.05)
    assert evaluator.stop() is not None
    snap = _finished(evaluator, job)
    assert snap["state"] == "stopped"
    assert 1 <= snap["rows_answered"] < snap["rows_asked"] == 300
    assert snap["scores"][0]["rows"] == snap["rows_answered"]
    assert len(Path(snap["files"]["jsonl"]).read_text().splitlines()) == snap["rows_answered"]
    assert Path(snap["files"]["jsonl"]).parent == manager.root / "evaluations"  # no run's


def _training_message(path) -> str:
    with pytest.raises(DataError) as e:
        load_data(RunConfig.from_dict({"dataset_name": str(path)}))
    return str(e.value)


def test_bad_test_sets_get_the_training_datas_messages(tmp_path, trained):
    from sft_ui.access import Access, Who
    from sft_ui.actions import Actions
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    missing = tmp_path / "missing.jsonl"
    actions = Actions(trained[0], Access())
    for path, needle in ((empty, "is empty"), (missing, "does not exist")):
        expected = _training_message(path)
        assert needle in expected
        with pytest.raises(DataError) as e:
            load_test_set(str(path))
        assert str(e.value) == expected
        with pytest.raises(DataError) as e:  # the page's and the API's action: at once
            actions.evaluate(Who("s"), ["base"], str(path))
        assert str(e.value) == expected
    wrong = tmp_path / "wrong.jsonl"  # no format fits: what a test set needs, at once
    wrong.write_text('{"foo": "a", "bar": "b"}\n')
    with pytest.raises(DataError, match="matches no format a test set can be read in"):
        actions.evaluate(Who("s"), ["base"], str(wrong))
    text = tmp_path / "plain.jsonl"  # texts: openings continued (tests/data/test_text.py)
    text.write_text('{"text": "just text"}\n')
    assert load_test_set(str(text)).format == "text"
    with pytest.raises(DataError, match=f"Run {trained[1]} has no eval split"):
        load_test_set(f"run:{trained[1]}", manager=trained[0])
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"messages": [
        {"role": "system", "content": "Be short."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "Bye"}]}) + "\n")
    case = load_test_set(str(chat)).cases[0]  # the last assistant turn is the reference
    assert case.reference == "Hello" and [m["role"] for m in case.prompt] == ["system", "user"]
    with pytest.raises(Exception, match="one or two models"):
        actions.evaluate(Who("s"), ["", ""], str(chat))


def test_a_hub_dataset_split_is_a_test_set(monkeypatch):
    """A Hub id is read with the split asked for (a recording stand-in of the Hub), and
    offline it gets the training data's message."""
    import datasets

    from sft_ui import models
    asked = []

    def fake_load(name, config=None, split=None):
        asked.append((name, split))
        return datasets.Dataset.from_list([{"instruction": "Name a colour.",
                                            "output": "red"}])
    monkeypatch.setattr(datasets, "load_dataset", fake_load)
    monkeypatch.setattr(models, "hub_reachable", lambda timeout=3.0: True)
    test = load_test_set("org/colours", "validation")
    assert asked == [("org/colours", "validation")] and test.format == "alpaca"
    assert test.cases[0].reference == "red" and test.cases[0].shown == "Name a colour."
    monkeypatch.setattr(models, "hub_reachable", lambda timeout=3.0: False)
    with pytest.raises(DataError) as e:
        load_test_set("org/colours")
    assert str(e.value) == _training_message("org/colours") and "offline" in str(e.value)


def test_a_runs_eval_split_is_a_test_set(tmp_path):
    """run:<id> reads the rows that run held out (its eval fraction and seed), without
    training: the run's settings say which."""
    from sft_ui.runs import RunManager, create_run
    data = _qa_file(tmp_path)
    cfg = RunConfig.from_dict({"dataset_name": str(data), "eval_fraction": 0.5, "seed": 3})
    run = create_run(tmp_path / "runs", cfg)
    test = load_test_set(f"run:{run.id}", manager=RunManager(tmp_path / "runs"))
    held = load_data(cfg).eval
    assert len(test.cases) == len(held) == 2 and test.rows == 2
    assert [c.reference for c in test.cases] == [  # the text of the assistant's turn
        r["completion"][-1]["content"] for r in held]
    assert [c.prompt for c in test.cases] == [r["prompt"] for r in held]
    assert len(load_test_set(f"run:{run.id}", limit=1,
                             manager=RunManager(tmp_path / "runs")).cases) == 1


def test_the_evaluate_endpoint(trained, live_app, connect):
    manager, run_id, data = trained
    client = connect(live_app[0])
    out = client.predict(f"{run_id}/base", run_id, str(data), "test", 2, 6, 0.0, 2,
                         api_name="/evaluate")
    assert out["state"] == "done" and out["rows_asked"] == out["rows_answered"] == 2
    assert [m["ref"] for m in out["models"]] == [f"{run_id}/base", run_id]
    assert out["scores"][1]["exact_match"] == 100.0, out["scores"]
    assert Path(out["files"]["csv"]).exists()
    with pytest.raises(Exception, match="does not exist"):
        client.predict("base", "", str(data) + ".gone.jsonl", api_name="/evaluate")
    client.close()


def test_evaluate_tab_end_to_end(trained, page, tmp_path):
    """Upload the test file, pick the run's base as A (the trained run is B, the latest
    finished run), Evaluate: the scores, the answers and the downloads show; the Runs
    history shows the evaluation."""
    from playwright.sync_api import expect
    manager, run_id, data = trained
    page.get_by_role("tab", name="Evaluate").click()
    page.locator("#eval-a input").click()
    page.locator("#eval-a").get_by_role(
        "option", name=re.compile(r"memorised colours .*\/ base model")).first.click()
    page.locator("#eval-upload input[type=file]").set_input_files(str(data))
    expect(page.locator("#eval-test-set textarea, #eval-test-set input").first).to_have_value(
        re.compile(r"colours\.jsonl$"), timeout=HANG_MS)
    page.locator("#eval-go").click()
    scores = page.locator("#eval-scores")
    expect(scores).to_contain_text("ROUGE-L", timeout=HANG_MS)
    expect(scores).to_contain_text("100.0")  # the trained run's exact match
    expect(page.locator("#eval-tokens")).to_contain_text("ROUGE: over words")  # English
    table = page.locator("#eval-table")
    for _, answer in ROWS:
        expect(table).to_contain_text(answer)
    expect(page.locator("#eval-progress")).to_contain_text("Answered 4/4 rows")
    for suffix in (".predictions.jsonl", ".predictions.csv"):  # the downloads serve the files
        link = page.locator(f"#eval-files a[href$='{suffix}']")
        expect(link).to_have_count(1)
        assert "blue" in page.request.get(link.get_attribute("href")).text()
    shot = tmp_path / "evaluate.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"\nThe Evaluate tab: {shot}")
    page.get_by_role("tab", name="Runs").click()
    page.locator("#runs-refresh").click()
    expect(page.locator("#runs-table")).to_contain_text("ROUGE-L 100.0")


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


def test_a_test_set_that_is_the_training_data_gets_a_note(tmp_path):
    """Scoring a run on the data it trained on flatters it: the page says so (the run's
    eval split, other data or the base model get no note)."""
    from sft_ui.access import Access
    from sft_ui.actions import Actions
    from sft_ui.runs import RunManager
    from sft_ui.runs.run import create_run
    data = tmp_path / "qa.jsonl"
    data.write_text('{"prompt": "Say hi.", "completion": " Hi!"}\n')
    run = create_run(tmp_path / "runs", RunConfig(dataset_name=str(data)))
    actions = Actions(RunManager(tmp_path / "runs"), Access.from_env())
    note = actions.training_data_warning(["base", run.id], str(data), "test")
    assert note.startswith(f"The test set is the data run {run.id} trained on"), note
    assert actions.training_data_warning(["base", ""], str(data)) == ""
    assert actions.training_data_warning([run.id], f"run:{run.id}") == ""
    assert actions.training_data_warning([f"{run.id}/base"], str(data)) == ""
    from sft_ui import i18n
    from tests.i18n.test_i18n import english_left
    assert not english_left(i18n.translate(note, "ja")), i18n.translate(note, "ja")
