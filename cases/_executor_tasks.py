"""The tasks the executor family's pools run, and the checks of their results.

Kept apart from the family's other modules so that a pool's worker -- a
spawned or forkserver process, or a subinterpreter with its own GIL --
imports only this (standard library, plus the Cython kernel for the native
workload) and not the harness, whose psutil cannot be imported into a
subinterpreter.  Every
task is :func:`task`, a module-level function, so every pool pickles it by
reference.  Python 2.7-compatible.
"""
import time

SEED = 88172645463325252  # any non-zero xorshift64 state
# Nominal task sizes: steps per millisecond of task_ms (how they were
# chosen: docs/families/executor.rst).  Fixed, so every interpreter does the
# same work for a given task_ms.
NBODY_STEPS_PER_MS = 180
KERNEL_STEPS_PER_MS = 380000
PAYLOAD_BYTES = 1 << 20
PAYLOAD_INTS = 100000


def task(workload, task_ms, payload):
    """Run one task; returns (its result, the payload or its echo)."""
    return WORKLOADS[workload](task_ms), payload


def trivial(task_ms):
    return abs(-1)


def sleep(task_ms):
    time.sleep(task_ms / 1000.0)
    return task_ms


def native(task_ms):
    from gilbench.extensions import _executor_cy
    return _executor_cy.kernel(SEED, task_ms * KERNEL_STEPS_PER_MS)


def nbody(task_ms):
    """The seed's pure-Python N-body kernel (pyperformance's bm_nbody):
    advance the solar system, return its energy."""
    bodies = _solar_system()
    pairs = [(bodies[i], bodies[j]) for i in range(len(bodies) - 1)
             for j in range(i + 1, len(bodies))]
    _offset_momentum(bodies)
    _advance(bodies, pairs, 0.01, task_ms * NBODY_STEPS_PER_MS)
    return _energy(bodies, pairs)


WORKLOADS = {"trivial": trivial, "sleep": sleep, "nbody": nbody,
             "native": native}


def make_payload(kind):
    """None, or 1 MiB of bytes and a list of 100k ints (argument and
    result of every task)."""
    if kind == "none":
        return None
    return (b"x" * PAYLOAD_BYTES, list(range(PAYLOAD_INTS)))


def check_payloads(kind, echoes):
    """Whether every task echoed its payload intact."""
    if kind == "none":
        return echoes.count(None) == len(echoes)
    return all(len(data) == PAYLOAD_BYTES and len(numbers) == PAYLOAD_INTS
               and numbers[-1] == PAYLOAD_INTS - 1
               for data, numbers in echoes)


PI = 3.14159265358979323
SOLAR_MASS = 4 * PI * PI
DAYS_PER_YEAR = 365.24


def _solar_system():
    """[(position, velocity, mass)] of the sun and the four gas giants."""
    planets = [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], SOLAR_MASS),
        ([4.84143144246472090e+00, -1.16032004402742839e+00,
          -1.03622044471123109e-01],
         [1.66007664274403694e-03 * DAYS_PER_YEAR,
          7.69901118419740425e-03 * DAYS_PER_YEAR,
          -6.90460016972063023e-05 * DAYS_PER_YEAR],
         9.54791938424326609e-04 * SOLAR_MASS),
        ([8.34336671824457987e+00, 4.12479856412430479e+00,
          -4.03523417114321381e-01],
         [-2.76742510726862411e-03 * DAYS_PER_YEAR,
          4.99852801234917238e-03 * DAYS_PER_YEAR,
          2.30417297573763929e-05 * DAYS_PER_YEAR],
         2.85885980666130812e-04 * SOLAR_MASS),
        ([1.28943695621391310e+01, -1.51111514016986312e+01,
          -2.23307578892655734e-01],
         [2.96460137564761618e-03 * DAYS_PER_YEAR,
          2.37847173959480950e-03 * DAYS_PER_YEAR,
          -2.96589568540237556e-05 * DAYS_PER_YEAR],
         4.36624404335156298e-05 * SOLAR_MASS),
        ([1.53796971148509165e+01, -2.59193146099879641e+01,
          1.79258772950371181e-01],
         [2.68067772490389322e-03 * DAYS_PER_YEAR,
          1.62824170038242295e-03 * DAYS_PER_YEAR,
          -9.51592254519715870e-05 * DAYS_PER_YEAR],
         5.15138902046611451e-05 * SOLAR_MASS),
    ]
    return planets


def _advance(bodies, pairs, dt, steps):
    for _ in range(steps):
        for (([x1, y1, z1], v1, m1), ([x2, y2, z2], v2, m2)) in pairs:
            dx = x1 - x2
            dy = y1 - y2
            dz = z1 - z2
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** (-1.5))
            b1m = m1 * mag
            b2m = m2 * mag
            v1[0] -= dx * b2m
            v1[1] -= dy * b2m
            v1[2] -= dz * b2m
            v2[0] += dx * b1m
            v2[1] += dy * b1m
            v2[2] += dz * b1m
        for (r, [vx, vy, vz], m) in bodies:
            r[0] += dt * vx
            r[1] += dt * vy
            r[2] += dt * vz


def _energy(bodies, pairs):
    energy = 0.0
    for (((x1, y1, z1), v1, m1), ((x2, y2, z2), v2, m2)) in pairs:
        dx = x1 - x2
        dy = y1 - y2
        dz = z1 - z2
        energy -= (m1 * m2) / ((dx * dx + dy * dy + dz * dz) ** 0.5)
    for (r, [vx, vy, vz], m) in bodies:
        energy += m * (vx * vx + vy * vy + vz * vz) / 2.
    return energy


def _offset_momentum(bodies):
    px = py = pz = 0.0
    for (r, [vx, vy, vz], m) in bodies:
        px -= vx * m
        py -= vy * m
        pz -= vz * m
    (r, v, m) = bodies[0]
    v[0] = px / m
    v[1] = py / m
    v[2] = pz / m
