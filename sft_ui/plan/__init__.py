"""Will it fit, how long will it take: what this machine is (hardware.py), the peak
memory of a run by part (memory.py), and the plan the page shows, with Fit and
Measure speed (planner.py)."""
