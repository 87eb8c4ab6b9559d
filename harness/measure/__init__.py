"""What runs inside one benchmark's processes: the pyperf program, its
loop calibration, the drivers' timers, pinning, process facts and
lifelines.  Worker side: Python 2.7 compatible."""
