"""A run trained on Hugging Face Jobs: the studio's own code and the run's settings uploaded to
the model repo, the job submitted, followed through its logs' events and stopped, and its
model brought back into the run folder (docs/scale-out.md).
"""
from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

from sft_ui.config import DEFAULT_MODEL_ID, RunConfig
from sft_ui.errors import UserError
from sft_ui.i18n.message import Message
from sft_ui.train.events import deliver, read_event

IMAGE = "python:3.11"  # the job's container; the studio's pinned requirements go on top
STUDIO_FOLDER = ".studio"  # in the model repo: each run's code, settings and model (job.sh)
ENDING_STAGES = ("COMPLETED", "CANCELED", "ERROR", "DELETED")
POLL_SECONDS = 2.0
TAIL_LINES = 30


class JobError(UserError, RuntimeError):
    """A job that cannot be submitted or that failed; the message says why (`messages`:
    its Message, kept whole for the page)."""


def known_flavors() -> list[str]:
    """The hardware names of Hugging Face Jobs as this huggingface_hub knows them."""
    from huggingface_hub import JobHardware  # huggingface_hub: loaded on first use
    return [h.value for h in JobHardware]


def flavors(api=None) -> list[str]:
    """The hardware a job can run on: the Hub's list when online, else the known names."""
    try:
        return [h.name for h in _api(api).list_jobs_hardware()] or known_flavors()
    except Exception:  # offline, or an older Hub: the names this library knows
        return known_flavors()


def _api(api=None):
    if api is not None:
        return api
    from huggingface_hub import HfApi  # huggingface_hub: loaded on first use
    return HfApi()


def check(cfg: RunConfig, token: str, api=None) -> str:
    """Why cfg cannot be sent to Jobs with `token`, before any run folder exists (raises
    JobError); the account name when it can."""
    token = (token or "").strip()
    if not cfg.hub_model_id.strip():
        raise JobError(Message("Hugging Face Jobs pushes the trained model to a Hub repo: "
                               "fill in 'Hub repo for the model' (hub_model_id), e.g. "
                               "your-name/my-model."))
    if not token:
        raise JobError(Message("Hugging Face Jobs needs a token with write access: paste it "
                               "in 'Hugging Face token' (it is used for this launch only, "
                               "never saved)."))
    model = cfg.model_name_or_path
    if Path(model).expanduser().exists() and model != DEFAULT_MODEL_ID:
        raise JobError(Message("The model {model} is a folder on this machine, which a job "
                               "cannot see: push it to the Hub and use its repo id.",
                               model=model))
    if cfg.eval_dataset_name.strip() and Path(cfg.eval_dataset_name).expanduser().exists():
        raise JobError(Message("The eval dataset is a file on this machine: on Jobs use a "
                               "Hub dataset or a held-out eval fraction."))
    try:
        user = _api(api).whoami(token=token)["name"]
    except Exception as e:
        if _offline(e):
            raise JobError(Message("Hugging Face Jobs: this machine is offline (huggingface.co "
                                   "cannot be reached), so no job can be sent from here. "
                                   "Train on this machine, or start the app where it has "
                                   "internet.")) from None
        reason = _reason(e)
        raise JobError(Message("The Hub refused the token: {reason}. Paste a token with "
                               "write access (huggingface.co/settings/tokens).",
                               reason=reason)) from None
    offered, flavor = flavors(api), cfg.jobs_flavor
    if flavor not in offered:
        names = ", ".join(offered)
        raise JobError(Message("Jobs hardware {flavor} is not one Hugging Face Jobs offers: "
                               "choose one of {names}.", flavor=repr(flavor), names=names))
    return user


def _offline(error: Exception) -> bool:
    text = f"{type(error).__name__}: {error}"
    return any(word in text for word in ("ConnectError", "ConnectionError", "OfflineMode",
                                         "Name or service not known", "Temporary failure in "
                                         "name resolution", "Network is unreachable",
                                         "timed out", "Timeout"))


def _reason(error: Exception) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__


JOB_SCRIPT = Path(__file__).with_name("job.sh")  # its command; SFT_UI_REPO names the repo


def _stage(cfg: RunConfig, folder: Path) -> RunConfig:
    """The studio's code, requirements and the run's settings in `folder`, as the job will
    find them; an uploaded data file goes along (as data/<name>)."""
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "sft_ui", folder / "sft_ui",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(root / "requirements.txt", folder / "requirements.txt")
    values = cfg.to_dict()
    values["num_processes"] = None  # every GPU of the job's machine
    data = Path(cfg.dataset_name).expanduser()
    if cfg.dataset_name != "demo" and data.exists():
        (folder / "data").mkdir()
        copy = shutil.copytree if data.is_dir() else shutil.copy
        copy(data, folder / "data" / data.name)
        values["dataset_name"] = f"data/{data.name}"
    staged = RunConfig.from_dict(values)
    (folder / "config.yaml").write_text(staged.to_yaml(), encoding="utf-8")
    return staged


def studio_folder(run_dir: Path) -> str:
    """The run's own folder in the model repo: its code and settings, then its model. One
    per run: a sweep's trials on Jobs share the repo and run at once, and each must bring
    back its own model (the root holds the last one pushed)."""
    return f"{STUDIO_FOLDER}/{run_dir.name}"


def submit(cfg: RunConfig, token: str, folder: str, api=None) -> str:
    """Upload the studio and the run's settings to `folder` in the model repo and start
    the job; its id. `check` first. The job runs the code of the page that launched it,
    wherever the app runs, and needs no other repo; the token reaches it as a secret
    only, never in a file, a log, the YAML or the job's command."""
    api, repo = _api(api), cfg.hub_model_id.strip()
    try:
        api.create_repo(repo, token=token, private=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="sft-job-") as tmp:
            _stage(cfg, Path(tmp))
            api.upload_folder(repo_id=repo, folder_path=tmp, path_in_repo=folder,
                              token=token, commit_message="SFT Studio: code and settings "
                              "of a run for Hugging Face Jobs")
        job = api.run_job(image=IMAGE, command=["bash", "-c", JOB_SCRIPT.read_text()],
                          env={"SFT_UI_REPO": repo, "SFT_UI_STUDIO": folder},
                          secrets={"HF_TOKEN": token},
                          flavor=cfg.jobs_flavor,
                          labels={"sft-studio": "run"}, token=token)
    except UserError:
        raise
    except Exception as e:
        reason = _reason(e)
        raise JobError(Message("Could not start the job: {reason}.", reason=reason)) from None
    return job.id


def follow(job_id: str, run_dir: Path, sink, token: str, repo: str, api=None) -> Path | None:
    """Follow a job to its end, feeding its events to `sink`; Stop (the sink's) cancels it.
    A finished job's model (from its own folder in the repo) is downloaded into the run
    folder, whose path is returned;
    a cancelled job returns None; a failed one raises JobError with its last lines."""
    api = _api(api)
    tail: deque = deque(maxlen=TAIL_LINES)
    reader = threading.Thread(target=_read_logs, args=(api, job_id, token, sink, tail),
                              daemon=True, name=f"job-{job_id}")
    reader.start()
    cancelled = False
    while True:
        stage = str(api.inspect_job(job_id=job_id, token=token).status.stage)
        stage = stage.rsplit(".", 1)[-1].upper()  # an enum's name or its value
        if stage in ENDING_STAGES:
            break
        if sink.stop_requested() and not cancelled:
            api.cancel_job(job_id=job_id, token=token)
            cancelled = True
        time.sleep(POLL_SECONDS)
    reader.join(timeout=30)
    if stage == "COMPLETED":
        return _download_model(api, repo, run_dir, token)
    if stage in ("CANCELED", "DELETED") and (cancelled or sink.stop_requested()):
        return None
    lines = "\n".join(tail) or Message("(no output)")
    raise JobError(Message("The job {job_id} ended with {stage}. Its last lines:\n{lines}",
                           job_id=job_id, stage=stage, lines=lines))


def _download_model(api, repo: str, run_dir: Path, token: str) -> Path:
    """The model the job pushed to the run's own folder, as the run's model folder."""
    folder, fetched = studio_folder(run_dir), run_dir / "fetched"
    api.snapshot_download(repo, local_dir=fetched, token=token,
                          allow_patterns=[f"{folder}/model/*"])
    out = run_dir / "model"
    shutil.move(fetched / folder / "model", out)
    shutil.rmtree(fetched)
    return out


def _read_logs(api, job_id: str, token: str, sink, tail: deque) -> None:
    for line in api.fetch_job_logs(job_id=job_id, follow=True, token=token):
        event = read_event(line)
        if event is None:
            tail.append(str(line).rstrip())
        elif "done" not in event and "failed" not in event:
            deliver(event, sink)


def train_on_jobs(token: str, api=None):
    """A trainer for RunManager (cfg, run_dir, sink, resume_from) that trains on Jobs. The
    token stays in this process's memory while the job is followed."""
    def train(cfg: RunConfig, run_dir: Path, sink, resume_from=None):
        if resume_from is not None:
            raise JobError(Message("A run on Hugging Face Jobs cannot be resumed: start it "
                                   "again."))
        job_id = submit(cfg, token, studio_folder(run_dir), api)
        if hasattr(sink, "set_state"):
            flavor = cfg.jobs_flavor
            sink.set_state("running", Message("Training on Hugging Face Jobs ({flavor}), job "
                                              "{job_id}...", flavor=flavor, job_id=job_id))
        return follow(job_id, run_dir, sink, token, cfg.hub_model_id.strip(), api)
    return train
