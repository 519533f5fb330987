"""The person's last settings, kept in their own browser (gr.BrowserState: the browser's
localStorage): a page opened again, after a restart of the server too, shows the settings
they left rather than the defaults. Only the settings that differ from the defaults are
kept, as the widgets show them; the Hugging Face token is no setting and is never kept.
A kept value that no longer makes a setting (a setting renamed, a choice gone) is dropped.
"""
from __future__ import annotations

import gradio as gr

from sft_ui.config import ConfigError, RunConfig
from sft_ui.ui.lang import page
from sft_ui.ui.widgets import AFTER_EACH, config_to_values, edits

# One key for every page of this app in a browser. Its secret only scrambles what the
# browser keeps (the page itself holds it); a fixed one lets a restarted server read it.
STORAGE_KEY = "sft-studio-settings"


def changed(names: list[str], values, defaults: list) -> dict:
    """The settings (by name) whose widget values differ from the defaults' (`defaults`:
    config_to_values of RunConfig(), in `names` order)."""
    return {n: v for n, v, d in zip(names, values, defaults) if v != d}


def restorable(kept) -> dict:
    """The kept values that still make settings (each tried alone), as widget values."""
    if not isinstance(kept, dict):
        return {}
    good = {}
    for name, value in kept.items():
        try:
            RunConfig.from_dict({name: value})
        except (ConfigError, TypeError, ValueError):
            continue
        good[name] = value
    try:
        cfg = RunConfig.from_dict(good)
    except ConfigError:
        return {}
    return dict(zip(good, config_to_values(cfg, list(good))))


def wire(names: list[str], inputs: list):
    """Keep the settings on each change (inside the Blocks being built), and show the kept
    ones when a page opens; returns that load event (what follows it chains on it)."""
    kept = gr.BrowserState({}, storage_key=STORAGE_KEY, secret=STORAGE_KEY)

    defaults = config_to_values(RunConfig(), names)  # (once, not on every change)

    def keep(*values):
        return changed(names, values, defaults)

    def restore(saved):
        found = restorable(saved)
        return [found[n] if n in found else gr.skip() for n in names]

    gr.on(edits(inputs), keep, inputs, kept, api_visibility="private", show_progress="hidden",
          trigger_mode=AFTER_EACH)
    # (its loading status on one component: on every setting, each later message of any
    # event would redraw them all; train_tab's PROGRESS_NOTE)
    return page().load(restore, kept, inputs, api_visibility="private",
                       show_progress="hidden", show_progress_on=inputs[0])
