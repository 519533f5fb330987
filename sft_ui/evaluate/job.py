"""One evaluation at a time: the models and the test set checked at once, then answered batch
by batch in a thread, scored and saved; the page polls `snapshot()`, the API waits with
`wait()`. Knows nothing of Gradio.
"""
from __future__ import annotations

import threading
import time
import uuid
from dataclasses import asdict, replace
from pathlib import Path
from typing import TypedDict, cast

from sft_ui.chat import BASE, LATEST, ChatService, GenSettings
from sft_ui.data.sized import PERCENTILE, answer_tokens, tokens_needed, typical, within
from sft_ui.evaluate import store
from sft_ui.evaluate.metrics import continuation_match, score
from sft_ui.evaluate.testset import TestSet, load_test_set, text_cases
from sft_ui.i18n.message import Message
from sft_ui.runs import RunError

ACTIVE = ("loading", "answering", "scoring")
# The bounds of an answer length sized from the test set: room for a short answer's
# sentence around it, and a long one that is still answered in minutes on a CPU.
SHORTEST, LONGEST = 32, 1024
MAX_BATCH = 64
TEXT_REFERENCE = 32  # tokens of a text's own continuation an answer is scored against


class EvaluationSnapshot(TypedDict):
    """An evaluation as the page and the API read it (Evaluation.snapshot)."""
    id: str
    state: str  # loading, answering, scoring, done, stopped or failed
    error: str
    models: list[dict]  # each model asked: its reference and its label
    test_set: str  # the test set's label
    rows_asked: int
    rows_answered: int
    eta_seconds: float | None
    elapsed_seconds: float
    scores: list[dict] | None  # a row of scores a model, once scored
    files: dict  # the summary's and the predictions' paths, once written
    notes: list  # what was chosen for it (Messages)


class EvaluationBusy(RunError):
    """Another evaluation holds the server's one evaluation slot."""


class Evaluation:
    """One evaluation's state, answers and result; written by its thread, read by any."""

    def __init__(self, refs: list[str], models: list[dict], test: TestSet,
                 settings: GenSettings, batch_size: int):
        self.id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
        self.refs, self.models, self.test = refs, models, test
        self.settings, self.batch_size = settings, batch_size
        self.state, self.error = "loading", ""
        self.answers: list[list[str]] = [[] for _ in refs]
        self.created = time.time()
        self.answering_since: float | None = None
        self.notes: list[str] = []  # what the person should know of the settings used
        self.result: dict | None = None
        self.perplexity: list[float] = []  # a text test set's: each model's on its texts
        self.files: dict = {}
        self._stop = threading.Event()
        self._done = threading.Event()

    @property
    def answered(self) -> int:
        return min(len(a) for a in self.answers)

    def eta_seconds(self) -> float | None:
        """From the pace of the batches answered so far; None before the first."""
        if self.state != "answering" or not self.answered or self.answering_since is None:
            return None
        per_row = (time.time() - self.answering_since) / self.answered
        return per_row * (len(self.test.cases) - self.answered)

    def snapshot(self) -> EvaluationSnapshot:
        return {"id": self.id, "state": self.state, "error": self.error,
                "models": self.models, "test_set": self.test.label,
                "rows_asked": len(self.test.cases), "rows_answered": self.answered,
                "eta_seconds": self.eta_seconds(),
                "elapsed_seconds": time.time() - self.created,
                "scores": self.result["scores"] if self.result else None,
                "files": dict(self.files), "notes": list(self.notes)}

    def size_length(self, tokenizer) -> None:
        """Max new tokens from the test set's reference answers (data/sized.py's
        tokens_needed, within SHORTEST and LONGEST), where it is at its default: 200
        tokens cut a long answer (a Japanese one takes about 1.6 tokens a character) and
        make a short one wait for a model that runs on."""
        default = GenSettings().max_new_tokens
        if int(self.settings.max_new_tokens) != default:
            return
        lengths = answer_tokens(tokenizer, [c.reference for c in self.test.cases])
        need = tokens_needed(lengths)
        if not need:
            return
        length, share, most = within(need, SHORTEST, LONGEST), f"{PERCENTILE:.0%}", \
            typical(lengths)
        self.settings = replace(self.settings, max_new_tokens=length)
        self.notes.append(Message("Answers of up to {length} tokens: {share} of the test "
                                  "set's reference answers are at most {most} tokens long "
                                  "(Max new tokens left at {default}, its default, follows "
                                  "them).", length=length, share=share, most=most,
                                  default=default))


class Evaluator:
    def __init__(self, chat: ChatService):
        self.chat, self.manager = chat, chat.manager
        self._current: Evaluation | None = None
        self._lock = threading.Lock()

    def current(self) -> Evaluation | None:
        return self._current

    def get(self, eval_id: str) -> Evaluation:
        job = self._current
        if job is None or job.id != str(eval_id or "").strip():
            raise RunError(Message("No evaluation with id {eval_id} on this server: start "
                                   "one first.", eval_id=str(eval_id)[:40]))
        return job

    def start(self, refs: list, test_set: str, split: str = "test", limit: int = 0,
              settings: GenSettings | None = None, batch_size: int = 8) -> Evaluation:
        """Check everything that can be checked at once, then evaluate in a thread."""
        refs = [str(r).strip() for r in refs or [] if r and str(r).strip()]
        if not 1 <= len(refs) <= 2:
            raise RunError(Message("Choose one or two models to evaluate."))
        settings = settings or GenSettings()
        settings.check()
        try:
            batch_size = int(batch_size)
        except (TypeError, ValueError):
            batch_size = 0
        if not 1 <= batch_size <= MAX_BATCH:
            raise RunError(Message("The batch size must be a whole number from 1 to {n}.",
                                   n=MAX_BATCH))
        models = [self._describe(ref) for ref in refs]
        test = load_test_set(test_set, split, limit, self.manager)
        with self._lock:
            if self._current is not None and self._current.state in ACTIVE:
                raise EvaluationBusy(Message("An evaluation is running: wait for it to "
                                             "end, or stop it."))
            job = self._current = Evaluation(refs, models, test, settings, batch_size)
        threading.Thread(target=self._work, args=(job,), daemon=True,
                         name=f"evaluate-{job.id}").start()
        return job

    def stop(self) -> EvaluationSnapshot | None:
        """Ask the running evaluation to end after the rows answered so far."""
        job = self._current
        if job is None or job.state not in ACTIVE:
            return None
        job._stop.set()
        return job.snapshot()

    def wait(self, job: Evaluation, timeout: float | None = None) -> EvaluationSnapshot:
        job._done.wait(timeout)
        return job.snapshot()

    def _describe(self, ref: str) -> dict:
        """The model a reference loads (RunError when it cannot), and its run."""
        path = self.chat.model_path(ref)
        run_id: str | None = None
        chosen = ref  # its name among the choices
        if ref == LATEST:
            latest = self.manager.latest_finished()
            assert latest is not None  # (model_path found it)
            run_id = chosen = latest.id
        elif ref != BASE and not ref.endswith("/" + BASE):
            run_id = ref.partition("/")[0]
        named = dict((r, label) for label, r in self.chat.choices())
        label = named.get(chosen, ref)
        return {"ref": ref, "label": label, "folder": str(path), "run_id": run_id}

    def _work(self, job: Evaluation) -> None:
        """The evaluation's thread: load the models, answer the rows batch by batch (both
        models answer each batch, so a Stop leaves rows answered by both), score and save.
        A text test set is asked as openings to continue (`_as_text`)."""
        try:
            loaded = [self.chat.load(ref) for ref in job.refs]
            if job.test.format == "text":
                self._as_text(job, loaded)
            job.size_length(loaded[0][1])  # (measured with model A's tokenizer)
            from sft_ui.evaluate.answer import answer_batch  # torch: only when answering
            job.state, job.answering_since = "answering", time.time()
            cases = job.test.cases
            for at in range(0, len(cases), job.batch_size):
                prompts = [c.prompt for c in cases[at:at + job.batch_size]]
                batch = [answer_batch(m, t, prompts, job.settings, job._stop)
                         for m, t in loaded]
                if job._stop.is_set():
                    break  # this batch may be cut short: leave it out
                for side, answers in enumerate(batch):
                    job.answers[side] += answers
            job.state = "scoring"
            self._finish(job)
        except Exception as e:  # the page shows it; the server keeps running
            made = e.args[0] if len(e.args) == 1 else None  # a Message: kept for the page
            job.state = "failed"
            job.error = (made if isinstance(made, Message) else str(e)) \
                if isinstance(e, RunError) else f"{type(e).__name__}: {e}"
        finally:
            job._done.set()

    def _as_text(self, job: Evaluation, loaded: list) -> None:
        """A text test set: each model's perplexity on its texts, then its cases as the
        texts' openings and continuations (testset.text_cases)."""
        from sft_ui.evaluate.answer import perplexity  # torch: only when measuring
        texts = cast(list[str], [c.prompt for c in job.test.cases])  # (a text set's: texts)
        job.perplexity = [perplexity(m, t, texts) for m, t in loaded]
        job.test = replace(job.test, cases=text_cases(texts, loaded[0][1], TEXT_REFERENCE))
        if not job.test.cases:
            raise RunError(Message("The texts of the test set are too short to open and "
                                   "continue: use texts of a sentence or more."))
        job.notes.append(Message("Plain text: each of {count} texts' opening is continued "
                                 "as text (no chat template) and compared with the text's "
                                 "own next {tokens} tokens; the perplexity is each model's "
                                 "on the whole texts.", count=len(job.test.cases),
                                 tokens=TEXT_REFERENCE))

    def _finish(self, job: Evaluation) -> None:
        n = job.answered
        stopped = job._stop.is_set()
        if n == 0:
            job.state, job.error = "stopped", Message("Stopped before any row was answered.")
            return
        cases = job.test.cases[:n]
        references = [c.reference for c in cases]
        job.result = {
            "created": job.created, "models": job.models, "test_set": job.test.label,
            "format": job.test.format, "rows_asked": len(job.test.cases),
            "rows_answered": n, "stopped": stopped, "settings": asdict(job.settings),
            "batch_size": job.batch_size,
            "scores": [self._scores(job, side, a[:n], references)
                       for side, a in enumerate(job.answers)],
            "rows": [{"prompt": c.shown, "reference": c.reference,
                      "answers": [a[i] for a in job.answers]} for i, c in enumerate(cases)]}
        folders = [self.manager.get(m["run_id"]).dir for m in job.models if m["run_id"]]
        job.files = store.save(job.result, list(dict.fromkeys(folders)) or
                               [Path(self.manager.root)])
        job.state = "stopped" if stopped else "done"

    @staticmethod
    def _scores(job: Evaluation, side: int, answers: list[str], references: list[str]):
        """score's, and for a text test set how often a continuation begins as the text
        does and the model's perplexity."""
        found = score(answers, references)
        if job.test.format == "text":
            found["continuation_match"] = continuation_match(answers, references)
            found["perplexity"] = job.perplexity[side]
        return found

    def rows(self, job: Evaluation) -> list[dict]:
        """The answered rows, those where the two models' answers differ first."""
        rows = job.result["rows"] if job.result else []
        return sorted(rows, key=lambda r: len(set(r["answers"])) == 1)
