"""Push an export to the Hugging Face Hub, and publish a chat Space for it. The token serves the
calls of one request and is never stored (no file, no log, no model card). Knows nothing of
Gradio.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import yaml

from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.models import hub_reachable

SPACE_APP = Path(__file__).parents[1] / "space_app" / "app.py"
SPACE_REQUIREMENTS = ("gradio==6.31.0", "transformers==5.23.0", "torch==2.13.0",
                      "peft==0.21.2", "accelerate==1.15.0")


class HubError(UserError, RuntimeError):
    """A push that cannot happen; the message says what to do (`messages`: its Message,
    kept whole for the page)."""


def _client(token: str, api):
    """The Hub client; `api`, where given, is a stand-in with the same methods (tests)."""
    if api is not None:
        return api
    from huggingface_hub import HfApi  # huggingface_hub: loaded on first use
    return HfApi(token=token)


def _check(repo_id: str, token: str) -> str:
    # huggingface_hub: loaded on first use
    from huggingface_hub.utils import HFValidationError, validate_repo_id
    repo_id = (repo_id or "").strip()
    if repo_id.count("/") != 1:
        raise HubError(Message("'{repo_id}' is not a repo id: use owner/name, e.g. "
                               "your-name/my-model.", repo_id=repo_id))
    try:
        validate_repo_id(repo_id)
    except HFValidationError as e:
        raise HubError(Message("'{repo_id}' is not a valid repo id: {error}", repo_id=repo_id,
                               error=str(e))) from None
    if not (token or "").strip():
        raise HubError(Message("Enter a Hugging Face token with write access "
                               "(hf.co/settings/tokens). It is used for this push only and "
                               "never saved."))
    return repo_id


def _call(what: Message, fn, *args, **kwargs):
    """Run a Hub call (`what`: its name in a message); turn its failures into messages a
    person can act on."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        status = getattr(getattr(e, "response", None), "status_code", None)
        if status == 401:
            raise HubError(Message("{what}: the token was refused (401). Check it, and that "
                                   "it has write access.", what=what)) from None
        if status == 403:
            raise HubError(Message("{what}: the token may not write to this repo (403). Use "
                                   "your own namespace or a token with write access to it.",
                                   what=what)) from None
        raise HubError(Message("{what} failed: {error_type}: {error}", what=what,
                               error_type=type(e).__name__, error=_scrub(str(e)))) from None


def _scrub(text: str) -> str:
    return re.sub(r"hf_[A-Za-z0-9]{6,}", "hf_***", text.splitlines()[0] if text else "")


def check_push(repo_id: str, token: str, api=None) -> str:
    """The repo id to push to, or HubError when a push cannot happen (bad id, no token,
    offline): checked before anything is exported."""
    repo_id = _check(repo_id, token)
    if api is None and not hub_reachable():
        raise HubError(Message("The Hugging Face Hub cannot be reached: this machine is "
                               "offline. Download the zip instead, and push it from a "
                               "connected machine."))
    return repo_id


def push_folder(folder: str | Path, repo_id: str, token: str, private: bool = True,
                api=None) -> str:
    """Create (or reuse) a model repo and upload the folder; return its URL."""
    repo_id = check_push(repo_id, token, api)
    client = _client(token, api)
    _call(Message("Creating the repo"), client.create_repo, repo_id=repo_id, repo_type="model",
          private=bool(private), exist_ok=True)
    _call(Message("Uploading"), client.upload_folder, folder_path=str(folder), repo_id=repo_id,
          repo_type="model", commit_message="Upload model fine-tuned with SFT Studio")
    return f"https://huggingface.co/{repo_id}"


def space_files(model_id: str, title: str) -> dict[str, str]:
    """The files of a chat Space for `model_id`: app.py, requirements.txt, README.md."""
    app = SPACE_APP.read_text().replace("__MODEL_ID__", model_id).replace("__TITLE__", title)
    front = {"title": title[:60], "emoji": "💬", "colorFrom": "indigo", "colorTo": "blue",
             "sdk": "gradio", "sdk_version": "6.31.0", "app_file": "app.py", "pinned": False,
             "license": "apache-2.0", "short_description": f"Chat with {model_id}"[:60]}
    readme = "\n".join([
        "---", yaml.safe_dump(front, sort_keys=False, allow_unicode=True).strip(), "---", "",
        f"# {title}", "", f"A chat app for [{model_id}](https://huggingface.co/{model_id}), "
        "fine-tuned with SFT Studio.", ""])
    return {"app.py": app, "requirements.txt": "\n".join(SPACE_REQUIREMENTS) + "\n",
            "README.md": readme}


def write_space(folder: Path, model_id: str, title: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in space_files(model_id, title).items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def publish_space(model_id: str, space_id: str, token: str, private: bool = False,
                  api=None) -> str:
    """Create a Gradio Space that chats with `model_id`, a model pushed to the Hub (the
    Space loads it from there); return its URL. Refused, before anything is created, when
    no model repo is named or the Hub has none by that id."""
    model_id = (model_id or "").strip()
    if not model_id:
        raise HubError(Message("A chat Space loads a model pushed to the Hub: push the "
                               "export first (Model repo id, then Push the export), then "
                               "publish."))
    _check(model_id, token)
    space_id = _check(space_id, token)
    if api is None and not hub_reachable():
        raise HubError(Message("The Hugging Face Hub cannot be reached: this machine is "
                               "offline."))
    client = _client(token, api)
    if not _call(Message("Looking up the model"), client.repo_exists, model_id, repo_type="model"):
        raise HubError(Message("The Hub has no model {model_id} (or this token cannot see "
                               "it): push the export to it first (Push the export), then "
                               "publish.", model_id=model_id))
    _call(Message("Creating the Space"), client.create_repo, repo_id=space_id, repo_type="space",
          space_sdk="gradio", private=bool(private), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        write_space(Path(tmp), model_id, f"Chat with {model_id.split('/')[-1]}")
        _call(Message("Uploading the Space"), client.upload_folder, folder_path=tmp,
              repo_id=space_id, repo_type="space",
              commit_message="Chat app generated by SFT Studio")
    return f"https://huggingface.co/spaces/{space_id}"


# What a Space needs of this repository to run the studio.
STUDIO_FILES = ["app.py", "requirements.txt", "README.md", "LICENSE", "sft_ui/*.py",
                "sft_ui/*.yaml", "sft_ui/*.sh", "sft_ui/plan/model_configs/*.json",
                "sft_ui/locale/*.po",
                "docs/*.md", "docs/*.png"]  # fnmatch: * crosses folders; the README's links


def deploy_studio(space_id: str, token: str, private: bool = False, api=None,
                  root: Path | None = None) -> str:
    """Upload this studio (app, package, requirements, README front matter) to a Gradio
    Space; return its URL. Runs, caches and tests stay here."""
    space_id = _check(space_id, token)
    if api is None and not hub_reachable():
        raise HubError(Message("The Hugging Face Hub cannot be reached: this machine is "
                               "offline."))
    root = root or Path(__file__).resolve().parents[2]
    client = _client(token, api)
    _call(Message("Creating the Space"), client.create_repo, repo_id=space_id, repo_type="space",
          space_sdk="gradio", private=bool(private), exist_ok=True)
    _call(Message("Uploading the studio"), client.upload_folder, folder_path=str(root),
          repo_id=space_id, repo_type="space", allow_patterns=STUDIO_FILES,
          ignore_patterns=["**/__pycache__/**"],
          commit_message="Deploy SFT Studio")
    return f"https://huggingface.co/spaces/{space_id}"
