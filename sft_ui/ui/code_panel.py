"""Take the run elsewhere: save or load the settings as YAML (a `trl sft` config; `trl
dpo` or `trl kto` for those stages), and show the equivalent Python script (the stage's
TRL trainer), `trl` command and `accelerate launch` command for the current settings,
each with a copy button (share/recipe.py writes them)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr

from sft_ui.config import ConfigError, RunConfig
from sft_ui.i18n.message import Message
from sft_ui.share import recipe
from sft_ui.ui.lang import T, keep, note, problems
from sft_ui.ui.widgets import config_to_values, values_to_dict


def build_controls():
    """Inside an accordion of the settings column; returns the components to wire."""
    with gr.Row():
        show = gr.Button(T("Show code for these settings"), size="sm", elem_id="show-code")
        save = gr.Button(T("Save settings as YAML"), size="sm")
    with gr.Row():
        load = gr.File(label=T("Load settings from YAML"), file_types=[".yaml", ".yml"],
                       height=90, elem_id="load-yaml")
        saved = gr.File(label=T("Settings file"), interactive=False, height=90)
    notice = gr.Markdown(elem_id="code-notice")
    yaml_code = gr.Code(language="yaml", label=T("Settings file (YAML for trl --config)"),
                        interactive=False, elem_id="code-yaml")
    script = gr.Code(language="python", label=T("Python script (TRL)"),
                     interactive=False, elem_id="code-python")
    command = gr.Code(language="shell", label=T("trl command line"), interactive=False,
                      elem_id="code-trl")
    machines = gr.Number(1, precision=0, label=T("Machines"), minimum=1)
    launch = gr.Code(language="shell", label=T("accelerate config and launch (DDP or FSDP, "
                     "as Strategy says)"), interactive=False,
                     elem_id="code-accelerate")
    return show, save, load, saved, notice, yaml_code, script, command, machines, launch


class CodeHandlers:
    """What the panel does, each a method that tests call without building the page
    (`names`: the settings' names, in the order of the values each is given)."""

    def __init__(self, names: list[str]):
        self.names = names

    def current(self, values) -> RunConfig:
        return RunConfig.from_dict(values_to_dict(self.names, values))

    def on_show(self, n_machines, *values):
        """(notice, YAML, Python script, trl command, accelerate command)."""
        try:
            cfg = self.current(values)
        except ConfigError as e:
            return (_problems(e),) + (gr.skip(),) * 4
        return ("", recipe.to_yaml(cfg), recipe.python_script(cfg), recipe.trl_command(cfg),
                recipe.accelerate_command(cfg, int(n_machines or 1)))

    def on_save(self, *values):
        """(notice, the path of the YAML file written)."""
        try:
            cfg = self.current(values)
        except ConfigError as e:
            return _problems(e), gr.skip()
        path = Path(tempfile.mkdtemp(prefix="sft-settings-")) / f"{cfg.stage}.yaml"
        path.write_text(recipe.to_yaml(cfg), encoding="utf-8")
        return "", str(path)

    def on_load(self, path):
        """Every setting's value from the YAML file at `path`, then the notice."""
        names = self.names
        if not path:
            return [gr.skip()] * len(names) + [""]
        try:
            cfg = RunConfig.from_yaml(path)
        except ConfigError as e:
            return [gr.skip()] * len(names) + [_problems(e, Path(path).name)]
        except Exception as e:  # not YAML at all
            return [gr.skip()] * len(names) + [note(Message(
                "**Cannot load {file}:** it is not a YAML mapping ({error}).",
                file=Path(path).name, error=str(e)))]
        found = cfg.validate()
        loaded = note(Message("Loaded {file}.", file=Path(path).name)) + (
            "\n\n" + problems("Check these before Start:", ConfigError(found)) if found else "")
        return config_to_values(cfg, names) + [loaded]


def wire(controls, names: list[str], inputs: list) -> None:
    """Bind the panel to CodeHandlers."""
    show, save, load, saved, notice, yaml_code, script, command, machines, launch = controls
    h = CodeHandlers(names)
    show.click(h.on_show, [machines, *inputs],
               [notice, yaml_code, script, command, launch], api_visibility="private")
    save.click(h.on_save, inputs, [notice, saved], api_visibility="private")
    load.upload(h.on_load, load, [*inputs, notice], api_visibility="private",
                show_progress_on=notice)  # not on every setting: train_tab's PROGRESS_NOTE
    keep(notice)


def _problems(e: ConfigError, name: str = "") -> str:
    return problems(Message("Cannot use {name}:", name=name) if name else
                    "Fix these settings first:", e)
