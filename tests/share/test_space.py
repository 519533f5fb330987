"""The repository deploys as a Gradio Space: README front matter as the Hub parses it,
versions that agree with requirements.txt, the deploy helper's upload, runs on
persistent storage."""
from pathlib import Path

import pytest

from sft_ui.runs import runs_dir
from sft_ui.share.hub import deploy_studio
from tests.chat.test_after_training import FAKE_TOKEN, RecordingHub

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def test_readme_front_matter_is_a_valid_space_card():
    from huggingface_hub import RepoCard
    card = RepoCard.load(ROOT / "README.md")
    meta = card.data
    assert meta.sdk == "gradio" and meta.app_file == "app.py"
    assert (ROOT / meta.app_file).exists()
    assert meta.sdk_version == _pins()["gradio"]
    assert meta.title and meta.emoji and meta.license == "apache-2.0"
    assert (ROOT / "LICENSE").read_text().find("Apache License") > 0
    assert 0 < len(meta.short_description) <= 60
    # The Space's chat app generated for pushed models uses the same pins.
    from sft_ui.share.hub import SPACE_REQUIREMENTS
    for pin in SPACE_REQUIREMENTS:
        name, version = pin.split("==")
        assert _pins()[name] == version, pin


def test_requirements_alone_name_every_import_of_the_app():
    """Every third-party package the app imports is pinned in requirements.txt."""
    import ast
    import sys
    wanted = set()
    for path in list((ROOT / "sft_ui").rglob("*.py")) + [ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                wanted |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                wanted.add(node.module.split(".")[0])
    third_party = {m for m in wanted if m not in sys.stdlib_module_names and m != "sft_ui"}
    # Import names that differ from the package names, or come with a pinned package.
    provided_by = {"yaml": "pyyaml", "huggingface_hub": "transformers",
                   "safetensors": "transformers", "pyarrow": "datasets", "numpy": "torch",
                   "rouge_score": "rouge-score", "charset_normalizer": "charset-normalizer",
                   "docx": "python-docx", "bs4": "beautifulsoup4"}
    missing = {m for m in third_party if provided_by.get(m, m).lower() not in _pins()}
    assert not missing, f"imported but not in requirements.txt: {missing}"


def test_deploy_studio_uploads_the_app_and_no_token(tmp_path):
    hub = RecordingHub()
    url = deploy_studio("me/my-studio", FAKE_TOKEN, api=hub, root=ROOT)
    assert url == "https://huggingface.co/spaces/me/my-studio"
    (_, create), (_, upload) = hub.calls
    assert create["repo_type"] == "space" and create["space_sdk"] == "gradio"
    assert upload["repo_type"] == "space" and "app.py" in upload["allow_patterns"]
    # What those patterns select from this checkout: the app, never runs, venvs or tests.
    chosen = set(hub.files)
    assert {"app.py", "requirements.txt", "README.md", "sft_ui/config/fields.py",
            "sft_ui/config/presets/default.yaml", "sft_ui/space_app/app.py",
            "sft_ui/plan/model_configs/Llama-3.1-8B-Instruct.json",
            "sft_ui/backends/job.sh", "sft_ui/locale/ja/LC_MESSAGES/messages.po",
            "docs/train-tab.png", "docs/training.md"} <= chosen
    assert not [f for f in chosen if f.startswith(("runs/", ".venv/", "tests/"))]
    for data in hub.files.values():
        assert FAKE_TOKEN.encode() not in data


@pytest.mark.parametrize("env, expected", [
    ({"SFT_UI_RUNS_DIR": "/tmp/x-runs"}, "/tmp/x-runs"),
    ({}, str(Path("runs").resolve())),
])
def test_runs_folder_choice(monkeypatch, env, expected):
    monkeypatch.delenv("SFT_UI_RUNS_DIR", raising=False)
    monkeypatch.delenv("SPACE_ID", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert str(runs_dir()) == expected
