#!/usr/bin/python3
"""What a call from Python costs beyond the kernel itself.

    PYTHONPATH=build/python bench/python_overhead.py [--qjit build/tools/qjit]
        [--n 4096] [--write docs/performance.md]

Times `kernel(x, out=o)` and `kernel(x)` with timeit (the best of several
repeats, per call) on an n-element f32 array, and the same kernel alone
with `qjit bench` (bench/core's timing of the raw function, in C++); the
difference is the cost of the binding: argument parsing, the array checks,
the GIL released and taken back. A 1-element call is timed too: nearly
all of it is that fixed cost. With --write, replaces the "Calls from
Python" section of the report (bench/report.py keeps it).
"""

import argparse
import os
import platform
import re
import subprocess
import sys
import timeit

import numpy as np

import qjit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = ("!quant.uniform<i8:f32, 0.05:3>", "qcast"), \
        ("!quant.uniform<i8:f32, 0.05:3>", "dcast")
SECTION = "## Calls from Python"


def per_call_ns(call, number=20000, repeat=7):
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e9


def kernel_ns(qjit_tool, type_text, op, n, backend):
    """The raw kernel's time for n elements, from `qjit bench`'s row."""
    output = subprocess.run(
        [qjit_tool, "bench", type_text, "--op=" + op, f"--n={n}",
         "--min-time=0.5"], capture_output=True, text=True, check=True).stdout
    for line in output.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] == backend and fields[1] != "skipped:":
            return n / float(fields[2])
    sys.exit(f"no {backend} row in:\n{output}")


def cpu_name():
    try:
        output = subprocess.run(["lscpu"], capture_output=True, text=True,
                                check=True).stdout
        name = re.search(r"Model name:\s*(.+)", output).group(1).strip()
        cpus = re.search(r"^CPU\(s\):\s*(\d+)", output, re.M).group(1)
        return f"{name}, {cpus} CPUs"
    except (OSError, subprocess.CalledProcessError, AttributeError):
        return platform.processor() or "unknown CPU"


def measure(qjit_tool, n):
    rows = []
    for type_text, op in TYPES:
        kernel = qjit.compile(type_text, op)
        x = np.zeros(n, kernel.input_dtype)
        if op == "qcast":
            x[:] = np.linspace(-5, 5, n)
        out = np.empty(n, kernel.output_dtype)
        one, one_out = x[:1].copy(), out[:1].copy()
        with_out = per_call_ns(lambda: kernel(x, out=out))
        new = per_call_ns(lambda: kernel(x))
        single = per_call_ns(lambda: kernel(one, out=one_out))
        raw = kernel_ns(qjit_tool, type_text, op, n, kernel.backend)
        rows.append((op, type_text, kernel.backend, raw, with_out, new,
                     single))
    return rows


def section(rows, n):
    lines = [SECTION, "",
             f"Written by `bench/python_overhead.py` ({cpu_name()}; widest "
             f"ISA the kernels use: {qjit.compile(*TYPES[0]).isa}; Debian's "
             f"Python {platform.python_version()}, numpy {np.__version__}). "
             f"Per call, the best of 7 timeit repeats; the kernel alone is "
             f"`qjit bench`'s time for the same kernel and n. Overhead = "
             f"`kernel(x, out=o)` − the kernel alone (target: at most 2 µs "
             f"at {n} elements).", "",
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
    parser.add_argument("--qjit", default=os.path.join(ROOT, "build", "tools",
                                                       "qjit"))
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--write", metavar="REPORT.md")
    args = parser.parse_args()
    lines = section(measure(args.qjit, args.n), args.n)
    print("\n".join(lines))
    if args.write:
        write(args.write, lines)


if __name__ == "__main__":
    main()
