"""The Hub stand-in the Jobs tests run against (fixture `hub`): HfApi itself
(create_autospec: a changed signature fails there) whose job calls really run the submitted
command on this machine. The `hf` and `pip` commands inside the job are stand-ins too: `hf`
copies to and from a folder playing the Hub, `pip` has nothing to install here. What the
stand-ins copy is filtered as the real ones filter it (--include / --exclude,
allow_patterns / ignore_patterns, through huggingface_hub's own filter_repo_objects)."""
import itertools
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import create_autospec

import pytest
from huggingface_hub import HfApi

TOKEN = "hf_FakeTokenForJobs0123456789"
REPO = "me/jobs-model"

HF_SHIM = textwrap.dedent("""\
    import os, shutil, sys
    from pathlib import Path
    from huggingface_hub.utils import filter_repo_objects  # the real CLI's own filter
    hub = Path(os.environ["FAKE_HUB"])
    args = sys.argv[1:]
    def opt(name):
        return [args[i + 1] for i, a in enumerate(args) if a == name]
    words = [a for i, a in enumerate(args) if not a.startswith("--")
             and (i == 0 or not args[i - 1].startswith("--"))]
    def copy(source, dest):  # the files --include / --exclude let through, as hf does
        files = sorted(p.relative_to(source).as_posix() for p in source.rglob("*")
                       if p.is_file())
        for rel in filter_repo_objects(files, allow_patterns=opt("--include") or None,
                                       ignore_patterns=opt("--exclude") or None):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / rel, dest / rel)
    if words[0] == "download":
        copy(hub / words[1], Path(opt("--local-dir")[0]))
    elif words[0] == "upload":
        repo, source, target = words[1], Path(words[2]), words[3]
        copy(source, hub / repo / ("" if target == "." else target))
    print("hf", words[0], "done")
""")


def _copy_filtered(source: Path, dest: Path, allow=None, ignore=None) -> None:
    """Copy the files of `source` that allow_patterns / ignore_patterns let through, as
    HfApi's upload_folder and snapshot_download filter them."""
    from huggingface_hub.utils import filter_repo_objects
    files = sorted(p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file())
    for rel in filter_repo_objects(files, allow_patterns=allow, ignore_patterns=ignore):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / rel, dest / rel)


class FakeJobs:
    """The job half of the stand-in: each job is a local process of the command."""

    def __init__(self, root: Path):
        self.root, self.hub, self.bin = root, root / "hub", root / "bin"
        self.hub.mkdir(parents=True)
        self.bin.mkdir()
        (self.bin / "hf").write_text(f"#!{sys.executable}\n{HF_SHIM}")
        (self.bin / "pip").write_text("#!/bin/sh\necho pip: nothing to install here\n")
        for shim in ("hf", "pip"):
            (self.bin / shim).chmod(0o755)
        self.procs, self.cancelled, self.secrets = {}, set(), []
        self.ids = itertools.count(1)

    def upload_folder(self, *, repo_id, folder_path, path_in_repo=None, allow_patterns=None,
                      ignore_patterns=None, **kwargs):
        _copy_filtered(Path(folder_path), self.hub / repo_id / (path_in_repo or ""),
                       allow_patterns, ignore_patterns)

    def run_job(self, *, image, command, env=None, secrets=None, flavor=None, **kwargs):
        job_id = f"job{next(self.ids)}"
        work = self.root / job_id
        work.mkdir()
        self.secrets.append(dict(secrets or {}))
        path = os.pathsep.join([str(self.bin), str(Path(sys.executable).parent),
                                os.environ["PATH"]])
        # Each job on the Hub has a machine of its own; here two at once share this one's
        # cores, half each (with every core each, torch's threads fought over them, and a
        # 35 s test took 100-126 s at times).
        threads = str(max(1, (os.cpu_count() or 2) // 2))
        self.procs[job_id] = subprocess.Popen(
            command, cwd=work, env={**os.environ, "PATH": path, "FAKE_HUB": str(self.hub),
                                    "PYTHONPATH": "", "OMP_NUM_THREADS": threads,
                                    **(env or {}), **(secrets or {})},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        return SimpleNamespace(id=job_id)

    def inspect_job(self, *, job_id, **kwargs):
        code = self.procs[job_id].poll()
        stage = "RUNNING" if code is None else "CANCELED" if job_id in self.cancelled else \
            "COMPLETED" if code == 0 else "ERROR"
        return SimpleNamespace(status=SimpleNamespace(stage=stage))

    def fetch_job_logs(self, *, job_id, follow=False, **kwargs):
        for line in self.procs[job_id].stdout:  # as the Hub shows them: a time in front
            yield f"2026-11-23T10:00:00Z {line.rstrip()}"

    def cancel_job(self, *, job_id, **kwargs):
        self.cancelled.add(job_id)
        os.killpg(self.procs[job_id].pid, signal.SIGTERM)

    def snapshot_download(self, repo_id, *, local_dir, allow_patterns=None,
                          ignore_patterns=None, **kwargs):
        _copy_filtered(self.hub / repo_id, Path(local_dir), allow_patterns, ignore_patterns)
        return str(local_dir)


@pytest.fixture
def hub(tmp_path):
    fake = FakeJobs(tmp_path / "jobs")
    api = create_autospec(HfApi, instance=True)
    api.whoami.return_value = {"name": "me"}
    api.list_jobs_hardware.side_effect = OSError("offline")
    for name in ("upload_folder", "run_job", "inspect_job", "fetch_job_logs", "cancel_job",
                 "snapshot_download"):
        getattr(api, name).side_effect = getattr(fake, name)
    api.fake = fake
    yield api
    for proc in fake.procs.values():
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
