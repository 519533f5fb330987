"""GRPO runs through the studio's engine and run manager: the model writes answers to the
prompts, the reward functions the settings name score them (built-in ones, and one
written in the page, run in its own process), the rewards and the answers with their
scores reach the run, and a written reward's error is met before a run folder exists."""
from __future__ import annotations

import math

import pytest

from sft_ui.backends import preflight
from sft_ui.config import RunConfig
from sft_ui.errors import UserError
from sft_ui.share.recipe import python_script
from sft_ui.train.engine import train
from sft_ui.train.events import NullSink

WRITTEN = '''
def short_answer(completions, answer, **kwargs):
    """1 for an answer of at most 20 characters holding the right number."""
    texts = [c if isinstance(c, str) else c[0]["content"] for c in completions]
    return [float(len(t) <= 20 and a in t) for t, a in zip(texts, answer)]
'''


class Recorder(NullSink):
    def __init__(self):
        super().__init__()
        self.records, self.samples = [], []

    def add_metrics(self, record):
        self.records.append(record)

    def add_samples(self, rows):
        self.samples += rows

    def steps(self) -> list[dict]:
        return [r for r in self.records if "loss" in r]


def _cfg(tiny_cfg, **extra) -> RunConfig:
    return RunConfig.from_dict({**tiny_cfg, "stage": "grpo", "dataset_name": "demo-grpo",
                                "num_generations": 2, "max_completion_length": 6,
                                "rewards": ["json_answer", "exact_match"], **extra})


@pytest.mark.parametrize("written", [False, True])
def test_grpo_trains_and_logs_each_reward(tmp_path, tiny_cfg, written):
    extra = {"rewards": ["json_answer", "written"], "reward_code": WRITTEN,
             "rewards_weights": "1, 2"} if written else {}
    cfg = _cfg(tiny_cfg, **extra)
    preflight(cfg)  # the written function runs once, in its process, before the run
    sink = Recorder()
    out = train(cfg, tmp_path / "run", sink)
    steps = sink.steps()
    assert [r["step"] for r in steps] == [1, 2]
    names = ["json_answer", "short_answer" if written else "exact_match"]
    for record in steps:
        for key in ("reward", "reward_std", "frac_reward_zero_std",
                    *(f"rewards/{n}/mean" for n in names)):
            assert math.isfinite(record[key]), (key, record)
    # the answers the model wrote, with each function's score, as the run's samples
    assert sink.samples and all(s["completion"] is not None for s in sink.samples)
    by_step = [s["step"] for s in sink.samples]  # each logged step's answers, once
    assert sorted(set(by_step)) == [1, 2] and by_step.count(2) == by_step.count(1) == 2
    assert all(names[0] in s["reward"] and names[1] in s["reward"] for s in sink.samples)
    assert "What is" in sink.samples[0]["prompt"]
    assert (out / "model.safetensors").exists() or (out / "adapter_model.safetensors").exists()
    log = (tmp_path / "run" / "train.log").read_text()
    assert "Training (GRPO)" in log and "Rewards: json_answer" in log
    if written:
        assert "short_answer x2" in log


@pytest.mark.parametrize("code, needle", [
    ("def bad(completions, **kw):\n    return [1.0] * (len(completions) + 1)\n",
     r"bad"),
    ("def boom(completions, **kw):\n    x = 1\n    raise ValueError('no answer')\n",
     r"line 3"),
    ("def broken(completions, **kw)\n    return []\n", r"line 1"),
])
def test_a_written_reward_that_fails_is_refused_before_the_run(tmp_path, tiny_cfg, code,
                                                              needle):
    import re
    cfg = _cfg(tiny_cfg, rewards=["written"], reward_code=code)
    with pytest.raises(UserError) as e:
        preflight(cfg)
    assert re.search(needle, str(e.value)), str(e.value)


def test_settings_that_cannot_train_are_named():
    odd = RunConfig.from_dict({"stage": "grpo", "dataset_name": "demo-grpo",
                               "num_generations": 3, "per_device_train_batch_size": 4,
                               "gradient_accumulation_steps": 1}).validate()
    assert any("Answers per prompt (3) must divide" in p and "set Answers per prompt to 4"
               in p for p in odd), odd
    empty = RunConfig.from_dict({"stage": "grpo", "dataset_name": "demo-grpo",
                                 "rewards": ["written"]}).validate()
    assert any("Written reward function is empty" in p for p in empty), empty
    assert RunConfig.from_dict({"stage": "grpo", "dataset_name": "demo-grpo"}).validate() == []


def test_show_code_writes_the_written_reward_into_a_script_that_compiles(tiny_cfg):
    cfg = _cfg(tiny_cfg, rewards=["json_answer", "written"], reward_code=WRITTEN)
    script = python_script(cfg)
    compile(script, "grpo.py", "exec")
    assert "def short_answer(completions, answer, **kwargs):" in script
    assert "reward_funcs += [short_answer]" in script
    assert "GRPOTrainer(model=model, reward_funcs=reward_funcs" in script


def test_the_yaml_is_read_by_trl_grpo_and_by_the_studio(tmp_path):
    """One file: `trl grpo --config` reads the built-in rewards by import path (and they
    import), the studio reads its own settings back, the written reward and every weight
    kept."""
    import importlib

    from trl.scripts.grpo import make_parser

    from sft_ui.share.recipe import to_yaml
    cfg = RunConfig.from_dict({"stage": "grpo", "dataset_name": "demo-grpo",
                               "rewards": ["json_answer", "written", "exact_match"],
                               "rewards_weights": "1, 3, 2", "reward_code": WRITTEN,
                               "num_generations": 2, "max_completion_length": 16})
    text = to_yaml(cfg)
    assert "The written reward function is the studio's own" in text
    path = tmp_path / "grpo.yaml"
    path.write_text(text)
    script, train_args, _, _ = make_parser().parse_args_and_config(
        ["--config", str(path), "--output_dir", str(tmp_path / "out")],
        fail_with_unknown_args=False)
    assert script.reward_funcs == ["sft_ui.rewards.builtin.json_answer",
                                   "sft_ui.rewards.builtin.exact_match"]
    assert train_args.reward_weights == [1.0, 2.0] and train_args.num_generations == 2
    for path_name in script.reward_funcs:  # as `trl grpo` loads them
        module, name = path_name.rsplit(".", 1)
        reward = getattr(importlib.import_module(module), name)
        assert reward.__name__ == name and len(reward(completions=['{"answer": 1}'],
                                                      answer=["1"])) == 1
    back = RunConfig.from_yaml(path)
    assert back.rewards == cfg.rewards and back.rewards_weights == "1, 3, 2"
    assert back.reward_code.strip() == WRITTEN.strip() and back.validate() == []


def test_written_reward_code_runs_only_where_the_studio_is_ones_own(tmp_path, monkeypatch):
    """Open studio: allowed. Logins or a Space (even an open one): refused with the reason,
    unless the server was started to allow it; built-in rewards pass everywhere."""
    from sft_ui.access import Access, AccessError, Who
    from sft_ui.config.registry import code_names
    assert code_names() == ("reward_code",)
    code = {"stage": "grpo", "rewards": ["written"], "reward_code": WRITTEN}
    built_in = {"stage": "grpo", "rewards": ["json_answer"]}
    who = Who("session-1")
    Access().check_config(tmp_path, who, code, code_names())
    for shared in (Access(users={"ann": "pw"}), Access(space_id="me/studio", open_space=True)):
        with pytest.raises(AccessError, match="refused on a shared server or a Space") as e:
            shared.check_config(tmp_path, who, code, code_names())
        assert "--allow-reward-code" in str(e.value)
        shared.check_config(tmp_path, who, built_in, code_names())
    Access(users={"ann": "pw"}, allow_code=True).check_config(tmp_path, who, code, code_names())
    from sft_ui.access import ALLOW_CODE
    monkeypatch.delenv(ALLOW_CODE, raising=False)
    assert not Access.from_env({"ann": "pw"}).code_allowed
    monkeypatch.setenv(ALLOW_CODE, "1")  # serve --allow-reward-code
    assert Access.from_env({"ann": "pw"}).code_allowed


def test_grpo_evaluates_held_out_prompts_and_its_model_chats_and_exports(tmp_path, tiny_cfg):
    """A held-out fraction of the prompts gives an eval reward (the model writes answers
    to them and the rewards score them); the finished LoRA run chats, against its base
    too, and exports merged."""
    from sft_ui.chat import ChatService, GenSettings
    from sft_ui.runs import RunManager
    from sft_ui.share.export import export_run
    from tests.conftest import wait_for
    manager = RunManager(tmp_path / "runs")
    run_id = manager.start({**tiny_cfg, "stage": "grpo", "dataset_name": "demo-grpo",
                            "num_generations": 2, "max_completion_length": 6,
                            "rewards": ["json_answer"], "use_peft": True, "max_steps": 2,
                            "eval_fraction": 0.05, "eval_steps": 2})
    snap = wait_for(lambda: manager.get(run_id).snapshot() if manager.get(run_id).state
                    not in ("queued", "running", "stopping") else None)
    assert snap["state"] == "done", snap["error"]
    evals = [m for m in snap["metrics"] if "eval_reward" in m]
    assert evals and math.isfinite(evals[-1]["eval_reward"]), snap["metrics"]
    assert any("eval_rewards/json_answer/mean" in m for m in evals)
    assert "held out" in (tmp_path / "runs" / run_id / "train.log").read_text()
    chat = ChatService(manager)
    for ref in (run_id, f"{run_id}/base"):
        assert list(chat.stream("What is 2 plus 3?", [], ref, GenSettings(max_new_tokens=4)))
    merged = export_run(manager.get(run_id), merged=True)
    assert (merged / "model.safetensors").exists()


def test_a_grpo_run_stops_with_its_model_and_resumes_to_its_end(tmp_path, tiny_cfg):
    from sft_ui.runs import RunManager
    from tests.conftest import wait_for
    manager = RunManager(tmp_path / "runs")
    cfg = {**tiny_cfg, "stage": "grpo", "dataset_name": "demo-grpo", "num_generations": 2,
           "max_completion_length": 6, "rewards": ["json_answer"], "use_peft": True,
           "max_steps": 40, "save_steps": 1}

    def ended():
        run = manager.get(run_id)
        return run if run.state not in ("queued", "running", "stopping") else None
    run_id = manager.start(cfg)
    wait_for(lambda: manager.get(run_id).step >= 2, interval=0.05)
    manager.stop(run_id)
    run = wait_for(ended)
    assert run.state == "stopped" and 2 <= run.step < 40, (run.state, run.step)
    assert (tmp_path / "runs" / run_id / "model" / "adapter_config.json").exists()
    stopped_at = run.step
    manager.resume(run_id)
    run = wait_for(ended)
    assert run.state == "done" and run.step == 40, (run.state, run.error)
    steps = [m["step"] for m in run.metrics if "reward" in m]
    assert steps[:stopped_at] == list(range(1, stopped_at + 1)) and steps[-1] == 40
