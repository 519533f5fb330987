"""Plain text as a kind of its own: a text run's samples continue openings of rows it does
not train on, beside their true continuation; Chat, Compare and Compare all ask a model
as text (no template) where asked to, and by default for a model trained on plain text;
the quick path learns a corpus (its choices for text)."""
from __future__ import annotations

import json

import pytest

from sft_ui import i18n
from sft_ui.access import Access, Who
from sft_ui.actions import Actions
from sft_ui.chat import GenSettings
from sft_ui.config import DEFAULT_SAMPLE_PROMPTS, RunConfig
from sft_ui.data.load import load_data
from sft_ui.data.openings import continuations, one_line, opening, openings
from sft_ui.data.sized import sized
from sft_ui.plan import budget
from sft_ui.plan.sample import DataSample
from sft_ui.runs import RunError, RunManager
from sft_ui.train.answering import format_prompt
from tests.conftest import wait_for
from tests.i18n.test_i18n import english_left

REVIEWS = [f"レビュー{n}: この電気ケトルは{n % 4 + 1}分でお湯が沸きます。デザインも良く、"
           f"毎朝のコーヒーが楽しみになりました。星{n % 5 + 1}つです。" for n in range(40)]
ENGLISH = [f"Entry {n}. The lighthouse keeper climbed the {n + 3} stairs at dusk,\n"
           f"lit the lamp and wrote in the log that the sea was calm." for n in range(40)]


def _corpus(tmp_path, texts, name="corpus.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n"
                            for t in texts), encoding="utf-8")
    return str(path)


def _text_run(tiny_model_dir, data, **values) -> RunConfig:
    return RunConfig.from_dict({"model_name_or_path": tiny_model_dir, "dataset_name": data,
                                "max_steps": 2, "per_device_train_batch_size": 2,
                                "gradient_accumulation_steps": 1, "max_length": 64,
                                "sample_steps": 1, "sample_max_new_tokens": 8, **values})


# ---- openings -------------------------------------------------------------------------
def test_an_opening_is_the_start_of_its_text_on_one_line_at_a_words_end(tokenizer):
    head = opening(ENGLISH[0], tokenizer)
    flat = one_line(ENGLISH[0])
    assert "\n" not in head and flat.startswith(head) and len(head) < len(flat) / 2
    assert flat[len(head)] == " "  # not a word cut in two
    japanese = opening(REVIEWS[0], tokenizer)
    assert REVIEWS[0].startswith(japanese) and "\ufffd" not in japanese
    assert opening("Too short.", tokenizer) is None
    assert len(openings(ENGLISH, tokenizer, 3)) == 3


def test_each_opening_has_its_true_continuation(tokenizer):
    heads = openings(REVIEWS[5:], tokenizer, 2)
    found = continuations(heads + ["not in the data"], REVIEWS, tokenizer, 12)
    for head, true, text in zip(heads, found, REVIEWS[5:]):
        assert true and text.startswith(head) and text[len(head):].strip().startswith(
            true[:5])
    assert found[-1] == ""


# ---- sized: a text run's samples ------------------------------------------------------
def test_a_text_runs_samples_are_openings_of_rows_it_does_not_train_on(
        tmp_path, tiny_model_dir, tokenizer):
    cfg = _text_run(tiny_model_dir, _corpus(tmp_path, REVIEWS), eval_fraction=0.1)
    assert cfg.sample_prompts == DEFAULT_SAMPLE_PROMPTS and cfg.samples_as == "auto"
    found = sized(cfg, tokenizer)
    assert found.config.samples_as == "text"
    data = load_data(cfg)
    held = [r["text"] for r in data.eval]
    trained = {r["text"] for r in data.train}
    assert len(found.config.sample_prompts) == 3
    for head in found.config.sample_prompts:
        assert any(t.startswith(head) for t in held)
        assert not any(t.startswith(head) for t in trained)
    said = " ".join(found.reasons)
    assert "Ask samples as: text" in said and "openings of 3 eval rows" in said
    for reason in found.reasons:
        assert not english_left(i18n.translate(reason, "ja")), reason


def test_without_eval_rows_the_openings_are_of_the_last_rows_and_said_so(
        tmp_path, tiny_model_dir, tokenizer):
    found = sized(_text_run(tiny_model_dir, _corpus(tmp_path, ENGLISH)), tokenizer)
    assert [next(i for i, t in enumerate(ENGLISH) if one_line(t).startswith(p))
            for p in found.config.sample_prompts] == [39, 38, 37]
    assert any("openings of the last 3 rows" in r for r in found.reasons)
    # What the person set wins: their own prompts, asked as they chose.
    own = sized(_text_run(tiny_model_dir, _corpus(tmp_path, ENGLISH), samples_as="chat",
                          sample_prompts=["Once upon a time"]), tokenizer)
    assert own.config.samples_as == "chat" and own.config.sample_prompts == ["Once upon a time"]


def test_a_presets_movie_openings_give_way_to_the_openings_of_a_corpus_of_ones_own(
        tmp_path, tiny_model_dir, tokenizer):
    from sft_ui.config import load_preset
    movies = load_preset("opt350m-imdb").sample_prompts
    found = sized(_text_run(tiny_model_dir, _corpus(tmp_path, REVIEWS), sample_prompts=movies),
                  tokenizer)
    assert found.config.sample_prompts != movies
    assert all(any(r.startswith(p) for r in REVIEWS) for p in found.config.sample_prompts)


def test_prompts_asked_as_text_skip_the_chat_template(tokenizer):
    assert format_prompt(tokenizer, "The sea was") != "The sea was"  # (a chat template)
    assert format_prompt(tokenizer, "The sea was", as_text=True) == "The sea was"


# ---- a text run, end to end -----------------------------------------------------------
def _finished(manager, run_id):
    snap = manager.get(run_id).snapshot()
    return snap if snap["state"] in ("done", "stopped", "failed") else None


def test_a_text_run_samples_continuations_beside_the_true_ones_and_chat_asks_as_text(
        tmp_path, tiny_model_dir):
    manager = RunManager(tmp_path / "runs")
    data = _corpus(tmp_path, ENGLISH)
    run_id = manager.start(_text_run(tiny_model_dir, data, eval_fraction=0.1).to_dict())
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    assert snap["config"]["samples_as"] == "text"
    held = [r["text"] for r in load_data(manager.get(run_id).config).eval]
    samples = snap["samples"]
    assert sorted({s["step"] for s in samples}) == [0, 1, 2]
    for sample in samples:
        text = next(one_line(t) for t in held if one_line(t).startswith(sample["prompt"]))
        assert sample["reference"] and \
            text[len(sample["prompt"]):].strip().startswith(sample["reference"][:10])
        assert isinstance(sample["completion"], str)
    from sft_ui.ui.run_frames import samples_frame
    assert list(samples_frame(snap).columns) == ["step", "prompt", "completion",
                                                 "true continuation"]
    # Chat and Compare ask this model as text by default; a base model as chat.
    actions = Actions(manager, Access())
    chat = actions.chat_service
    assert chat.ask_as(run_id) == "text" and chat.ask_as("latest") == "text"
    assert chat.ask_as(f"{run_id}/base") == "chat" and chat.ask_as("base") == "chat"
    model, tokenizer = chat.load(run_id)
    opening_ = samples[0]["prompt"]
    replies = list(actions.chat(Who("s"), opening_, [{"role": "user", "content": "earlier"}],
                                run_id, GenSettings(max_new_tokens=6)))
    from sft_ui.train.answering import generate_batch
    as_text = generate_batch(model, tokenizer, [opening_], 6, as_text=True)[0]
    assert replies[-1].strip() == as_text.strip()  # the opening alone, continued
    assert actions.chat_notes(opening_, None, run_id) == []  # no template to change it
    rows = actions.compare_batch(Who("s"), [opening_], run_id, run_id, 6)
    assert rows[0]["a"] == as_text.strip() == rows[0]["b"]
    asked = actions.compare_batch(Who("s"), [opening_], run_id, run_id, 6, "chat")
    chat_reply = generate_batch(model, tokenizer, [opening_], 6)[0]
    assert asked[0]["a"] == chat_reply.strip()
    pair = list(actions.compare(Who("s"), opening_, run_id, "base",
                                GenSettings(max_new_tokens=6)))
    assert pair[-1][0].strip() == as_text.strip()
    # Evaluate on a text file: openings continued, how often they match, and perplexity.
    job = actions.evaluate(Who("s"), [run_id, f"{run_id}/base"], data, limit=5,
                           settings=GenSettings(max_new_tokens=8))
    snap = actions.evaluator.wait(job, timeout=120)
    assert snap["state"] == "done", snap["error"]
    assert snap["rows_answered"] == 5
    for scores in snap["scores"]:
        assert 0 <= scores["continuation_match"] <= 100 and 1 < scores["perplexity"] < 1e6
    rows = job.result["rows"]
    assert all(ENGLISH[i].startswith(r["prompt"].split(" The")[0]) for i, r in enumerate(rows))
    assert all(r["reference"] for r in rows)
    assert any("Plain text: each of 5 texts" in str(n) for n in snap["notes"])


def test_ask_as_must_be_chat_or_text():
    with pytest.raises(RunError, match="Ask as must be chat"):
        GenSettings(ask_as="poem").check()
    GenSettings(ask_as="").check()  # (the model's default)


# ---- the quick path on a corpus -------------------------------------------------------
def test_the_quick_path_learns_a_corpus_with_a_wide_adapter_and_many_small_updates():
    cfg = RunConfig(dataset_name="corpus.jsonl", time_budget_minutes=5)
    text = DataSample(tuple([120] * 180), 180, "text")
    choice = budget.choose(cfg, text, params=135_000_000, speed=lambda c: 1000.0)
    chosen = choice.config
    assert chosen.use_peft and chosen.lora_r == budget.RECALL_RANK
    assert chosen.learning_rate == pytest.approx(5e-4 * budget.CORPUS_RATE)
    assert chosen.gradient_accumulation_steps == 1
    said = " ".join(str(r) for r in choice.reasons)
    assert "plain text" in said and "gradient accumulation 1" in said
    # What the person set wins.
    own = budget.choose(RunConfig(dataset_name="corpus.jsonl", time_budget_minutes=5,
                                  gradient_accumulation_steps=4, learning_rate=3e-4),
                        text, params=135_000_000, speed=lambda c: 1000.0).config
    assert own.gradient_accumulation_steps == 4 and own.learning_rate == 3e-4


# ---- disk before Start ----------------------------------------------------------------
def test_the_plan_says_what_the_checkpoints_take_against_the_free_disk(tmp_path, monkeypatch):
    from sft_ui.plan import disk
    from sft_ui.plan.planner import plan_with_data
    from sft_ui.plan.shape import model_shape
    from sft_ui.ui.plan_text import plan_line, plan_markdown
    params = model_shape(RunConfig().model_name_or_path).params()
    cfg = RunConfig(save_steps=8, max_steps=16, train_by="steps")
    found = plan_with_data(cfg, runs=tmp_path)["disk"]
    # a full fine-tune: fp32 weights and AdamW's two moments a checkpoint (the 3.6 GB
    # run folder of 16 steps saved every 8: two checkpoints and the model)
    assert found["checkpoint"] == 12 * params + disk.TOKENIZER_BYTES
    assert (found["written"], found["kept"]) == (2, 2)
    assert found["total"] == 2 * found["checkpoint"] + found["model"] and found["fits"]
    assert 3.3e9 < found["total"] < 4e9
    kept = plan_with_data(RunConfig(save_steps=8, max_steps=16, train_by="steps",
                                    save_total_limit=1), runs=tmp_path)["disk"]
    assert kept["kept"] == 1 and kept["total"] < found["total"]
    lora = plan_with_data(RunConfig(save_steps=8, max_steps=16, train_by="steps",
                                    use_peft=True), runs=tmp_path)["disk"]
    assert lora["checkpoint"] < found["checkpoint"] / 10
    plan = plan_with_data(cfg, runs=tmp_path)
    text = plan_markdown(plan)
    assert "**Disk:** each checkpoint about 1.5 GiB" in text and "2 checkpoints kept of 2" in \
        text and "set to 1 keeps only the newest" in text
    assert "will not fit" not in plan_line(plan)
    monkeypatch.setattr(disk, "free_bytes", lambda folder: 2 * 2**30)  # 2 GiB free
    full = plan_with_data(cfg, runs=tmp_path)
    assert not full["disk"]["fits"]
    assert "disk about 3.6 GiB of 2.0 GiB free: **will not fit**" in plan_line(full)
    assert "**It will not fit:**" in plan_markdown(full)
    from sft_ui.ui.plan_text import _disk_line
    japanese = i18n.translate(_disk_line(full["disk"]), "ja")
    assert "収まりません" in japanese and not english_left(japanese), japanese
