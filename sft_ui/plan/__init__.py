"""Will a run fit this machine and how long will it take: the plan of a run before it starts
(hardware, memory by part, precision and kernels, speed, the time budget, and full, LoRA or
QLoRA on a GPU), with Fit and Measure speed (planner.py).
"""
