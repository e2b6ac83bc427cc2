"""The CEL interpreter of DRA device selectors: microseconds per evaluation, compile time, and how
long the cost limit takes to stop upstream's "expensive" expression.

    python3 -m benchmarks.cel

Each (expression, device) verdict is computed once per run by the allocator, so these figures
bound the first cycle that meets a device; the DRA workload of ``benchmarks.simulate`` measures
whole scheduling cycles.
"""

from __future__ import annotations

import time

from kschedctl import cel
from kschedctl.plugins.dynamic_resources import pools

SELECTORS = {
    "driver": 'device.driver == "gpu.example.com"',
    "attribute and quantity": ('device.attributes["gpu.example.com"].model == "a100" && '
                               'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'),
    "semver": 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))',
    "exists over attributes": 'device.attributes["gpu.example.com"].exists(k, k.startsWith("mod"))',
}
EXPENSIVE = ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
             "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))")


def _device() -> pools.Device:
    obj = {"spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": {"name": "p", "resourceSliceCount": 1},
                    "devices": [{"name": "gpu-0", "attributes": {"model": {"string": "a100"},
                                                                 "driverVersion": {"version": "1.4.0"}},
                                 "capacity": {"memory": {"value": "80Gi"}}}]}}
    return pools.Slice(obj, 0).devices[0]


def main() -> int:
    device = _device()
    print(f"{'selector':<26} {'compile µs':>11} {'eval µs':>9}")
    for name, expression in SELECTORS.items():
        t0 = time.perf_counter()
        program = cel.CelCache().get_or_compile(expression)
        compile_us = (time.perf_counter() - t0) * 1e6
        assert program.error is None, program.error
        program.device_matches(device)
        n = 20000
        t0 = time.perf_counter()
        for _ in range(n):
            program.device_matches(device)
        print(f"{name:<26} {compile_us:>11.0f} {(time.perf_counter() - t0) / n * 1e6:>9.1f}")
    program = cel.CelCache().get_or_compile(EXPENSIVE)
    t0 = time.perf_counter()
    try:
        program.device_matches(device)
    except cel.CelError as err:
        print(f"expensive (7 nested all): {err} after {time.perf_counter() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
