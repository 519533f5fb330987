"""Everything a person can do to the studio, in one place: who may do it, what it does, and
the UserError a person sees when it cannot be done. Knows nothing of Gradio.
"""
from __future__ import annotations

from pathlib import Path

from sft_ui.access import LOCAL_OWNER, UPLOADS, Access, Who
from sft_ui.asking import Asking
from sft_ui.chat import BASE, LATEST, ChatService, GenSettings
from sft_ui.config import RunConfig
from sft_ui.config.registry import code_names
from sft_ui.data import store_upload
from sft_ui.data.preview import preview
from sft_ui.evaluate.job import Evaluation, EvaluationSnapshot, Evaluator
from sft_ui.i18n.message import Message
from sft_ui.limits import Shares
from sft_ui.plan.hardware import detect
from sft_ui.plan.planner import fit_to_machine, fit_to_target, plan_with_data
from sft_ui.plan.speed import calibrate
from sft_ui.plan.targets import find
from sft_ui.runs import ACTIVE_STATES, RunError, RunManager
from sft_ui.runs.next_stage import FollowUp, preference_after
from sft_ui.runs.run_queue import RunQueue
from sft_ui.runs.snapshot import RunSnapshot
from sft_ui.share.export import export_run
from sft_ui.share.gguf_export import export_gguf
from sft_ui.share.hub import check_push, deploy_studio, publish_space, push_folder
from sft_ui.stages import demos, get, hook, stage_of
from sft_ui.sweeps import Scorer, Sweeps, SweepSpec
from sft_ui.sweeps.stored import SweepSnapshot


class Actions(Asking):
    """The page's handlers and the HTTP API are thin bindings over these methods: a request
    becomes a `Who`, one action is called, and its result or its error is shown. Reading is
    open to everyone (run states, lists, chat); acting needs the right `Access.require`
    checks, and settings that name files may name only files this caller may read."""

    def __init__(self, manager: RunManager, access: Access, chat: ChatService | None = None):
        self.manager, self.access = manager, access
        self.chat_service = chat or ChatService(manager)
        self.evaluator = Evaluator(self.chat_service)
        self.shares = Shares()  # visitors' shares of generation (limits.py)
        self.queue = RunQueue(manager)
        self.queue.pump()  # runs queued before the app (re)started go on
        self.sweeps = Sweeps(self.queue, manager, Scorer(self.evaluator))

    def _may(self, who: Who, action: str, values=None) -> None:
        """AccessError unless this caller may take the action (and read the files that
        `values`, RunConfig fields, name)."""
        self.access.require(who, action)
        if values is not None:
            self._may_read(who, values)

    def _may_read(self, who: Who, values) -> None:
        self.access.check_config(self.manager.root, who, values, code_names())

    # ---- runs ----------------------------------------------------------------
    def start(self, who: Who, values: dict | RunConfig, token: str = "") -> str:
        """Check and start a run; its id. `token`: a Hugging Face token for a run on
        Hugging Face Jobs, used for this launch only."""
        self._may(who, "start a run", values)
        return self.manager.start(values, token=token or "")

    def check_start(self, who: Who, values: dict | RunConfig, token: str = "",
                    idle: bool = True) -> None:
        """Why Start would refuse these settings now (raises what `start` raises), without
        starting anything (`idle` False: leaving out the run training now)."""
        self._may(who, "start a run", values)
        self.manager.check(values, token=token or "", idle=idle)

    # ---- the queue ---------------------------------------------------------------
    def queue_run(self, who: Who, values: dict | RunConfig) -> str:
        """Check settings as Start does and queue them (run_queue.py); the queued id. The
        run starts at once when none trains."""
        self._may(who, "queue a run", values)
        return self.queue.add(values, self.access.owner(who))

    def queued(self, who: Who) -> list[dict]:
        """This caller's queued runs, in the order they start."""
        return self.queue.rows(self.access.owner(who))

    def unqueue(self, who: Who, queued_id: str) -> None:
        self._may(who, "change the queue")
        self.queue.remove(queued_id, self.access.owner(who))

    def move_queued(self, who: Who, queued_id: str, offset: int) -> None:
        self._may(who, "change the queue")
        self.queue.move(queued_id, int(offset), self.access.owner(who))

    def edit_queued(self, who: Who, queued_id: str, values: dict | RunConfig) -> None:
        self._may(who, "change the queue", values)
        self.queue.edit(queued_id, values, self.access.owner(who))

    # ---- sweeps --------------------------------------------------------------------
    def start_sweep(self, who: Who, spec: dict | SweepSpec,
                    token: str = "") -> SweepSnapshot:
        """Check a sweep (its settings, what it varies, its score) and start it: its
        trials wait in the run queue, one after another (sweeps/sweep.py), or run several
        at once on Hugging Face Jobs with `token` (kept in memory while the sweep runs)."""
        self._may(who, "start a sweep")
        spec = spec if isinstance(spec, SweepSpec) else SweepSpec.from_dict(spec)
        self._may_read(who, spec.base)
        if spec.eval_file.strip():
            self._may_read(who, {"eval_dataset_name": spec.eval_file})
        return self.sweeps.start(spec, self.access.owner(who), token or "").snapshot()

    def sweep(self, who: Who, sweep_id: str = "") -> SweepSnapshot | None:
        """A sweep of this caller's (blank: their latest), ranked; None when they have
        none."""
        sweep_id = str(sweep_id or "").strip()
        if not sweep_id:
            ids = self.sweeps.ids(self.access.owner(who))
            if not ids:
                return None
            sweep_id = ids[0]
        return self.sweeps.get(sweep_id, self.access.owner(who)).snapshot()

    def sweep_ids(self, who: Who) -> list[str]:
        return self.sweeps.ids(self.access.owner(who))

    def damaged_sweeps(self, who: Who) -> list[str]:
        """The sweep files the app found it could not read (whose they were cannot be
        read either: said where the studio is one person's only)."""
        return list(self.sweeps.damaged) if self.access.owner(who) == LOCAL_OWNER else []

    def stop_sweep(self, who: Who, sweep_id: str) -> SweepSnapshot:
        self._may(who, "stop a sweep")
        return self.sweeps.stop(sweep_id, self.access.owner(who)).snapshot()

    def resume_sweep(self, who: Who, sweep_id: str, token: str = "") -> SweepSnapshot:
        """Go on with a sweep of this caller's that a stop of the app interrupted, where it
        was (sweeps/sweep.py `resume`)."""
        self._may(who, "start a sweep")
        return self.sweeps.resume(sweep_id, self.access.owner(who), token or "").snapshot()

    def best_of_sweep(self, who: Who, sweep_id: str = "") -> tuple[RunConfig, str]:
        """The settings the sweep's best trial trained with (its run's, the time budget's
        choices included) and its run id, for the page or a next run."""
        found = self.sweep(who, sweep_id)
        if not found or not found["best"]:
            raise RunError(Message("This sweep has no scored trial yet: its ranked table fills "
                                   "as its trials end."))
        run = self.manager.get(found["best"]["run_id"])
        return run.config, run.id

    def stop(self, who: Who, run_id: str) -> RunSnapshot:
        """Ask a run to stop after the current step; its snapshot."""
        self._may(who, "stop a run")
        return self.manager.stop(run_id)

    def resume(self, who: Who, run_id: str) -> str:
        self._may(who, "resume a run")
        return self.manager.resume(run_id)

    def rename(self, who: Who, run_id: str, name: str) -> dict:
        self._may(who, "rename a run")
        return self.manager.rename(run_id, name)

    def ask_delete(self, who: Who, run_id: str) -> RunSnapshot:
        """The run a delete would remove (its short snapshot), before the confirmation."""
        self._may(who, "delete a run")
        return self.manager.get(run_id).snapshot(log=False)

    def delete(self, who: Who, run_id: str) -> str:
        self._may(who, "delete a run")
        return self.manager.delete(run_id)

    def continue_with_preference(self, run_id: str, stage: str = "") -> FollowUp:
        """The settings of the next stage's run (`stage`: one of those offered; blank: the
        first, DPO after SFT) that continues a finished run (runs/next_stage.py), for the
        page to fill in; nothing starts (Start checks the right to train)."""
        return preference_after(self.manager.get(run_id), stage)

    # ---- settings and data ---------------------------------------------------
    def plan(self, who: Who, values: dict, target: str = "") -> dict:
        """The plan of planner.plan_with_data for these settings (it reads the data), on
        this machine or a target GPU (plan/targets.py; blank: this machine)."""
        self._may_read(who, values or {})
        return plan_with_data(RunConfig.from_dict(values or {}), target=target or "",
                              runs=self.manager.root)

    def fit(self, values: dict, target: str = "") -> tuple[RunConfig, str]:
        """Batch size and accumulation that fit this machine, and why; on a GPU (a target,
        or this machine's) also the best of full fine-tuning, LoRA and QLoRA there."""
        cfg = RunConfig.from_dict(values)
        if find(target) or detect().device == "cuda":
            return fit_to_target(cfg, target)
        return fit_to_machine(cfg)  # a CPU: the batch and accumulation

    def measure(self, who: Who, values: dict) -> float:
        """Train a few steps and remember the speed (tokens/s) for the plan."""
        self._may(who, "measure the speed (it trains a few steps)")
        active = self.manager.active()
        if active is not None and active.state in ACTIVE_STATES:
            raise RunError(Message("A run is training: measure after it ends (both would share "
                                   "the machine, and the figure would be wrong)."))
        return calibrate(RunConfig.from_dict(values))

    def test_rewards(self, who: Who, values: dict, prompts: int = 3) -> dict:
        """Test rewards: the model writes answers to a few prompts and each reward function
        scores them (the stage's family's "try" hook); nothing is saved. It runs the model
        (and any written reward), so it needs the right to train."""
        self._may(who, "test rewards (the model writes answers)", values or {})
        cfg = RunConfig.from_dict(values or {})
        tried = hook(cfg, "try")
        if tried is None:
            raise RunError(Message("{title} learns from no reward functions: Test rewards is "
                                   "for a stage that does.", title=stage_of(cfg).title))
        return tried(cfg, prompts)

    def preview(self, who: Who, values: dict) -> dict:
        """What the model learns from with these data settings (data/preview.py)."""
        self._may_read(who, values or {})
        return preview(RunConfig.from_dict(values or {}))

    def dataset_choices(self, who: Who, stage: str, most: int = 20) -> list[str]:
        """What the dataset box offers for a run of `stage`: its built-in set, then the
        datasets earlier runs of its kind trained on, newest first (Hub ids, and local
        files that are still there and this caller may read: on a shared server only
        their own uploads; never another person's uploads)."""
        kind = get(stage) or stage_of("sft")
        own = self.access.upload_folder(self.manager.root, who).resolve()
        choices = [kind.demo]
        for run in self.manager.all_runs():
            name, ran = run.config.dataset_name.strip(), get(run.config.stage)
            if not name or name in choices or name in demos() or ran is None or \
                    ran.family != kind.family:
                continue
            path = Path(name).expanduser()
            if path.exists() or name.startswith((".", "/", "~")):
                mine = own in path.resolve().parents
                if not path.exists() or (UPLOADS in path.parts or self.access.shared) \
                        and not mine:
                    continue
            choices.append(name)
            if len(choices) >= most:
                break
        return choices

    def upload(self, who: Who, path: str | Path) -> str:
        """Keep an uploaded dataset file in this caller's upload folder; its path there."""
        self._may(who, "upload a dataset")
        return store_upload(path, self.access.upload_folder(self.manager.root, who))

    # ---- after training (chat and compare: asking.py) -------------------------
    def evaluate(self, who: Who, models: list, test_set: str, split: str = "test",
                 limit: int = 0, settings: GenSettings | None = None,
                 batch_size: int = 8) -> Evaluation:
        """Start answering a test set with one or two models and scoring the answers. A
        right, as training is (not open as chat is): it generates on this server's CPU for
        as long as a short run, and writes its files into the runs' folders."""
        self._may(who, "evaluate models")
        self.access.check_paths(self.manager.root, who, {"Test set": test_set})
        return self.evaluator.start(models, test_set, split, limit, settings, batch_size)

    def training_data_warning(self, models: list, test_set: str, split: str = "test") -> str:
        """A sentence when the test set is data one of the models' runs trained on (its
        scores would flatter that model), else ""."""
        name = str(test_set or "").strip()
        for ref in [str(r or "").strip() for r in models]:
            run_id, _, part = ref.partition("/")
            if not ref or ref == BASE or part == BASE:
                continue
            try:
                run = self.manager.latest_finished() if ref == LATEST else \
                    self.manager.get(run_id)
            except RunError:
                continue
            cfg = run.config if run else None
            local = name in demos() or Path(name).expanduser().exists()
            if run and cfg and cfg.dataset_name.strip() == name and \
                    (local or split.strip() == cfg.dataset_train_split.strip()):
                return Message("The test set is the data run {run_id} trained on ({name}): "
                               "its scores will look better than on data it never saw. For a "
                               "fair score, choose the run's eval split, or other data.",
                               run_id=run.id, name=name)
        return ""

    def stop_evaluation(self, who: Who) -> EvaluationSnapshot | None:
        """End the running evaluation after the rows answered so far (they are scored)."""
        self._may(who, "stop an evaluation")
        return self.evaluator.stop()

    def export(self, who: Who, run_id: str, checkpoint: str = "", merged: bool = False) -> Path:
        """Export a run or one checkpoint (adapter or merged model, with its card)."""
        self._may(who, "export a run")
        return export_run(self.manager.get(run_id), checkpoint, bool(merged))

    def export_gguf(self, who: Who, run_id: str, checkpoint: str = "",
                    quantisation: str = "f16") -> tuple[Path, Path]:
        """Convert a run (or one checkpoint; a LoRA run merged first) to one GGUF file;
        (that file, its Ollama Modelfile)."""
        self._may(who, "export a run")
        return export_gguf(self.manager.get(run_id), checkpoint, quantisation)

    def push_export(self, who: Who, folder: str | Path, repo_id: str, token: str,
                    private: bool = True) -> str:
        """Push an exported folder to a Hub model repo; its URL. The token is used for this
        call only."""
        self._may(who, "push to the Hub")
        return push_folder(folder, repo_id, token, bool(private))

    def push(self, who: Who, run_id: str, repo_id: str, token: str, private: bool = True,
             merged: bool = False) -> str:
        """Export a run and push it; a push that cannot happen exports nothing."""
        self._may(who, "push to the Hub")
        check_push(repo_id, token)
        return self.push_export(who, self.export(who, run_id, "", merged), repo_id, token,
                                private)

    def publish(self, who: Who, model_repo_id: str, space_id: str, token: str) -> str:
        """Create a Gradio chat Space for a pushed model; its URL."""
        self._may(who, "publish a Space")
        return publish_space(str(model_repo_id or "").strip(), space_id, token)

    def deploy(self, who: Who, space_id: str, token: str) -> str:
        """Upload the studio itself to a Space of the caller's; its URL."""
        self._may(who, "deploy the studio")
        return deploy_studio(space_id, token)

    # ---- sessions --------------------------------------------------------------
    def sign_in(self, who: Who, user: str, password: str) -> str:
        return self.access.sign_in(who, user, password)

    def sign_out(self, who: Who) -> None:
        self.access.sign_out(who)
