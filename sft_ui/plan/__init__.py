"""Will it fit, how long will it take: what this machine is (hardware.py), the peak
memory of a run by part (memory.py, with the figures measured per device in
calibration.py), each stage's sequences and reference counted (passes.py), how the model
loads (loading.py), precision and kernels (kernels.py), the data's padding and steps
(sample.py), the measured speed (speed.py), the time budget (budget.py), full,
LoRA and QLoRA on a GPU (modes.py, targets.py, catalog.py), and the plan the page shows,
with Fit and Measure speed (planner.py)."""
