"""SFT: supervised fine-tuning, the model learns to write the examples' answers (TRL's
SFTConfig and SFTTrainer; the studio's data formats, data/formats.py)."""
from sft_ui.i18n.message import Message
from sft_ui.stages.base import SUPERVISED, Family, Stage, register, register_family

SFT_DEMO = "demo"  # the built-in examples (data/demo.py)

register_family(Family(
    SUPERVISED, hooks={
        "data_check": "sft_ui.data:check_dataset",
        "trainer": "sft_ui.train.engine:sft_trainer",
        "preview": "sft_ui.data.preview:sft_preview",
        "script": "sft_ui.share.recipe:sft_script",
        "checks": "sft_ui.config.checks:sft_data_problems"},
    demo_code=("sft_ui.data.demo", "demo_rows", "demo set"),
    about="sft: supervised fine-tuning, the model learns to write the examples' answers."))

SFT = register(Stage(
    name="sft", title="SFT", family=SUPERVISED,
    config=("trl", "SFTConfig"), trainer=("trl", "SFTTrainer"), demo=SFT_DEMO,
    columns=Message("text, messages, prompt/completion, instruction/input/output"),
    formats=("text", "messages", "prompt-completion", "alpaca", "template"),
    learning_rates={True: 5e-4, False: 5e-5},  # a time budget's (plan/budget.py)
    time_budget=True, eval_data=True, lean_step=True))
