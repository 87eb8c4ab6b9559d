"""Case module for tests/test_fork_state.py, run on every interpreter the
tests are given: a threads case whose prepare() records the first number
its worker's ``random`` stream draws (and numpy's global one, where numpy
is installed), and whose ``after_value`` records draws of its own, as
docs/writing-cases.rst step 4 does.

Loaded by path in the runner, the benchmark program and its workers, so
it imports only the standard library, gilbench.api and (optionally)
numpy.  Python 2.7 compatible.
"""
import os
import random

from gilbench.api import CaseSpec, record

try:  # imported here, so the program's workers inherit its global state
    import numpy.random
except ImportError:
    numpy = None

FAMILY = "forkstate"


class _Work(object):
    def __init__(self):
        record(measured_by=os.getpid(), first_random=repr(random.random()))
        if numpy is not None:
            record(first_numpy_random=repr(numpy.random.random()))
        self.values = 0

    def __call__(self, loops):
        total = 0
        for i in range(loops):
            total += i
        return total

    def after_value(self, wall, returns):
        self.values += 1
        record(draw_int=random.randint(0, 1000000),
               draw_bits=random.getrandbits(64),  # a long on 2.7
               draw_str="value %d" % self.values,
               draw_float=random.random(),
               returns=len(returns))


CASES = [CaseSpec(FAMILY, "draw", "v", "python", lambda params: _Work(),
                  "records its worker's first random draws, and draws of "
                  "its own after every value")]
