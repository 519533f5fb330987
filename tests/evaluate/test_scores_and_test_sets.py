"""What an evaluation reads and scores, without a model: the scores are the libraries' own,
Japanese text is scored over characters and English keeps its figures, the page says how
the text was cut; question/answer CSVs, Hub splits and a run's eval split are test sets,
and a test set that is the training data gets a note."""
import statistics

import pytest

from sft_ui.config import RunConfig
from sft_ui.data import DataError, load_data
from sft_ui.evaluate.metrics import score
from sft_ui.evaluate.testset import load_test_set
from tests.evaluate.test_evaluate import _qa_file, _training_message


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
