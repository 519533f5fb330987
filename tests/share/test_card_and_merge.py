"""The model card in the page shows its loss curve inline; merging is for LoRA runs, and
a full fine-tune's merged export is its model."""
import base64
import re
from pathlib import Path

from sft_ui.config import RunConfig
from sft_ui.runs import Run, RunManager, create_run
from sft_ui.share.card import card_for_page, write_card
from sft_ui.share.export import export_run, is_lora_run
from tests.conftest import wait_for


def _finished(manager, run_id):
    snap = manager.get(run_id).snapshot()
    return snap if snap["state"] in ("done", "stopped", "failed") else None


# ---- the card in the page shows its loss curve --------------------------------------
def _run_with_losses(tmp_path, **settings) -> Run:
    run = create_run(tmp_path / "runs", RunConfig(**settings))
    for step, loss in enumerate((2.5, 2.1, 1.8), start=1):
        run.add_metrics({"step": step, "loss": loss})
    run.step = 3
    return run


def test_card_for_page_inlines_the_loss_curve(tmp_path):
    run = _run_with_losses(tmp_path)
    out = tmp_path / "export"
    out.mkdir()
    text = write_card(run, out, "full").read_text(encoding="utf-8")
    assert "![loss curve](loss.png)" in text  # the file keeps the Hub's relative link
    page = card_for_page(text, out)
    assert not re.search(r"!\[[^\]]*\]\((?!data:)", page), "a relative image link is left"
    assert not page.startswith("---") and "base_model:" not in page  # no front matter
    assert page.lstrip().startswith(f"# {run.name}")
    (encoded,) = re.findall(r"!\[loss curve\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)",
                            page)
    png = base64.b64decode(encoded, validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == (out / "loss.png").read_bytes()
    # Without the file (or pointing outside the folder) only the alt text is left.
    (out / "loss.png").unlink()
    assert "](" not in card_for_page(text, out).split("## Settings")[0]
    assert card_for_page("![x](../secret.png)", out) == "x"


# ---- merging is for LoRA runs; a full fine-tune exports its model --------------------
def test_is_lora_run_and_merging_a_full_fine_tune_exports_it(tmp_path, tiny_cfg):
    manager = RunManager(tmp_path)
    run_id = manager.start({**tiny_cfg, "sample_steps": 0})
    snap = wait_for(lambda: _finished(manager, run_id))
    assert snap["state"] == "done", snap["error"]
    full = manager.get(run_id)
    assert not is_lora_run(full)
    out = export_run(full, merged=True)
    assert out.name == "full"
    assert (out / "model.safetensors").exists() and not (out / "adapter_config.json").exists()
    assert "a full fine-tune" in (out / "README.md").read_text(encoding="utf-8")

    assert is_lora_run(create_run(tmp_path / "other", RunConfig(use_peft=True)))
    adapter_only = create_run(tmp_path / "other", RunConfig())  # settings lost, files say
    folder = Path(adapter_only.dir) / "model"
    folder.mkdir()
    (folder / "adapter_config.json").write_text("{}")
    adapter_only.model_dir = str(folder)
    assert is_lora_run(adapter_only)
