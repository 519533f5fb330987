"""The Train tab: settings panels (the first open, the others under "All settings"), Start and
Stop, and the live view of a run beside them, which pulls snapshots on a gr.Timer
(ui/run_controls.py), never a generator held open for a run.
"""
from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.config import RunConfig, load_preset, preset_names
from sft_ui.config.registry import applies, panels
from sft_ui.i18n.message import Message
from sft_ui.plan.hardware import detect, speedups
from sft_ui.ui import (
    code_panel,
    data_panel,
    kept_settings,
    plan_panel,
    queue_panel,
    rewards_panel,
    stage_view,
    sweep_panel,
)
from sft_ui.ui.lang import T, after_switch, say
from sft_ui.ui.run_controls import RunControls, build_run_controls, wire_run_controls
from sft_ui.ui.widgets import AFTER_EACH, config_to_values, make_widget

# PROGRESS_NOTE: each message of every event (a tick's too) has the page redraw the loading
# status of every component that any event has shown it on since the page opened, so an
# event whose outputs are many settings shows its status on one component
# (show_progress_on): a look at a training run cost the browser half as much after that.
REMOTE_CODE_WARNING = (
    "**Warning: remote code is on.** Loading this model runs Python code from its "
    "repository with the rights of this app: files, tokens, network. Turn it on only for "
    "a model whose code you have read or whose authors you trust.")


def effective_batch_text(batch, accum, processes="auto") -> str:
    """The effective batch of the page's batch size, accumulation and processes (auto: one
    per device of this machine), as RunConfig counts it, and what it means; in the
    request's language."""
    return say(effective_batch_message(batch, accum, processes))


def effective_batch_message(batch, accum, processes="auto") -> Message:
    """effective_batch_text's message, English (a Message: T or say renders it)."""
    try:
        cfg = RunConfig(per_device_train_batch_size=int(batch),
                        gradient_accumulation_steps=int(accum),
                        num_processes=None if str(processes).strip() in ("", "auto")
                        else int(processes))
    except (TypeError, ValueError):
        cfg = None
    if cfg is None or min(cfg.per_device_train_batch_size, cfg.gradient_accumulation_steps) < 1:
        return Message("**Effective batch:** enter whole numbers of 1 or more for batch size "
                       "and accumulation.")
    devices = cfg.processes(detect().devices)
    return Message("**Effective batch: {total}** = {batch} (batch size per device) x {accum} "
                   "(gradient accumulation) x {devices} (processes): the examples behind each "
                   "update of the weights. Memory follows the batch size per device; "
                   "accumulation adds time, not memory.", total=cfg.effective_batch(devices),
                   batch=cfg.per_device_train_batch_size,
                   accum=cfg.gradient_accumulation_steps, devices=devices)


@dataclass
class Settings:
    """The settings column: a widget per RunConfig field and the panels' extras."""
    widgets: dict
    preset: gr.Dropdown
    remote_warning: gr.Markdown
    effective: gr.Markdown
    data: tuple
    plan: plan_panel.PlanControls
    code: tuple
    hf_token: gr.Textbox  # a run on Hugging Face Jobs: for that launch only, never saved
    rows: list  # (gr.Row, the names of its settings): hidden with them (stage_view.py)
    rewards: tuple  # GRPO's Test rewards (ui/rewards_panel.py)
    accordions: dict  # the panels by group, hidden when no setting of theirs applies
    sweep: sweep_panel.SweepPanel  # a sweep of the page's settings (ui/sweep_panel.py)

    @property
    def names(self) -> list[str]:
        return list(self.widgets)

    @property
    def inputs(self) -> list:
        return list(self.widgets.values())


def build(actions: Actions, lists=None) -> None:
    """Lay out the Train tab inside the current Blocks context and wire it (`lists`:
    the page's ui/lists.Lists, which wakes the live view for a run started elsewhere)."""
    with gr.Row():
        with gr.Column(scale=2):
            settings = build_settings()
        with gr.Column(scale=3, elem_id="live-column"):
            controls = build_run_controls()
    wire_settings(settings, controls, actions)
    wire_run_controls(controls, settings, actions, lists)
    assert controls.run_state is not None  # (wire_run_controls made it)
    queue_panel.wire(controls.queue, controls.add, settings.names, settings.inputs, actions,
                     controls.notice, controls.run_state)
    sweep_panel.wire(settings.sweep, settings.names, settings.inputs, actions,
                     settings.hf_token)


# Settings whose value is a long name (a Hub id, a path): a row of their own, so that the
# whole name shows (two to a row cut "HuggingFaceTB/SmolLM2-135M-Instruct" short).
WIDE = ("model_name_or_path", "dataset_name")


def _rows(names: list[str]) -> list[list[str]]:
    """A panel's settings in rows: a WIDE one alone, the others two to a row (a pair
    placed where its first one is written)."""
    rows, open_pair = [], None
    for name in names:
        if name in WIDE:
            rows.append([name])
        elif open_pair is not None and len(open_pair) == 1:
            open_pair.append(name)
        else:
            open_pair = [name]
            rows.append(open_pair)
    return rows


def build_settings() -> Settings:
    """This machine, the preset, a panel per settings group (config/registry.py), each
    field's widget, and what belongs to a panel (data preview, plan, code)."""
    gr.Markdown(T(Message("**This machine:** {device}", device=detect().describe())))
    with gr.Group(elem_classes=["settings"]):
        preset = gr.Dropdown(preset_names(), value="default", label=T("Preset"),
                             info=T("Load a saved recipe into every panel."))
    widgets, extras, rows, accordions = {}, {}, [], {}
    stage = RunConfig().stage  # the panels show the settings of the stage they start with
    for n, panel in enumerate(panels()):
        if n == 1:
            gr.Markdown(T("**All settings** (each overrides the choices above)"))
        with gr.Accordion(T(panel.title), open=n == 0, elem_classes=["settings"],
                          visible=stage_view.panel_shown(panel.group, stage)) as accordion:
            for pair in _rows(panel.names):
                with gr.Row(visible=any(applies(name, stage) for name in pair)) as row:
                    for name in pair:
                        widgets[name] = make_widget(name)
                rows.append((row, pair))
            extras.update(_panel_extras(panel.group))
        accordions[panel.group] = accordion
    with gr.Accordion(T("Save, load, show code"), open=False):
        code = code_panel.build_controls()
    sweep = sweep_panel.build()
    return Settings(widgets, preset, code=code, rows=rows, accordions=accordions,
                    sweep=sweep, **extras)


def _panel_extras(group: str) -> dict:
    """What a panel shows besides its settings."""
    if group == "model":
        return {"remote_warning": gr.Markdown(T(REMOTE_CODE_WARNING), visible=False,
                                              elem_id="remote-code-warning")}
    if group == "start":
        return {"data": data_panel.build_controls()}
    if group == "batch":
        defaults = RunConfig()
        effective = gr.Markdown(T(effective_batch_message(
            defaults.per_device_train_batch_size, defaults.gradient_accumulation_steps)),
            elem_id="effective-batch")
        return {"effective": effective, "plan": plan_panel.build()}
    if group == "where":
        return {"hf_token": gr.Textbox(
            label=T("Hugging Face token"), type="password", elem_id="hf-token",
            info=T("For a run on Hugging Face Jobs: a token with write access. It goes to "
                   "the job as a secret, for this launch only; it is never saved."))}
    if group == "rewards":
        return {"rewards": rewards_panel.build_controls()}
    if group == "hardware":
        for sentence in speedups():
            gr.Markdown(T(sentence))
    return {}


def wire_settings(s: Settings, c: RunControls, actions: Actions) -> None:
    """The preset, the panels' helpers and the remote-code warning."""
    names, inputs, widgets = s.names, s.inputs, s.widgets
    stage_view.wire(widgets["stage"], widgets["dataset_name"], widgets, s.rows, s.accordions,
                    actions, opened=kept_settings.wire(names, inputs))
    data_panel.wire(s.data, names, inputs, widgets["dataset_name"], actions)
    rewards_panel.wire(s.rewards, names, inputs, actions)
    code_panel.wire(s.code, names, inputs)
    plan_panel.wire(s.plan, c.plan_line, names, inputs, widgets, actions, c.plan)
    widgets["trust_remote_code"].change(lambda on: gr.update(visible=bool(on)),
                                        widgets["trust_remote_code"], s.remote_warning,
                                        api_visibility="private", show_progress="hidden",
                                        trigger_mode=AFTER_EACH)
    # (on each pick, the one already shown too: "default" brings back the defaults over
    # the settings the browser kept, ui/kept_settings.py)
    s.preset.select(lambda name: config_to_values(load_preset(name), names), s.preset,
                    inputs, api_name="ui_preset", api_visibility="undocumented",
                    show_progress_on=s.preset)
    sizes = [widgets[n] for n in ("per_device_train_batch_size", "gradient_accumulation_steps",
                                  "num_processes")]
    for w in sizes:
        w.change(effective_batch_text, sizes, s.effective, api_visibility="private",
                 show_progress="hidden")
    after_switch(effective_batch_text, sizes, s.effective)
