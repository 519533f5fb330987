"""SFT: supervised fine-tuning, the model learns to write the examples' answers (TRL's
SFTConfig and SFTTrainer; the studio's data formats, data/formats.py)."""
from sft_ui.stages.base import SUPERVISED, Stage, register

SFT_DEMO = "demo"  # the built-in examples (data/demo.py)

SFT = register(Stage(
    name="sft", title="SFT", family=SUPERVISED,
    config=("trl", "SFTConfig"), trainer=("trl", "SFTTrainer"), demo=SFT_DEMO,
    columns="text, messages, prompt/completion, instruction/input/output",
    formats=("text", "messages", "prompt-completion", "alpaca", "template"),
    learning_rates={True: 5e-4, False: 5e-5},  # a time budget's (plan/budget.py)
    next="dpo", also_next=("grpo",), time_budget=True, eval_data=True, lean_step=True))
