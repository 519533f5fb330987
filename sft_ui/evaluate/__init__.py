"""Evaluation of a model on a test set: the test rows as prompt + reference
(testset.py), answers generated in batches (answer.py, imports torch: import it where
used), the scores from established libraries (metrics.py), one evaluation's thread,
progress and stop (job.py), and its files in a run folder (store.py). Knows nothing of
Gradio."""
