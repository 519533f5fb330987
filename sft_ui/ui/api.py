"""The HTTP API next to the UI (documented in the README); errors are gr.Error
with the same readable messages the page shows, in English unless the client's
Accept-Language asks for Japanese."""
from __future__ import annotations

from typing import Iterator

import gradio as gr

from sft_ui.actions import Actions
from sft_ui.chat import GenSettings
from sft_ui.config import registry
from sft_ui.errors import UserError
from sft_ui.share.export import zip_export
from sft_ui.ui.access_panel import who
from sft_ui.ui.api_types import checked, refusal
from sft_ui.ui.lang import messages, say
from sft_ui.ui.shared_reads import READS


def _answer(fn, *args):
    """fn(*args), with a person-facing error turned into gr.Error (the client sees its text)."""
    try:
        return fn(*args)
    except UserError as e:
        raise refusal(" ".join(messages(e))) from None


# The endpoints, each an Api method of the same name.
ENDPOINTS = ("sign_in", "start_run", "queue_run", "queue", "unqueue", "move_queued",
             "start_sweep", "sweep", "stop_sweep", "resume_sweep",
             "run_status", "stop_run", "resume_run", "preview_data",
             "plan", "settings", "list_runs", "rename_run", "delete_run", "chat", "compare",
             "compare_batch", "evaluate", "stop_evaluation", "export_run", "export_gguf",
             "push_to_hub", "publish_space")
SHARED = ("chat", "compare")  # admitted by limits.py's shares, not by Gradio's queue


def build(actions: Actions) -> None:
    """The API's endpoints, each one action (sft_ui/actions.py) with the caller's identity."""
    Api(actions).register()


class Api:
    def __init__(self, actions: Actions):
        self.actions = actions

    def register(self) -> None:
        for name in ENDPOINTS:
            # Reads of run state take no lock a run holds for long: they skip the queue
            # (served at once on /gradio_api/run/<name>, about 2 ms of CPU with a session,
            # see ui/shared_reads.py), any number at once, so many clients polling do not
            # wait behind one another.
            # Chat and Compare are admitted by the visitors' shares (limits.py), which
            # refuse with a wait at once, where Gradio's queue would keep a visitor
            # waiting without a word.
            reads = name in READS
            gr.api(self.endpoint(name), api_name=name, queue=not reads,
                   concurrency_limit=None if reads or name in SHARED else "default")

    def endpoint(self, name: str):
        """The method of endpoint `name` as Gradio calls it: its values' types checked
        first (api_types.py)."""
        return checked(getattr(self, name))

    def sign_in(self, request: gr.Request, user: str, password: str) -> dict:
        """Sign this client's session in (a server started with SFT_UI_AUTH); training,
        deleting, exporting and pushing need it there."""
        return {"user": _answer(self.actions.sign_in, who(request), user, password)}

    def start_run(self, request: gr.Request, config: dict, hf_token: str = "") -> dict:
        """Start a run from RunConfig fields (missing ones take the defaults). `hf_token`:
        for run_on "hf_jobs", a Hugging Face token used for this launch only."""
        if config is None:
            raise refusal(say("No settings were sent: send a mapping of RunConfig fields, "
                               "or {} to train with every default."))
        return {"run_id": _answer(self.actions.start, who(request), config, hf_token)}

    def queue_run(self, request: gr.Request, config: dict) -> dict:
        """Queue a run (RunConfig fields, checked as Start checks them): it starts when the
        runs queued before it have ended, at once when none trains."""
        if config is None:
            raise refusal(say("No settings were sent: send a mapping of RunConfig fields, "
                               "or {} to train with every default."))
        return {"queued_id": _answer(self.actions.queue_run, who(request), config)}

    def queue(self, request: gr.Request) -> list:
        """This caller's queued runs: waiting (with their place), not started (with the
        reason), started (with their run's id and state); `seconds`: what a waiting run will
        take, what a started one took."""
        return _answer(self.actions.queued, who(request))

    def unqueue(self, request: gr.Request, queued_id: str) -> dict:
        """Remove a waiting run of yours from the queue."""
        _answer(self.actions.unqueue, who(request), queued_id)
        return {"removed": queued_id}

    def move_queued(self, request: gr.Request, queued_id: str, offset: int) -> dict:
        """Move a waiting run of yours `offset` places (negative: sooner) among yours."""
        _answer(self.actions.move_queued, who(request), queued_id, offset)
        return {"moved": queued_id}

    def start_sweep(self, request: gr.Request, sweep: dict, hf_token: str = "") -> dict:
        """Start a sweep: {"base": RunConfig fields, "vary": {setting: [values] or {"low",
        "high", "log"}}, "method": grid|random|optuna, "budget_minutes", "trials" (0: as
        many as fit), "score": eval_loss|exact_match|rougeL|json_valid|reward,
        "eval_file", "seed", "at_once"}. Its trials wait in the run queue; with base's
        run_on "hf_jobs", `at_once` of them run at once on Hugging Face Jobs with
        `hf_token` (used while the sweep runs, never saved). /sweep follows it."""
        if not isinstance(sweep, dict):
            raise refusal(say("No sweep was sent: send a mapping with base, vary and "
                               "budget_minutes."))
        return _answer(self.actions.start_sweep, who(request), sweep, hf_token)

    def sweep(self, request: gr.Request, sweep_id: str = "") -> dict | None:
        """A sweep of yours (blank: your latest): its state, trials ranked by score (best
        first, with their run ids, settings, scores and times), the best, the planner's
        estimate and the time it took."""
        return _answer(self.actions.sweep, who(request), sweep_id)

    def stop_sweep(self, request: gr.Request, sweep_id: str) -> dict:
        """Stop a sweep of yours: its running trial stops and saves, no other starts."""
        return _answer(self.actions.stop_sweep, who(request), sweep_id)

    def resume_sweep(self, request: gr.Request, sweep_id: str, hf_token: str = "") -> dict:
        """Go on with a sweep of yours that a stop of the app interrupted: the budget left
        then, its finished trials kept, the cut-off ones tried again first."""
        return _answer(self.actions.resume_sweep, who(request), sweep_id, hf_token)

    def run_status(self, run_id: str) -> dict:
        """State, step, max_steps, metrics, samples and error of a run."""
        return _answer(self.actions.manager.get, run_id).snapshot()

    def stop_run(self, request: gr.Request, run_id: str) -> dict:
        """Ask a run to stop after the current step; it saves its model."""
        return _answer(self.actions.stop, who(request), run_id)

    def resume_run(self, request: gr.Request, run_id: str) -> dict:
        """Continue a stopped or failed run from its last checkpoint (same run id)."""
        return {"run_id": _answer(self.actions.resume, who(request), run_id)}

    def preview_data(self, request: gr.Request, config: dict) -> dict:
        """Format, rows, token statistics and the first examples (raw row, text the model
        sees, tokens with the loss mask) for the dataset settings in config."""
        return _answer(self.actions.preview, who(request), config)

    def plan(self, request: gr.Request, config: dict, target: str = "") -> dict:
        """Peak memory by part in bytes, the fit mark, the effective batch, tokens per
        step and the seconds per step (None until the speed is measured) for config; on
        this machine, or on `target`, a GPU (t4-small, t4-medium, l4, a10g-small,
        a10g-large, a100-40gb, a100-large, h100, or a size such as "24 GB"). "modes" says
        which of full fine-tuning, LoRA and QLoRA fit there and how, "best" which Fit
        applies, "kernels" the precision, optimizer and kernels chosen there."""
        return _answer(self.actions.plan, who(request), config, target)

    def settings(self) -> list:
        """Every RunConfig field: name, type, default, label, help, panel, advanced,
        bounds (min, min_exclusive, max), choices, where it goes in TRL ("train": the
        stage's training arguments, SFTConfig, DPOConfig, ORPOConfig or KTOConfig;
        "model": ModelConfig; "script": ScriptArguments; null: the studio's own) and
        "stages", the stages it applies to (sft, dpo, orpo, kto; a run of another stage
        ignores it)."""
        return registry.describe()

    def list_runs(self) -> list:
        """Every run in the runs folder, newest first (without metrics and samples)."""
        return self.actions.manager.list_runs()

    def rename_run(self, request: gr.Request, run_id: str, name: str) -> dict:
        """Give a run a display name (a label: its id and folder stay)."""
        return _answer(self.actions.rename, who(request), run_id, name)

    def delete_run(self, request: gr.Request, run_id: str) -> dict:
        """Delete a run that is not training, with its folder."""
        return {"deleted": _answer(self.actions.delete, who(request), run_id)}

    def chat(self, request: gr.Request, message: str, history: list | None = None,
             run_id: str = "", system_prompt: str = "", max_new_tokens: int = 200,
             temperature: float = 0.0, top_p: float = 1.0, repetition_penalty: float = 1.0,
             ask_as: str = "", thinking: str = "") -> Iterator[str]:
        """Stream a reply. run_id is a model reference: blank or 'latest' (the latest
        finished run), a run id, '<run id>/checkpoint-N', '<run id>/base' or 'base'.
        ask_as: 'chat' (the model's chat template), 'text' (the message is a text's
        opening, continued as typed, no history), blank: as the model is asked by default
        (text for a run trained on plain text). thinking: 'on' or 'off' for a thinking
        model's template (enable_thinking), blank: the template's default."""
        settings = GenSettings(system_prompt, max_new_tokens, temperature, top_p,
                               repetition_penalty, thinking, ask_as)
        try:  # a generator raises while it is iterated, so _answer cannot wrap it
            yield from self.actions.chat(who(request), message, history, run_id or None,
                                         settings)
        except UserError as e:
            raise refusal(" ".join(messages(e))) from None

    def compare(self, request: gr.Request, message: str, model_a: str = "base",
                model_b: str = "latest",
                max_new_tokens: int = 200, temperature: float = 0.0,
                ask_as: str = "", thinking: str = "") -> Iterator[list]:
        """Both models answer the message at once; streams [reply A, reply B]. ask_as and
        thinking as for chat."""
        try:
            settings = GenSettings("", max_new_tokens, temperature, thinking=thinking,
                                   ask_as=ask_as)
            for a, b in self.actions.compare(who(request), message, model_a, model_b,
                                             settings):
                yield [a, b]
        except UserError as e:
            raise refusal(" ".join(messages(e))) from None

    def compare_batch(self, request: gr.Request, prompts: list, model_a: str = "base",
                      model_b: str = "latest", max_new_tokens: int = 64,
                      ask_as: str = "", thinking: str = "") -> list:
        """Greedy answers of both models to each prompt: [{prompt, a, b}, ...]. ask_as and
        thinking as for chat. A right on a shared server, as evaluate is."""
        return _answer(self.actions.compare_batch, who(request), prompts or [], model_a,
                       model_b, max_new_tokens, ask_as, thinking)

    def evaluate(self, request: gr.Request, model_a: str = "base", model_b: str = "latest",
                 test_set: str = "", split: str = "test", limit: int = 0,
                 max_new_tokens: int = 200, temperature: float = 0.0,
                 batch_size: int = 8, thinking: str = "") -> dict:
        """Answer a test set with one or two models (model_b blank: one) and score the
        answers; waits for the end. test_set: a file or folder path, a Hub dataset id
        (with split), or 'run:<run id>' for a run's eval split; limit 0: every row.
        Returns the state, rows asked and answered, one dict of scores per model and the
        paths of the summary and the predictions (JSONL, CSV). thinking as for chat."""
        job = _answer(self.actions.evaluate, who(request), [model_a, model_b], test_set,
                      split, limit, GenSettings("", max_new_tokens, temperature,
                                                thinking=thinking), batch_size)
        snap = self.actions.evaluator.wait(job)
        if snap["state"] == "failed":
            raise refusal(say(snap["error"]))
        return {k: snap[k] for k in ("id", "state", "error", "models", "test_set",
                                     "rows_asked", "rows_answered", "scores", "files")}

    def stop_evaluation(self, request: gr.Request) -> dict:
        """End the running evaluation after the rows answered so far; they are scored."""
        snap = _answer(self.actions.stop_evaluation, who(request))
        return {"stopping": snap is not None}

    def export_run(self, request: gr.Request, run_id: str, checkpoint: str = "",
               merged: bool = False) -> dict:
        """Export a run (or one checkpoint): LoRA adapter or merged model, with a model card;
        returns the folder and a zip of it."""
        folder = _answer(self.actions.export, who(request), run_id, checkpoint, merged)
        return {"folder": str(folder), "zip": str(zip_export(folder))}

    def export_gguf(self, request: gr.Request, run_id: str, checkpoint: str = "",
                    quantisation: str = "f16") -> dict:
        """Convert a run (or one checkpoint; a LoRA run is merged first) to one GGUF file,
        quantisation "f16", "q8_0", "bf16" or "f32"; returns the file and the Ollama
        Modelfile written beside it."""
        file, modelfile = _answer(self.actions.export_gguf, who(request), run_id, checkpoint,
                                  quantisation)
        return {"file": str(file), "modelfile": str(modelfile)}

    def push_to_hub(self, request: gr.Request, run_id: str, repo_id: str, token: str,
                    private: bool = True, merged: bool = False) -> dict:
        """Export a run and push it to a Hub model repo; the token is used for this call
        only."""
        return {"url": _answer(self.actions.push, who(request), run_id, repo_id, token, private,
                               merged)}

    def publish_space(self, request: gr.Request, model_repo_id: str, space_id: str,
                           token: str) -> dict:
        """Create a Gradio chat Space for a pushed model."""
        return {"url": _answer(self.actions.publish, who(request), model_repo_id, space_id, token)}
