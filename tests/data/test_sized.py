"""Settings sized from the person's own data (data/sized.py), on 42 rows of Japanese
customer-support questions and answers that all end with the same sign-off (about 1.6
tokens a character with SmolLM2's tokenizer): the samples ask the data's questions (held
out ones where there are eval rows) and are long enough for its answers; the run's start
applies them, the plan and the preview say them, a setting the person changed wins, a
built-in set keeps its defaults."""
from __future__ import annotations

import csv
import dataclasses
import json

import pytest

from sft_ui import i18n
from sft_ui.config import DEFAULT_SAMPLE_PROMPTS, RunConfig
from sft_ui.data.load import hold_out, load_data
from sft_ui.data.preview import preview
from sft_ui.data.sized import question_answer, sized, tokens_needed
from sft_ui.plan import planner
from sft_ui.runs import RunManager
from tests.conftest import wait_for
from tests.i18n.test_i18n import english_left

SIGN_OFF = "今後ともどうぞよろしくお願いいたします。カスタマーサポート一同"
ITEMS = ["ノートパソコン", "ワイヤレスイヤホン", "電気ケトル", "加湿器", "腕時計", "スニーカー"]


def _answer(n: int) -> str:
    """A support answer of 60 to 130 characters, ending with the sign-off."""
    item = ITEMS[n % len(ITEMS)]
    body = (f"お問い合わせありがとうございます。ご注文番号{1000 + n}の{item}は、"
            f"{n % 5 + 1}営業日以内に発送いたします。")
    body += "配送状況はマイページの注文履歴からご確認いただけます。" * (n % 3)
    return body + SIGN_OFF


ROWS = [(f"注文番号{1000 + n}の{ITEMS[n % len(ITEMS)]}はいつ届きますか？", _answer(n))
        for n in range(42)]


@pytest.fixture
def support_csv(tmp_path):
    """42 rows of 質問,回答: Japanese questions and answers with a fixed sign-off."""
    path = tmp_path / "support.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["質問", "回答"])
        writer.writerows(ROWS)
    return str(path)


def _tokens(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def _sft(tiny_model_dir, data, **values) -> RunConfig:
    """An SFT run of the data, with the sample settings at their defaults (and a Max
    length that holds its rows: left at its default, the run's start would size it)."""
    return RunConfig.from_dict({"model_name_or_path": tiny_model_dir, "dataset_name": data,
                                "max_steps": 1, "per_device_train_batch_size": 2,
                                "gradient_accumulation_steps": 1, "max_length": 512,
                                **values})


# ---- the rule -----------------------------------------------------------------------
def test_the_tokens_the_answers_need():
    assert tokens_needed([]) is None and tokens_needed([0]) is None
    # Fewer than 20 answers: the longest, a quarter more and 8 tokens, to a multiple of 16.
    assert tokens_needed([10, 120, 40]) == 160  # 150 + 8 -> 160
    assert tokens_needed([3]) == 16
    # More: the 95th percentile, so one very long answer does not set every length.
    assert tokens_needed([100] * 95 + [2000] * 5) == 144  # 125 + 8 -> 144
    assert tokens_needed([100] * 94 + [2000] * 6) > 2000


def test_japanese_answers_need_far_more_than_the_default(tokenizer):
    longest = max(_tokens(tokenizer, a) for _, a in ROWS)
    assert longest > 3 * RunConfig().sample_max_new_tokens  # why the defaults cut them
    assert longest <= tokens_needed([_tokens(tokenizer, a) for _, a in ROWS]) <= 512


def test_a_question_and_its_answer_in_each_shape():
    user, bot = {"role": "user", "content": "Q?"}, {"role": "assistant", "content": "A."}
    system = {"role": "system", "content": "Be brief."}
    assert question_answer({"messages": [system, user, bot]}) == ("Q?", "A.")
    assert question_answer({"prompt": "Q?", "completion": "A."}) == ("Q?", "A.")
    assert question_answer({"prompt": [user], "completion": [bot]}) == ("Q?", "A.")
    assert question_answer({"prompt": "Q?", "chosen": "A.", "rejected": "B."}) == \
        ("Q?", "A.")
    assert question_answer({"chosen": [user, bot], "rejected": [user, bot]}) == ("Q?", "A.")
    assert question_answer({"text": "Plain text."}) is None


# ---- SFT: the samples ---------------------------------------------------------------
def test_the_samples_ask_the_datas_last_questions_at_the_length_its_answers_need(
        support_csv, tiny_model_dir, tokenizer):
    cfg = _sft(tiny_model_dir, support_csv)
    assert cfg.sample_prompts == DEFAULT_SAMPLE_PROMPTS  # the person left them
    found = sized(cfg, tokenizer)
    assert found.config.sample_prompts == [q for q, _ in ROWS[-3:]]
    longest = max(_tokens(tokenizer, a) for _, a in ROWS)
    assert longest < found.config.sample_max_new_tokens <= 512
    prompts, length = found.reasons
    assert prompts.startswith("Sample prompts: the last 3 questions of the data. The run "
                              "trains on them too (it has no eval rows)")
    assert length.startswith(f"Sample length {found.config.sample_max_new_tokens} tokens: "
                             f"95% of the data's answers are at most {longest} tokens long")
    # The rest of the settings are the person's; each sentence reads in Japanese.
    assert dataclasses.replace(found.config, sample_prompts=cfg.sample_prompts,
                               sample_max_new_tokens=48) == cfg
    for reason in found.reasons:
        assert not english_left(i18n.translate(reason, "ja")), reason


def test_with_eval_rows_the_samples_ask_questions_the_run_does_not_train_on(
        support_csv, tiny_model_dir, tokenizer):
    cfg = _sft(tiny_model_dir, support_csv, eval_fraction=0.1)
    found = sized(cfg, tokenizer)
    trained, held = hold_out(ROWS, 0.1, cfg.seed)
    assert found.config.sample_prompts == [q for q, _ in held[:3]]
    trained_on = {r["prompt"][0]["content"] for r in load_data(cfg).train}
    assert not trained_on & set(found.config.sample_prompts)
    assert found.reasons[0].startswith("Sample prompts: the questions of the first 3 eval "
                                       "rows, which the run does not train on")


def test_a_preference_runs_samples_ask_its_prompts(tmp_path, tiny_model_dir, tokenizer):
    """DPO's rows: the prompts asked, the chosen answers measured."""
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps({"prompt": q, "chosen": a, "rejected": "不明です。"},
                                        ensure_ascii=False) + "\n" for q, a in ROWS),
                     encoding="utf-8")
    found = sized(_sft(tiny_model_dir, str(pairs), stage="dpo"), tokenizer)
    assert found.config.sample_prompts == [q for q, _ in ROWS[-3:]]
    assert found.config.sample_max_new_tokens > max(_tokens(tokenizer, a) for _, a in ROWS)


def test_what_the_person_set_wins_and_the_demo_keeps_its_defaults(
        support_csv, tiny_model_dir, tokenizer):
    own = _sft(tiny_model_dir, support_csv, sample_prompts=["返品できますか？"],
               sample_max_new_tokens=32)
    assert sized(own, tokenizer).config == own and not sized(own, tokenizer).reasons
    off = _sft(tiny_model_dir, support_csv, sample_steps=0)
    assert sized(off, tokenizer).config == off
    demo = _sft(tiny_model_dir, "demo")
    assert sized(demo, tokenizer).config == demo


def test_plain_text_asks_openings_of_its_own_rows_or_says_why_not(tmp_path, tiny_model_dir,
                                                                 tokenizer):
    """Plain text is sampled as text (tests/data/test_text.py): the openings of its rows; rows
    too short to open keep the demo's prompts, and a note says why."""
    text = tmp_path / "notes.txt"
    text.write_text("一行目の文章は少し長めに書いてあります。\n二行目の文章も同じくらいの長さです。\n",
                    encoding="utf-8")
    found = sized(_sft(tiny_model_dir, str(text)), tokenizer)
    assert found.config.samples_as == "text"
    assert [p[:3] for p in found.config.sample_prompts] == ["二行目", "一行目"]
    short = tmp_path / "short.txt"
    short.write_text("はい\nいいえ\n", encoding="utf-8")
    found = sized(_sft(tiny_model_dir, str(short)), tokenizer)
    assert found.config.sample_prompts == DEFAULT_SAMPLE_PROMPTS
    assert found.notes[0].startswith("Sample prompts: the demo's English questions, as the "
                                     "text's rows are too short to open")


def test_a_question_on_several_lines_stays_one_sample_prompt(tmp_path, tiny_model_dir,
                                                            tokenizer):
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps({"question": "一つ目。\n二つ目は？", "answer": "はい。"},
                               ensure_ascii=False) + "\n", encoding="utf-8")
    found = sized(_sft(tiny_model_dir, str(path)), tokenizer)
    assert found.config.sample_prompts == ["一つ目。 二つ目は？"]
    # (Sample prompts is a box of one prompt a line: it comes back the same)
    assert RunConfig.from_dict({"sample_prompts": "\n".join(
        found.config.sample_prompts)}).sample_prompts == found.config.sample_prompts


def test_the_runs_start_sizes_its_settings_and_says_so(support_csv, tiny_model_dir,
                                                       tmp_path):
    """Where settings are chosen before a run (runs/start.py's apply_budget): the trainer
    gets them, config.yaml keeps them (a resume trains with them), the log says why."""
    got = []
    manager = RunManager(tmp_path / "runs", trainer=lambda cfg, *a, **k: got.append(cfg))
    run = manager.get(manager.start(_sft(tiny_model_dir, support_csv)))
    wait_for(lambda: run.state not in ("queued", "running", "stopping"))
    cfg, = got
    assert cfg.sample_prompts == [q for q, _ in ROWS[-3:]]
    assert cfg.sample_max_new_tokens > 100
    assert RunConfig.from_yaml(run.dir / "config.yaml") == cfg
    log = (run.dir / "train.log").read_text(encoding="utf-8")
    assert f"Sized to the data: Sample length {cfg.sample_max_new_tokens} tokens" in log
    assert "Sized to the data: Sample prompts: the last 3 questions" in log


def test_a_run_on_japanese_data_asks_its_questions_and_answers_whole(
        support_csv, tiny_cfg, tmp_path):
    """A real run: its samples are the data's questions (not the English demo's), at the
    length its answers need, and none ends in a broken character."""
    values = {**tiny_cfg, "dataset_name": support_csv, "max_length": 256}
    del values["sample_max_new_tokens"]  # left at its default
    manager = RunManager(tmp_path / "runs")
    run = manager.get(manager.start(values))
    wait_for(lambda: run.state not in ("queued", "running", "stopping"))
    assert run.state == "done", run.error
    assert run.config.sample_max_new_tokens > 100
    asked = {s["prompt"] for s in run.samples}
    assert asked == {q for q, _ in ROWS[-3:]}
    assert not any(s["completion"].endswith("\ufffd") for s in run.samples)


# ---- the plan and the preview say it ----------------------------------------------------
def test_the_plan_and_the_preview_say_what_the_data_sizes(support_csv, tiny_model_dir):
    from sft_ui.ui.data_panel import sized_markdown  # (gradio: the page's module)
    from sft_ui.ui.plan_text import plan_markdown
    cfg = _sft(tiny_model_dir, support_csv)
    p = planner.plan_with_data(cfg)
    assert p["sized"][0].startswith("Sample prompts: the last 3 questions")
    assert p["sized"][1].startswith("Sample length ")
    assert "**Sized from the data** (settings left at their defaults):" in plan_markdown(p)
    shown = preview(cfg)
    assert shown["sized"]["prompts"] == [q for q, _ in ROWS[-3:]]
    text = sized_markdown(shown["sized"])
    assert text.startswith("**Sample prompts the run will ask**")
    assert all(f"- {q}" in text for q, _ in ROWS[-3:])
    assert preview(_sft(tiny_model_dir, "demo"))["sized"] == {
        "prompts": [], "reasons": [], "notes": []}


def test_max_length_is_raised_where_the_default_would_cut_the_answers_away(
        tmp_path, tiny_model_dir, tokenizer):
    """Long prompts (a document to answer about): Max length left at its default holds
    95% of the rows, and says why; a length the person set, and plain text (split into
    windows instead), are left as they are."""
    long = tmp_path / "long.jsonl"
    rows = [{"prompt": f"Report {n}: " + "The harbour was busy and the ships were many. " * 40
             + "Which report is this?", "completion": f"Report {n}."} for n in range(30)]
    long.write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = sized(_sft(tiny_model_dir, str(long), max_length=256), tokenizer)
    assert 256 < found.config.max_length <= 2048 and found.config.max_length % 64 == 0
    said = [r for r in found.reasons if r.startswith("Max length")]
    assert said and "30 of the first 30 rows are longer than 256" in said[0]
    assert not english_left(i18n.translate(said[0], "ja"))
    from sft_ui.plan.planner import plan_with_data
    plan = plan_with_data(_sft(tiny_model_dir, str(long), max_length=256))
    assert any(str(line).startswith("Max length") for line in plan["sized"])
    assert plan["tokens_per_step"] == 2 * found.config.max_length  # (the plan's is the run's)
    own = sized(_sft(tiny_model_dir, str(long), max_length=300), tokenizer)
    assert own.config.max_length == 300
    text = tmp_path / "text.jsonl"
    text.write_text("".join(json.dumps({"text": r["prompt"]}) + "\n" for r in rows))
    assert sized(_sft(tiny_model_dir, str(text), max_length=256), tokenizer).config \
        .max_length == 256
