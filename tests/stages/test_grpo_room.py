"""GRPO is a stage that lives in its own room: the files that exist for it alone (ROOM).
Every other module of the package is read, its comments and docstrings left out, for the
names only GRPO's code uses (its stage, its family, its settings, its rewards); the
modules that hold any are counted and held at MOST_OUTSIDE. What stays outside is a
registry that names the stage, a common setting's help, a line of the hardware's optional
libraries, or the type checker's view of RunConfig, each named in docs/architecture.md,
"A new stage"."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "sft_ui"
# GRPO's own files: the stage, its settings and checks, its data, its rewards, its
# trainer, its plan, its script and its page panel (its Japanese: entries of the catalogues,
# sft_ui/locale/).
ROOM = {
    "stages/grpo.py", "config/grpo.py", "config/grpo_settings.py", "data/prompts.py",
    "data/grpo_demo.py", "data/prompt_preview.py", "rewards/__init__.py", "rewards/builtin.py",
    "rewards/check.py", "rewards/sandbox.py", "rewards/scores.py", "rewards/stalled.py",
    "rewards/written.py",
    "train/grpo.py",
    "train/grpo_sample.py", "train/grpo_signal.py", "train/grpo_try.py",
    "train/grpo_warmup.py",
    "plan/rollouts.py", "plan/grpo_notes.py", "share/grpo_script.py", "ui/rewards_panel.py",
}
GRPO_NAMES = re.compile(
    r"(?i:grpo)|\bREWARD\b|reward_funcs|reward_weights|rewards_weights|reward_code|"
    r"num_generations|max_completion_length|use_vllm|WRITTEN_REWARD|sft_ui\.rewards|"
    r"try_rewards|check_rewards|prompt-only")
MOST_OUTSIDE = 4  # (config/fields.py names each family's settings class for the type checker)
# Modules whose strings are not code of theirs: the i18n scan's lists quote the strings of
# every module, GRPO's too.
QUOTES = {"i18n/scan.py"}


def code_text(source: str) -> str:
    """A module's code without its comments and docstrings."""
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            docstrings.add(body[0].lineno)
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            continue
        if tok.type == tokenize.STRING and tok.start[0] in docstrings:
            continue
        out.append(tok.string)
    return " ".join(out)


def outside() -> dict[str, list[str]]:
    """Each module outside the room that names GRPO's code, with the names it uses."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name in ROOM or name in QUOTES:
            continue
        hits = sorted({m.group(0) for m in GRPO_NAMES.finditer(
            code_text(path.read_text(encoding="utf-8")))})
        if hits:
            found[name] = hits
    return found


def test_grpo_touches_few_files_outside_its_room():
    found = outside()
    assert len(found) <= MOST_OUTSIDE, \
        f"{len(found)} modules outside GRPO's room hold its code: {found}"


def test_the_room_exists():
    """Every file named as the room is there (a rename would otherwise hide a module)."""
    assert [f for f in sorted(ROOM) if not (PACKAGE / f).exists()] == []


def test_the_count_sees_code_and_not_comments():
    source = ('"""GRPO is mentioned here."""\n# grpo in a comment\n'
              'def f(cfg):\n    """num_generations"""\n    return cfg.num_generations\n')
    assert "grpo" not in code_text(source).lower()
    assert GRPO_NAMES.findall(code_text(source)) == ["num_generations"]
