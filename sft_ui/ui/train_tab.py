"""The Train tab: settings panels, Start/Stop, and the live view of a run.

The live view pulls `RunManager` snapshots on a gr.Timer (never a generator
held open for a run), so a reload or a second tab shows the run as it is.
"""
from __future__ import annotations

import gradio as gr

from ..access import Access
from ..config import load_preset, preset_names
from ..hardware import detect, speedups
from ..runs import ACTIVE_STATES, USER_ERRORS, RunError, RunManager
from . import code_panel, data_panel, live_view, plan_panel
from .access_panel import who
from .lang import T, after_switch, problem, problems, say
from .widgets import config_to_values, make_widget, values_to_dict

PANELS = [
    ("Model", ["model_name_or_path", "trust_remote_code"]),
    ("Dataset", ["dataset_name", "dataset_format", "dataset_text_field", "dataset_template",
                 "completion_only_loss", "txt_mode", "dataset_config", "dataset_train_split",
                 "max_train_samples"]),
    ("Batch and time", ["per_device_train_batch_size", "gradient_accumulation_steps",
                        "train_by", "max_steps", "num_train_epochs", "max_length",
                        "packing", "packing_strategy"]),
    ("Optimizer", ["learning_rate", "weight_decay", "warmup_steps", "lr_scheduler_type",
                   "neftune_noise_alpha", "seed"]),
    ("Logging, checkpoints and samples", [
        "logging_strategy", "logging_steps", "save_strategy", "save_steps", "save_total_limit",
        "report_to", "sample_steps", "sample_max_new_tokens", "sample_prompts"]),
]
ADVANCED = [("Eval data", ["eval_dataset_name", "dataset_test_split", "eval_fraction",
                           "eval_strategy", "eval_steps"]),
            ("Precision and memory", ["bf16", "fp16", "activation_checkpointing",
                                      "use_liger_kernel"]),
            ("LoRA", ["use_peft", "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules",
                      "load_in_4bit"])]


REMOTE_CODE_WARNING = (
    "**Warning: remote code is on.** Loading this model runs Python code from its "
    "repository with the rights of this app: files, tokens, network. Turn it on only for "
    "a model whose code you have read or whose authors you trust.")


def effective_batch_text(batch, accum) -> str:
    devices = detect().devices
    try:
        b, a = int(batch), int(accum)
    except (TypeError, ValueError):
        return say("**Effective batch:** enter whole numbers for batch size and accumulation.")
    return say(f"**Effective batch: {b * a * devices}** = {b} (batch size per device) x {a} "
               f"(gradient accumulation) x {devices} (devices): the examples behind each "
               "update of the weights. Memory follows the batch size per device; "
               "accumulation adds time, not memory.")


def build(manager: RunManager, access: Access) -> None:
    """Lay out the Train tab inside the current Blocks context."""
    widgets: dict[str, gr.components.Component] = {}
    with gr.Row():
        with gr.Column(scale=2):
            gr.Markdown(T(f"**This machine:** {detect().describe()}"))
            preset = gr.Dropdown(preset_names(), value="default", label=T("Preset"),
                                 info=T("Load a saved recipe into every panel."))
            for title, names in PANELS + ADVANCED:
                with gr.Accordion(T(title), open=(title, names) in PANELS):
                    for pair in (names[i:i + 2] for i in range(0, len(names), 2)):
                        with gr.Row():
                            for name in pair:
                                widgets[name] = make_widget(name)
                    if title == "Precision and memory":
                        for sentence in speedups():
                            gr.Markdown(T(sentence))
                    if title == "Model":
                        remote_warning = gr.Markdown(T(REMOTE_CODE_WARNING), visible=False,
                                                     elem_id="remote-code-warning")
                    if title == "Dataset":
                        data_controls = data_panel.build_controls()
                    if title == "Batch and time":
                        effective = gr.Markdown(T(effective_batch_text(4, 2)),
                                                elem_id="effective-batch")
                        plan = plan_panel.build()
            with gr.Accordion(T("Save, load, show code"), open=False):
                code_controls = code_panel.build_controls()
        with gr.Column(scale=3):
            with gr.Row():
                start = gr.Button(T("Start"), variant="primary")
                stop = gr.Button(T("Stop"), variant="stop", interactive=False)
                resume = gr.Button(T("Resume"), interactive=False)
            notice = gr.Markdown(elem_id="start-notice")
            live = live_view.build()
    names = list(widgets)
    inputs = [widgets[n] for n in names]
    run_id = gr.State("")
    seen = gr.State(None)

    def on_start(request: gr.Request, *values):
        try:
            values = values_to_dict(names, values)
            access.require(who(request), "start a run")
            access.check_config(manager.root, who(request), values)
            new_id = manager.start(values)
        except USER_ERRORS as e:
            return gr.skip(), problems("Cannot start:", e)
        return new_id, ""

    def shown_run(current):
        """The run training now (whichever tab started it), else this page's last run."""
        active = manager.active()
        if active is not None and active.state in ACTIVE_STATES:
            return active
        try:
            return manager.get(current) if current else active
        except RunError:
            return active

    def on_stop(request: gr.Request, current):
        run = shown_run(current)
        if run is None or run.state not in ACTIVE_STATES:
            return say("No run is training.")
        try:
            access.require(who(request), "stop a run")
        except USER_ERRORS as e:
            return problem("Cannot stop:", e)
        run.request_stop()
        return live_view.status_markdown(run.snapshot())

    def on_resume(request: gr.Request, current):
        run = shown_run(current)
        try:
            access.require(who(request), "resume a run")
            return manager.resume(run.id if run else ""), ""
        except USER_ERRORS as e:
            return gr.skip(), problem("Cannot resume:", e)

    def on_tick(current, last_seen):
        run = shown_run(current)
        if run is None:
            return (gr.skip(),) * (len(live.outputs()) + 4)
        snap = run.snapshot()
        values, key = live_view.update(snap, last_seen)
        active = snap["state"] in ACTIVE_STATES
        return (*values, gr.update(interactive=not active), gr.update(interactive=active),
                gr.update(interactive=snap["state"] in ("stopped", "failed")), key)

    def on_preset(name):
        return config_to_values(load_preset(name), names)

    start.click(on_start, inputs, [run_id, notice], api_name="ui_start",
                api_visibility="undocumented")
    stop.click(on_stop, run_id, live.status, api_name="ui_stop", api_visibility="undocumented")
    resume.click(on_resume, run_id, [run_id, notice], api_name="ui_resume",
                 api_visibility="undocumented")
    timer = gr.Timer(1.0)
    timer.tick(on_tick, [run_id, seen],
               [*live.outputs(), start, stop, resume, seen],
               api_name="ui_tick", api_visibility="undocumented", show_progress="hidden")
    data_panel.wire(data_controls, names, inputs, widgets["dataset_name"], manager, access)
    code_panel.wire(code_controls, names, inputs)
    plan_panel.wire(plan, names, inputs, widgets, manager, access)
    widgets["trust_remote_code"].change(lambda on: gr.update(visible=bool(on)),
                                        widgets["trust_remote_code"], remote_warning,
                                        api_name=False, show_progress="hidden")
    preset.change(on_preset, preset, inputs, api_name="ui_preset", api_visibility="undocumented")
    batch, accum = widgets["per_device_train_batch_size"], widgets["gradient_accumulation_steps"]
    for w in (batch, accum):
        w.change(effective_batch_text, [batch, accum], effective, api_name=False,
                 show_progress="hidden")
    after_switch(effective_batch_text, [batch, accum], effective)
