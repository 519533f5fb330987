"""The preference stages' Python script of Show code (their family's `script` hook):
DPOTrainer, ORPOTrainer or KTOTrainer with the reference model the studio would use, the
unpaired rows and their weights for KTO, a finished run's adapter training on. Knows
nothing of Gradio."""
from __future__ import annotations

from sft_ui.config import RunConfig
from sft_ui.config.trl import flat, has_eval_data
from sft_ui.plan.passes import trains_on_adapter
from sft_ui.share.recipe import (
    eval_code,
    load_code,
    load_kwargs,
    model_code,
    peft_code,
    py_value,
)
from sft_ui.stages import stage_of
from sft_ui.train.arguments import to_trl


def preference_script(cfg: RunConfig, output_dir: str) -> str:
    """DPOTrainer, ORPOTrainer (trl.experimental.orpo) or KTOTrainer on the preference
    rows, with the reference the studio would use."""
    args = to_trl(cfg)
    values = flat(args)
    stage = stage_of(cfg)
    name = stage.title
    config_module, config_class = stage.config
    trainer_module, trainer_class = stage.trainer
    imports = [f"from {config_module} import {config_class}, {trainer_class}"] \
        if config_module == trainer_module else \
        [f"from {config_module} import {config_class}",
         f"from {trainer_module} import {trainer_class}"]
    if not stage.cli:
        imports.append(f"# {name} is in trl.experimental in TRL 1.16, which has no "
                       f"`trl {stage.name}` command")
    columns = stage.columns
    data = [f"# Data: preference rows as {trainer_class} reads them ({columns})"] + \
        load_code(cfg, cfg.dataset_name, cfg.dataset_train_split) + eval_code(cfg)
    if cfg.max_train_samples:
        data.append(f"dataset = dataset.select(range(min({cfg.max_train_samples}, "
                    "len(dataset))))")
    on_adapter = trains_on_adapter(cfg)  # (it reads the model folder)
    saving = ["trainer.model.delete_adapter(\"ref\")  # TRL's frozen copy: not saved"] \
        if on_adapter and stage.reference and not cfg.ref_model.strip() else []
    weights = []
    if stage.unpaired:  # its trainer reads rows in order: good and bad answers mixed
        data += ["from trl.data_utils import maybe_extract_prompt, "
                 "maybe_unpair_preference_dataset",
                 "dataset = maybe_unpair_preference_dataset(dataset.map(maybe_extract_prompt))",
                 f"dataset = dataset.shuffle(seed={cfg.seed})  # good and bad answers mixed"]
        if has_eval_data(cfg):
            data.append("eval_dataset = maybe_unpair_preference_dataset("
                        "eval_dataset.map(maybe_extract_prompt))")
        if not (cfg.desirable_weight or cfg.undesirable_weight):  # auto, as the studio
            weights = ["good = sum(dataset[\"label\"])  # weights from the label counts",
                       "bad = len(dataset) - good",
                       "args.desirable_weight, args.undesirable_weight = "
                       "(1.0, good / bad) if good >= bad else (bad / good, 1.0)"]
    arg_lines = "\n".join(f"    {k}={py_value(v)}," for k, v in args["train"].items()
                          if v is not None)
    reference, ref_arg = [], ""
    model_lines, peft = model_code(cfg, values), peft_code(cfg, values)
    if on_adapter:  # as the studio: the finished run's adapter trains on (train/policy.py)
        model_lines = ["from peft import AutoPeftModelForCausalLM",
                       "# The finished LoRA run's adapter trains on (no new adapter)",
                       "model = AutoPeftModelForCausalLM.from_pretrained(model_id, "
                       f"is_trainable=True, {load_kwargs(cfg, values)})"]
        peft = "peft_config = None  # the adapter is there already"
    if stage.reference:
        ref_id = cfg.ref_model.strip()
        if ref_id:
            reference = ["# The reference model: the Reference model setting, a second "
                         "frozen copy",
                         f"ref_model = AutoModelForCausalLM.from_pretrained({ref_id!r}, "
                         f"{load_kwargs(cfg, values)})"]
        else:
            where = "a frozen copy of the finished run's adapter" if on_adapter else \
                "the model with the LoRA adapter switched off" if cfg.use_peft else \
                "a frozen copy of the starting weights"
            reference = [f"ref_model = None  # the reference: {where} (TRL's own way)"]
        ref_arg = " ref_model=ref_model,"
    return "\n".join([
        f'"""Preference tuning ({name}) with TRL\'s {trainer_class}: the settings of an SFT '
        'Studio run."""',
        "from datasets import Dataset, DatasetDict, load_dataset, load_from_disk",
        "from peft import LoraConfig",
        "from transformers import AutoModelForCausalLM, AutoTokenizer",
        *imports, "",
        f"model_id = {cfg.model_name_or_path!r}",
        f"tokenizer = AutoTokenizer.from_pretrained(model_id, "
        f"trust_remote_code={cfg.trust_remote_code})",
        *model_lines, *reference, "",
        *data, "",
        f"args = {config_class}(\n    output_dir={output_dir!r},\n{arg_lines}\n)", *weights,
        peft, "",
        f"trainer = {trainer_class}(model=model,{ref_arg} args=args, train_dataset=dataset,",
        "    eval_dataset=eval_dataset, processing_class=tokenizer, peft_config=peft_config)",
        "trainer.train()", *saving,
        "trainer.save_model(args.output_dir)",
        "tokenizer.save_pretrained(args.output_dir)", ""])
