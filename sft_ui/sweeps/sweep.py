"""A sweep running: trials asked of the search, each an ordinary run (trial.py) judged on
held-out data when it ends (score.py), until no more fit the sweep's time budget. How many
fit, each trial's share of the time and its length are said where they are decided
(plan_trials, run, quick_seconds, _set_length); docs/training.md gives the whole policy.
"""
from __future__ import annotations

import dataclasses
import math
import threading
import time
import uuid
from pathlib import Path

from sft_ui.config import RunConfig, length
from sft_ui.errors import UserError, said
from sft_ui.plan.budget import LENGTH
from sft_ui.plan.plateau import ended_by
from sft_ui.runs.run_queue import estimate
from sft_ui.sweeps.first import BUDGET_MINUTES, quick_path_first
from sft_ui.sweeps.score import kept_quick, kept_said, score_seconds
from sft_ui.sweeps.search import search_for
from sft_ui.sweeps.space import MAX_TRIALS, SweepSpec
from sft_ui.sweeps.stored import FOLDER, StoredSweep, SweepSnapshot
from sft_ui.sweeps.trial import Trials, names, new_trial

DEFAULT_TRIAL_SECONDS = 180.0  # a trial whose length its time budget sets, planned alone
MIN_TRIAL_SECONDS = 45.0  # less time left than this: no trial is started
QUICK_SHARE = 0.5  # the most of a sweep's time its first trial, the quick path's, takes
HELD_OUT = 0.1  # the held-out fraction a sweep's trials keep when the page gave no eval data
POLL_SECONDS = 0.5


class SweepError(UserError):
    """A sweep that cannot start, or is not there (`messages`: its Message, kept whole
    for the page)."""


class Sweep(StoredSweep):
    def __init__(self, spec: SweepSpec, owner: str, root: Path):
        self.id = time.strftime("sweep-%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
        self.spec, self.owner = spec, owner
        self.path = Path(root) / FOLDER / f"{self.id}.json"
        self.state, self.error = "running", ""
        self.started = time.time()
        self.deadline = self.started + spec.budget_minutes * 60
        self.planned, self.first_planned = 0, 0
        self.estimate_seconds = self.trial_estimate = None
        self.length, self.finished, self.interrupted_at = None, None, None
        self.trials, self._again = [], []
        self.offline, self.paused, self.cut = 0.0, 0.0, False
        self._waiting_since = None
        self._stop, self._done = threading.Event(), threading.Event()
        self._closed = None

    def halted(self) -> bool:
        """Stop asked of the sweep, or the app closing."""
        return self._stop.is_set() or bool(self._closed and self._closed.is_set())

    # ---- what the page and the API read ----------------------------------------
    def ranked(self) -> list[dict]:
        """The trials with a score, best first; then those without (pruned, failed). The
        quick path's own trial is first where the best is better by no more than the
        noise of its score (`kept_quick`)."""
        scored = self._scored()
        scored.sort(key=lambda t: t["score"], reverse=self.spec.higher_is_better)
        kept = kept_quick(scored, self.spec)
        if kept:
            scored.remove(kept["trial"])
            scored.insert(0, kept["trial"])
        return scored + [t for t in self.trials if t not in scored]

    def best(self) -> dict | None:
        return self.ranked()[0] if self._scored() else None

    def _scored(self) -> list[dict]:
        return [t for t in self.trials if t.get("score") is not None and not t["pruned"]]

    def snapshot(self) -> SweepSnapshot:
        best = self.best()
        ended = self.finished or time.time()
        return {"id": self.id, "state": self.state, "error": self.error,
                "spec": self.spec.to_dict(), "planned": self.planned,
                "first_planned": self.first_planned, "length": self.length,
                "estimate_seconds": self.estimate_seconds,
                "seconds": ended - self.started - self.offline - self.paused,
                "paused": self.paused, "deadline": self.deadline,
                "trials": self.ranked(), "best": best,
                "kept_quick": kept_said(kept_quick(self._scored(), self.spec)),
                "higher_is_better": self.spec.higher_is_better}

    # ---- running it ------------------------------------------------------------
    def base_config(self):
        """The page's settings every trial starts from: with held-out rows where it has
        no eval data and is judged on them (fixed by the seed: the same rows for all)."""
        cfg = self.spec.config()
        has_eval = cfg.eval_fraction or cfg.eval_dataset_name.strip() or \
            cfg.dataset_test_split.strip()
        if not has_eval and self.spec.score != "reward" and not self.spec.eval_file.strip():
            cfg = dataclasses.replace(cfg, eval_fraction=HELD_OUT)
        return cfg

    def plan_trials(self, size: int | None, at_once: int = 1) -> int:
        """How many trials fit the budget: those run so far, and as many more as fit the
        time left (`at_once` at a time) at the mean time the trials that trained to their
        end took (their judging counted), or before one did at the planner's estimate (its
        judging added; a trial whose length its time budget sets: DEFAULT_TRIAL_SECONDS);
        `spec.trials` where the person set it; at most the search's size. The first call
        sets the sweep's estimate of its whole time."""
        if self.estimate_seconds is None:
            self.trial_estimate = estimate(self.spec.config())  # (the queue's row says it)
        taken = [t["seconds"] for t in self.trials  # (a whole trial's time, not a pruned one's
                 if t.get("seconds") and t["state"] == "done" and not t["pruned"]  # nor the
                 and not t.get("quick")]  # quick path's, given its own time: quick_seconds)
        judging = self.judge_seconds()
        per = sum(taken) / len(taken) if taken else \
            (self.trial_estimate or DEFAULT_TRIAL_SECONDS) + judging
        left = max(0.0, self.deadline - time.time())
        # as many as fit at that pace (one at least while its least share is left: its
        # time budget makes it fit), but no more than leave each its least share
        least = math.floor(left / (MIN_TRIAL_SECONDS + judging))
        more = min(max(math.floor((left + 1) / max(per, 1.0)), min(least, 1)), least)
        fit = self.counted() + max(0, more) * at_once
        planned = min(self.spec.trials or fit, size or MAX_TRIALS, MAX_TRIALS)
        if self.estimate_seconds is None:
            rounds = math.ceil(max(planned, 1) / at_once)
            self.estimate_seconds = min(rounds * per, self.spec.budget_minutes * 60)
        return planned

    def waiting(self, queued: bool) -> None:
        """A look at a trial that waits in the run queue (`queued`) or not: the time it
        waits behind other runs is not the sweep's, so its deadline moves on by as much
        (the page says the clock was paused). Its own share of time starts with its run."""
        now = time.time()
        if queued and self._waiting_since is not None:
            self.paused += now - self._waiting_since
            self.deadline += now - self._waiting_since
        self._waiting_since = now if queued else None

    def counted(self) -> int:
        """The trials that count against the plan: all but those a stop of the app cut off
        (asked again when the sweep is resumed)."""
        return sum(1 for t in self.trials if t["state"] != "interrupted")

    def quick_seconds(self, base: RunConfig) -> float:
        """The time of the first trial of a sweep that starts from the quick path's own
        choice (first.py): the quick path's budget (the page's, else BUDGET_MINUTES), at
        most QUICK_SHARE of the sweep's (its judging counted in that), so that the sweep's
        best is judged against the model the quick path alone would have made (the whole
        budget trains, as the quick path's does: judging comes after); the others share
        the rest."""
        minutes = base.time_budget_minutes or BUDGET_MINUTES
        return min(minutes * 60, QUICK_SHARE * self.spec.budget_minutes * 60 -
                   self.judge_seconds())

    def judge_seconds(self) -> float:
        """What judging a trial takes: the mean of the trials judged so far, before one
        was the score's own estimate (score.py)."""
        judged = [t["judge_seconds"] for t in self.trials if t.get("judge_seconds")]
        return sum(judged) / len(judged) if judged else score_seconds(self.spec.score)

    def run(self, queue, manager, scorer, token: str = "") -> None:
        """The sweep's thread: trials asked of the search and run, one at a time through
        the queue (or `spec.at_once` at a time on Hugging Face Jobs, with `token`, kept in
        memory only), until the search has no more, or no more fit the time left."""
        self._closed = manager.closed
        try:
            ran = [t["params"] for t in self.trials
                   if t["state"] != "interrupted" or t.get("judge_again")]
            base = self.base_config()
            first = [] if self.trials else quick_path_first(self.spec, base)
            search = search_for(self.spec, self.path.with_suffix(".optuna"), ran,
                                self._again or first)
            trials = Trials(self, queue, manager, scorer, search, token)
            self._judge_again(trials)
            on_jobs = base.run_on == "hf_jobs"
            width = self.spec.at_once if on_jobs else 1
            self.planned = max(1, self.plan_trials(search.size(), width))
            self.first_planned = self.first_planned or self.planned
            self.save()
            while self.counted() < self.planned and not self.halted():
                at_once = min(width, self.planned - self.counted())
                rounds = math.ceil((self.planned - self.counted()) / at_once)
                share = (self.deadline - time.time()) / rounds - self.judge_seconds()
                if first and not self.trials:  # the quick path's own choice: its own time
                    share = max(share, self.quick_seconds(base))
                if share < MIN_TRIAL_SECONDS:  # (the time since the plan: plan again)
                    self.planned = max(self.counted(), self.plan_trials(search.size(), width))
                    if self.planned <= self.counted():
                        break
                    continue
                batch = self._ask(search, base, share, at_once,
                                  first[0] if first and not self.trials else None)
                if not batch:
                    break
                for trial, cfg, keep in batch:
                    trial["quick"] = bool(first) and trial["number"] == 1
                    (trials.start_on_jobs if on_jobs else trials.queue_one)(trial, cfg, keep)
                self.save()
                trials.follow([trial for trial, _, _ in batch], POLL_SECONDS)
                for trial, _, _ in batch:
                    self._set_length(trial, manager)
                self.planned = max(self.counted(), self.plan_trials(search.size(), width))
                self.save()
            self.state = "stopped" if self.halted() else "done"
            names(manager, self.id, self.trials, self.best())
        except Exception as e:  # the page shows it; the server keeps running
            self.state, self.error = "failed", said(e) if isinstance(e, UserError) else \
                f"{type(e).__name__}: {e}"
        finally:
            self.finished = time.time()
            try:
                self.save()
            finally:
                self._done.set()

    def _judge_again(self, trials: Trials) -> None:
        """The trials a stop of the app cut off while they were judged (their runs whole):
        judged now, not trained again; their time is what they had taken, and the
        judging."""
        for trial in [t for t in self.trials
                      if t["state"] == "interrupted" and t.get("judge_again")]:
            took, trial["seconds"] = trial["seconds"], None  # (a stop now: settled again)
            trials.judge(trial)
            trial["seconds"] = (took or 0.0) + trial.get("judge_seconds", 0.0)
            self.save()

    def _ask(self, search, base, share: float, count: int, quick: dict | None = None
             ) -> list[tuple]:
        """The next `count` trials (fewer where the search has no more): each the page's
        settings with the trial's values, the length the first trial set, and its share
        of the time as its budget; the settings its budget keeps. `quick`: the quick
        path's own values (first.py), for a first trial that trains as the quick path
        would, its length too: a length the search drew beside them is not used."""
        minutes = share / 60
        if base.time_budget_minutes:
            minutes = min(minutes, base.time_budget_minutes)
        fixed, batch = self.length or {}, []
        for _ in range(count):
            number = len(self.trials) + 1
            params = search.ask(number)
            if params is None:
                break
            if quick is not None:  # (the quick path fits its own length to its budget)
                params = {k: v for k, v in params.items() if k not in LENGTH or k in quick}
            # (a length the trial varies trains: its epochs, or its steps)
            cfg = length.changed(base, **{**fixed, **params},
                                 time_budget_minutes=round(minutes, 2))
            trial = new_trial(number, params)
            self.trials.append(trial)
            batch.append((trial, cfg, [*params, *fixed]))
        return batch

    def _set_length(self, trial: dict, manager) -> None:
        """After the first trial that ran to its end, every trial trains as many steps
        as it did (the length its time budget chose), so that their scores compare runs
        of one length; not where the person set the length or the sweep varies it, nor
        where held-out rows ended the trial and chose its model (plan/plateau.py: each
        trial then trains its share of the time to its own best)."""
        if self.length is not None or set(self.spec.vary) & LENGTH or \
                trial["state"] != "done" or trial["pruned"] or not trial["run_id"] or \
                length.given(self.spec.config()):
            return
        run = manager.get(trial["run_id"])
        if ended_by(run.metrics):  # its held-out rows chose its end: each trial's own
            return
        if run.step:
            self.length = {"train_by": "steps", "max_steps": run.step}
