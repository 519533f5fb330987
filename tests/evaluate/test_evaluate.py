"""Evaluate on a run the live app trained on a few rows: it scores higher on them than its
base; Stop ends an evaluation early; bad test sets get the training data's messages; the
files, card and Runs history keep the latest evaluation; the /evaluate endpoint and the
Evaluate tab in a real browser."""
import csv
import json
import re
from pathlib import Path

import pytest

from sft_ui.chat import ChatService, GenSettings
from sft_ui.config import RunConfig
from sft_ui.data import DataError, load_data
from sft_ui.evaluate.job import Evaluator
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
