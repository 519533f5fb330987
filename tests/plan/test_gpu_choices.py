"""The precision, optimizer and kernels chosen for each kind of hardware (fake T4, L4, H100
and CPUs, and every listed GPU), a setting the person set winning over them, what to_trl
writes for the GPU it runs on, and the precision kept for this machine."""
from sft_ui.config import RunConfig
from sft_ui.plan import kernels, memory, planner, targets
from sft_ui.plan.hardware import precision, unsupported
from sft_ui.plan.shape import model_shape
from tests.plan.test_gpu_plan import BF16_CPU, CPU, H100, L4, T4


# ---- precision, optimizer and kernels ---------------------------------------------
def test_choices_for_each_kind_of_hardware():
    full, qlora = RunConfig(), RunConfig(use_peft=True, load_in_4bit=True)
    values = {name: {k: c.value for k, c in kernels.choose(cfg, hw).items()}
              for name, cfg, hw in (("t4 full", full, T4), ("t4 qlora", qlora, T4),
                                    ("l4 qlora", qlora, L4), ("h100 full", full, H100),
                                    ("h100 qlora", qlora, H100), ("cpu", full, CPU),
                                    ("amx cpu", full, BF16_CPU))}
    assert values["t4 full"] == {"precision": "fp16", "optim": "adamw_torch_fused",
                                 "use_liger_kernel": True, "padding_free": False}
    assert values["t4 qlora"]["optim"] == values["l4 qlora"]["optim"] == "paged_adamw_8bit"
    assert values["l4 qlora"]["precision"] == "bf16"
    # The H100 here has no optional package: no Liger, and fused AdamW (an 80 GB card).
    assert values["h100 full"] == values["h100 qlora"] == {
        "precision": "bf16", "optim": "adamw_torch_fused", "use_liger_kernel": False,
        "padding_free": False}
    # On a CPU the lean step's batches are padding-free, as the plan's padding line says.
    assert values["cpu"] == {"precision": "fp32", "optim": "adamw_torch_fused",
                             "use_liger_kernel": False, "padding_free": True}
    assert values["amx cpu"]["precision"] == "bf16"
    reasons = {k: c.reason for k, c in kernels.choose(full, T4).items()}
    assert "no bf16" in reasons["precision"] and "loss scaling" in reasons["precision"]
    assert "liger-kernel is installed there" in reasons["use_liger_kernel"]
    assert "not installed" in kernels.choose(full, H100)["use_liger_kernel"].reason


def test_choices_on_every_listed_gpu():
    """fp16 only on the T4s (no bf16); the paged 8-bit AdamW for QLoRA only on cards of
    24 GB or less; fused AdamW otherwise; Liger on (the GPU packages assumed there)."""
    for target in targets.TARGETS:
        hw = target.hardware()
        full = kernels.choose(RunConfig(), hw)
        qlora = kernels.choose(RunConfig(use_peft=True, load_in_4bit=True), hw)
        assert full["precision"].value == ("fp16" if "T4" in target.label else "bf16")
        assert full["optim"].value == "adamw_torch_fused"
        assert qlora["optim"].value == ("paged_adamw_8bit" if target.memory_mib <= 24 * 1024
                                        else "adamw_torch_fused"), target.key
        assert full["use_liger_kernel"].value
        assert unsupported(RunConfig(use_peft=True, load_in_4bit=True), hw) == []


def test_padding_free_follows_packing_and_the_attention():
    packed = RunConfig(packing=True)
    flash = kernels.choose(packed, T4)["padding_free"]
    sdpa = kernels.choose(packed, H100)["padding_free"]
    assert flash.value and "FlashAttention" in flash.reason
    assert sdpa.value and "SDPA" in sdpa.reason and "FlashAttention 2/3 only" in sdpa.reason
    assert not kernels.choose(RunConfig(packing=True, packing_strategy="wrapped"),
                              T4)["padding_free"].value


def test_a_setting_a_person_set_wins():
    cfg = RunConfig(use_peft=True, load_in_4bit=True, optim="adamw_torch", bf16=False,
                    fp16=False, use_liger_kernel=False)
    chosen = kernels.choose(cfg, T4)
    assert {k: c.value for k, c in chosen.items() if k != "padding_free"} == {
        "precision": "fp32", "optim": "adamw_torch", "use_liger_kernel": False}
    assert {c.reason for k, c in chosen.items() if k != "padding_free"} == \
        {"set in the settings"}
    # What a machine cannot run is refused with the reason.
    assert "has no bf16" in unsupported(RunConfig(bf16=True), T4)[0]
    assert "8-bit optimizer: a CUDA GPU is needed" in \
        unsupported(RunConfig(optim="paged_adamw_8bit"), CPU)[0]
    assert "bitsandbytes package is needed" in \
        unsupported(RunConfig(optim="adamw_8bit"), H100)[0]


def test_to_trl_applies_the_choices_of_the_gpu_it_runs_on(monkeypatch):
    """The arguments a run on a T4 would get, on this machine with a fake T4."""
    from sft_ui.plan import hardware
    from sft_ui.train.arguments import to_trl
    monkeypatch.setattr(hardware, "detect", lambda: T4)
    sft = to_trl(RunConfig(use_peft=True, load_in_4bit=True))["train"]
    assert (sft["bf16"], sft["fp16"], sft["optim"], sft["use_liger_kernel"]) == \
        (False, True, "paged_adamw_8bit", True)
    assert "use_cpu" not in sft
    monkeypatch.setattr(hardware, "detect", lambda: H100)
    sft = to_trl(RunConfig(optim="adamw_torch"))["train"]
    assert (sft["bf16"], sft["optim"], sft["use_liger_kernel"]) == (True, "adamw_torch", False)
    monkeypatch.setattr(hardware, "detect", lambda: CPU)
    sft = to_trl(RunConfig())["train"]
    assert (sft["bf16"], sft["optim"], sft["use_cpu"]) == (False, "adamw_torch_fused", True)
    # Read back from the YAML, a person's optimizer stays.
    assert RunConfig.from_dict({"optim": "adamw_8bit"}).optim == "adamw_8bit"


def test_an_8bit_optimizer_counts_a_quarter_of_the_state():
    shape = model_shape("Qwen/Qwen2.5-0.5B-Instruct")
    full = memory.peak_memory(RunConfig(), shape, H100)["optimizer"]
    eight = memory.peak_memory(RunConfig(optim="adamw_8bit"), shape, H100)["optimizer"]
    assert full == 8 * shape.params() and eight == 2 * shape.params()


def test_precision_is_unchanged_for_this_machine():
    """The plan for this machine keeps the precision this machine has."""
    from sft_ui.plan.hardware import detect
    assert planner.plan(RunConfig())["precision"] == precision(None, None, detect())
