#!/usr/bin/python3
"""What a call from Python costs beyond the kernel itself.

    PYTHONPATH=build/python bench/python_overhead.py [--n 4096]
        [--write docs/performance.md]

Times `kernel(x, out=o)` and `kernel(x)` with timeit on an n-element f32
array, and the same kernel alone on the same arrays in a C++ loop
(Kernel._kernel_ns: Kernel::run, timed with steady_clock), interleaved, the
best of several rounds each. The difference is the cost of the binding:
argument parsing, the array checks, the GIL released and taken back. A
1-element call is timed too: nearly all of it is that fixed cost. With
--write, replaces the "Calls from Python" section of the report
(bench/report.py keeps it).
"""

import argparse
import os
import platform
import re
import subprocess
import timeit

import numpy as np

import qjit

TYPES = ("!quant.uniform<i8:f32, 0.05:3>", "qcast"), \
        ("!quant.uniform<i8:f32, 0.05:3>", "dcast")
SECTION = "## Calls from Python"


NUMBER = 20000
ROUNDS = 15


def per_call_ns(call):
    return timeit.timeit(call, number=NUMBER) / NUMBER * 1e9


def cpu_name():
    try:
        output = subprocess.run(["lscpu"], capture_output=True, text=True,
                                check=True).stdout
        name = re.search(r"Model name:\s*(.+)", output).group(1).strip()
        cpus = re.search(r"^CPU\(s\):\s*(\d+)", output, re.M).group(1)
        return f"{name}, {cpus} CPUs"
    except (OSError, subprocess.CalledProcessError, AttributeError):
        return platform.processor() or "unknown CPU"


def measure(n):
    rows = []
    for type_text, op in TYPES:
        kernel = qjit.compile(type_text, op)
        x = np.zeros(n, kernel.input_dtype)
        if op == "qcast":
            x[:] = np.linspace(-5, 5, n)
        out = np.empty(n, kernel.output_dtype)
        one, one_out = x[:1].copy(), out[:1].copy()
        best = [float("inf")] * 4
        for _ in range(ROUNDS):  # Interleaved: load changes hit all alike.
            times = (kernel._kernel_ns(x, out, NUMBER, 1),
                     per_call_ns(lambda: kernel(x, out=out)),
                     per_call_ns(lambda: kernel(x)),
                     per_call_ns(lambda: kernel(one, out=one_out)))
            best = [min(b, t) for b, t in zip(best, times)]
        rows.append((op, type_text, kernel.backend, *best))
    return rows


def section(rows, n):
    lines = [SECTION, "",
             f"Written by `bench/python_overhead.py` ({cpu_name()}; widest "
             f"ISA the kernels use: {qjit.compile(*TYPES[0]).isa}; Debian's "
             f"Python {platform.python_version()}, numpy {np.__version__}). "
             f"Per call, the best of {ROUNDS} interleaved rounds of {NUMBER} "
             f"calls; the kernel alone is the same Kernel::run on the same "
             f"arrays in a C++ loop. Overhead = "
             f"`kernel(x, out=o)` − the kernel alone (target: at most 2 µs "
             f"at {n} elements). Load average at the end of the run: "
             f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a busy "
             f"machine inflates both columns alike). Reproduce with "
             f"`PYTHONPATH=build/python /usr/bin/python3 "
             f"bench/python_overhead.py --write docs/performance.md`.", "",
             "| op | type | backend | kernel alone (ns) | `k(x, out=o)` (ns) "
             "| overhead (ns) | `k(x)` new array (ns) | 1 element, `out=` (ns) |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for op, type_text, backend, raw, with_out, new, single in rows:
        lines.append(f"| {op} | `{type_text}` | {backend} | {raw:.0f} | "
                     f"{with_out:.0f} | {with_out - raw:.0f} | {new:.0f} | "
                     f"{single:.0f} |")
    return lines + [""]


def write(path, lines):
    with open(path, encoding="utf-8") as f:
        old = f.read().splitlines()
    if SECTION in old:
        start = old.index(SECTION)
        end = next((i for i in range(start + 1, len(old))
                    if old[i].startswith("## ")), len(old))
        new = old[:start] + lines + old[end:]
    else:
        new = old + [""] + lines
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(new).rstrip() + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--write", metavar="REPORT.md")
    args = parser.parse_args()
    lines = section(measure(args.n), args.n)
    print("\n".join(lines))
    if args.write:
        write(args.write, lines)


if __name__ == "__main__":
    main()
