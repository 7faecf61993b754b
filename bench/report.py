#!/usr/bin/python3
"""Runs qjit_bench and writes docs/performance.md and docs/performance.png.

    bench/report.py [--bench build/bench/qjit_bench] [--min-time 0.5]
                    [--filter REGEX] [--json results.json]

Uses Debian's /usr/bin/python3 (python3-matplotlib draws the plot; another
python3 on PATH may lack it). With --json FILE the harness is not run; FILE (Google Benchmark JSON from an
earlier run) is read instead. Throughput benchmarks are named
OP/CASE/ROW/N (bench/BenchMain.cpp), latency ones compile/OP/CASE/BACKEND
and cache_hit/OP/CASE/spec|text (bench/CompileBenchmarks.cpp); the
kernel tables' examples table/ID/ROW/N (bench/core/TableCases.h).
"""

import argparse
import collections
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ("qcast", "dcast")
# Rows that only move bytes: shown, but never "the best" conversion.
MEMORY_ROWS = ("memory", "memory_nt")
QJIT_ROWS = ("llvm", "asmjit")
# Rows on THREADS threads ("<row>_2t"): a table of their own (threads_lines),
# kept out of the one-thread tables, targets and plot.
THREADS = 2
THREADED_SUFFIX = "_%dt" % THREADS
# Rows of the case as a dynamic qcast ("<backend>_dynamic"): a table of
# their own (dynamic_lines) against the static kernel of the same case.
DYNAMIC_SUFFIX = "_dynamic"
# Debian packages whose versions the report names.
PACKAGES = ("g++", "llvm-22-dev", "libasmjit-dev", "libdnnl-dev",
            "libxnnpack-dev", "libbenchmark-dev")


def run_harness(bench, min_time, bench_filter, repetitions):
    """Runs the harness; returns (parsed JSON, its stderr log lines)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    command = [bench, "--benchmark_out=" + path,
               "--benchmark_out_format=json",
               "--benchmark_min_time=%g" % min_time]
    if bench_filter:
        command.append("--benchmark_filter=" + bench_filter)
    if repetitions > 1:
        # Interleaved repetitions spread a passing disturbance over many
        # rows' samples instead of ruining one row; the report keeps each
        # row's median.
        command += ["--benchmark_repetitions=%d" % repetitions,
                    "--benchmark_enable_random_interleaving=true"]
    print("report: running " + " ".join(command), file=sys.stderr)
    proc = subprocess.run(command, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        sys.exit("report: qjit_bench failed:\n" + proc.stderr)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    os.unlink(path)
    return data, proc.stderr.splitlines()


def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True,
                              check=False).stdout.strip()
    except OSError:
        return ""


def widest_vector_isa():
    """The host's widest x86 vector extension with its AVX-512 subsets, from
    the first processor's flags (which list avx2 before any avx512*)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f
                          if line.startswith("flags")), [])
    except OSError:
        return "?"
    avx512 = sorted(flag[len("avx512"):].lstrip("_") for flag in flags
                    if flag.startswith("avx512"))
    if avx512:
        return "avx512 (%s)" % ", ".join(avx512)
    return "avx2" if "avx2" in flags else "?"


def machine_lines(data):
    context = data.get("context", {})
    repetitions = max((b.get("repetitions", 1)
                       for b in data.get("benchmarks", [])), default=1)
    rates = "rates from CPU time" if repetitions <= 1 else (
        "rates from CPU time, each the median of %d interleaved "
        "repetitions" % repetitions)
    cpu = ""
    for line in command_output(["lscpu"]).splitlines():
        if line.startswith("Model name:"):
            cpu = line.split(":", 1)[1].strip()
    isa = widest_vector_isa()
    caches = ", ".join(
        "L%d %s %d KiB" % (c["level"], c["type"].lower(), c["size"] // 1024)
        for c in context.get("caches", []))
    lines = [
        "- CPU: %s, %s CPUs at %s MHz; widest vector ISA: %s" % (
            cpu or "?", context.get("num_cpus", "?"),
            context.get("mhz_per_cpu", "?"), isa),
        "- Caches: " + (caches or "?"),
        "- OS: %s %s" % (platform.system(), platform.release()),
        "- Run: %s, single thread (XNNPACK without a threadpool, oneDNN with "
        "OpenMP pinned to 1 thread); %s; qjit_bench built %s" % (
            context.get("date", "?"), rates,
            context.get("qjit_build_type", "?")),
        "- qjit commit: %s" % (command_output(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]) or "?"),
    ]
    versions = command_output(
        ["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] + list(PACKAGES))
    if versions:
        lines.append("- Versions: " + "; ".join(versions.splitlines()))
    missing = context.get("qjit_missing_peers", "none")
    if missing != "none":
        lines.append("- Peers missing from this build: " + missing)
    return lines


class Results:
    """The harness's benchmarks, sorted into tables."""

    def __init__(self, data, log):
        # (op, case) -> row -> n -> record
        self.throughput = collections.OrderedDict()
        self.skipped = collections.OrderedDict()  # (op, case, row) -> msg
        self.compile = collections.OrderedDict()  # (op, case) -> name -> us
        self.cache_hit = collections.OrderedDict()  # (op, case) -> kind -> ns
        self.table = collections.OrderedDict()  # id -> row -> el/ns
        self.notes = {}  # "op/case/n/row" -> check line
        self.threaded = collections.OrderedDict()  # like throughput
        self.dynamic = collections.OrderedDict()  # like throughput
        for line in log:
            match = re.match(r"(\S+): check: (.*)$", line)
            if match:
                self.notes[match.group(1)] = match.group(2)
        benches = data.get("benchmarks", [])
        # Interleaved repetitions come in random order; the tables keep
        # the harness's registration order.
        medians = sorted((b for b in benches
                          if b.get("aggregate_name") == "median"),
                         key=lambda b: (b.get("family_index", 0),
                                        b.get("per_family_instance_index",
                                              0)))
        for bench in benches:
            if bench.get("error_occurred"):
                self._add(bench)
            elif not medians and bench.get("run_type") != "aggregate":
                self._add(bench)
        for bench in medians:
            self._add(dict(bench, name=bench["run_name"]))

    def _add(self, bench):
        # Rows timed by the wall clock (the threaded ones) end "/real_time".
        parts = re.sub(r"/real_time$", "", bench["name"]).split("/")
        if bench.get("error_occurred"):
            if len(parts) == 4 and parts[0] in OPS:
                self.skipped.setdefault(tuple(parts[:3]),
                                        bench.get("error_message", ""))
            return
        if parts[0] in OPS and len(parts) == 4:
            op, case, row, n = parts
            table = (self.threaded if row.endswith(THREADED_SUFFIX)
                     else self.dynamic if row.endswith(DYNAMIC_SUFFIX)
                     else self.throughput)
            table.setdefault((op, case), collections.OrderedDict()) \
                .setdefault(row, {})[int(n)] = {
                    "el_ns": bench["items_per_second"] / 1e9,
                    "wall_el_ns": int(n) / wall_ns(bench),
                    "gb_s": bench["bytes_per_second"] / 1e9,
                    "mismatch": bench.get("mismatch"),
                    "label": bench.get("label", ""),
                }
        elif parts[0] == "table" and len(parts) == 4:
            self.table.setdefault(parts[1], {})[parts[2]] = \
                bench["items_per_second"] / 1e9
        elif parts[0] == "compile" and len(parts) == 4:
            self.compile.setdefault(tuple(parts[1:3]), {})[parts[3]] = \
                to_unit(bench, "us")
        elif parts[0] == "cache_hit" and len(parts) == 4:
            self.cache_hit.setdefault(tuple(parts[1:3]), {})[parts[3]] = \
                to_unit(bench, "ns")


def to_unit(bench, unit):
    """CPU time per iteration, like the harness's rates."""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return bench["cpu_time"] * scale[bench["time_unit"]] / scale[unit]


def size_name(n):
    for shift, suffix in ((20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, suffix)
    return str(n)


def best_at(rows, n):
    values = [r[n]["el_ns"] for name, r in rows.items()
              if name not in MEMORY_ROWS and n in r]
    return max(values) if values else 0


def throughput_table(op, case, rows, results):
    sizes = sorted({n for r in rows.values() for n in r})
    lines = ["### %s %s" % (op, case), "",
             "el/ns (ratio to the best conversion at that size); "
             "GB/s counts input plus output bytes.", "",
             "| row | " + " | ".join(size_name(n) for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for name, by_n in rows.items():
        cells = []
        for n in sizes:
            if n not in by_n:
                cells.append("-")
                continue
            r = by_n[n]
            best = best_at(rows, n)
            mark = " †" if r["mismatch"] else ""
            cells.append("%.2f (%.2f×)%s" % (
                r["el_ns"], r["el_ns"] / best if best else 0, mark))
        labels = [by_n[n]["label"] for n in sizes if n in by_n]
        detail = " ".join(word for word in (labels[-1] if labels else "")
                          .split() if word != "MISMATCH")
        title = name + (" (%s)" % detail if detail else "")
        lines.append("| %s | %s |" % (title, " | ".join(cells)))
    for (s_op, s_case, row), message in results.skipped.items():
        if (s_op, s_case) == (op, case) and row not in rows:
            lines.append("| %s | %s |" % (row, " | ".join(
                ["skipped"] * len(sizes))))
    mismatches = []
    for name, by_n in rows.items():
        for n, r in by_n.items():
            if r["mismatch"]:
                note = results.notes.get("%s/%s/%d/%s" % (op, case, n, name),
                                         "%.3g%% differ" % (100 * r["mismatch"]))
                mismatches.append("- † %s at %s: %s" % (name, size_name(n),
                                                        note))
    if mismatches:
        lines += ["", "Outputs that differ from the qjit reference under the "
                  "row's own semantics knobs:"] + sorted(set(mismatches))
    return lines


def skipped_lines(results):
    seen = collections.OrderedDict()
    for (op, case, row), message in results.skipped.items():
        seen.setdefault((row, message), []).append("%s %s" % (op, case))
    if not seen:
        return []
    lines = ["## Skipped rows", ""]
    for (row, message), where in seen.items():
        lines.append("- %s: %s (%s)" % (row, message, ", ".join(where)))
    return lines + [""]


def latency_lines(results):
    if not results.compile and not results.cache_hit:
        return []
    lines = ["## Compile and cache-hit latency", "",
             "CPU time of a cold compile by a backend (a distinct spec every "
             "iteration), and of Runtime::compile of a cached spec or type "
             "text.", "",
             "| op | case | " + " | ".join(
                 "compile %s (µs)" % b for b in QJIT_ROWS) +
             " | cache hit spec (ns) | cache hit text (ns) |",
             "|---|---|" + "---:|" * (len(QJIT_ROWS) + 2)]
    keys = list(results.compile) + [k for k in results.cache_hit
                                    if k not in results.compile]
    for key in keys:
        compile_us = results.compile.get(key, {})
        hit = results.cache_hit.get(key, {})
        cells = ["%.1f" % compile_us[b] if b in compile_us else "-"
                 for b in QJIT_ROWS]
        cells += ["%.0f" % hit[k] if k in hit else "-"
                  for k in ("spec", "text")]
        lines.append("| %s | %s | %s |" % (key[0], key[1], " | ".join(cells)))
    return lines + [""]


def wall_ns(bench):
    """One iteration's wall-clock time in ns (real_time, in time_unit)."""
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[
        bench.get("time_unit", "ns")]
    return bench["real_time"] * scale


def best_qjit(rows, n, key="el_ns"):
    return max((rows[b][n][key] for b in QJIT_ROWS
                if b in rows and n in rows[b]), default=None)


def memory_limit(rows, n):
    """The faster memory row at n: no conversion of these bytes beats it by
    much, so a target above it cannot be met on this machine."""
    return max((rows[m][n]["el_ns"] for m in MEMORY_ROWS
                if m in rows and n in rows[m]), default=None)


def target_lines(results):
    """The issue's targets, checked against the numbers (qjit's best row)."""
    lines = []
    for (op, case), rows in results.throughput.items():
        peer = "xnnpack" if "per_tensor" in case else "onednn"
        goal = 1.0 if peer == "xnnpack" else 2.5
        if peer not in rows:
            continue
        for n in sorted({n for r in rows.values() for n in r}):
            value = best_qjit(rows, n)
            if value is None or n not in rows[peer]:
                continue
            need = 1.3 if (peer == "xnnpack" and n >= 1 << 24) else goal
            ratio = value / rows[peer][n]["el_ns"]
            needed = need * rows[peer][n]["el_ns"]
            limit = memory_limit(rows, n)
            verdict = "met" if ratio >= need else "**not met**"
            if ratio < need and limit is not None and needed > limit:
                verdict += ", beyond the memory limit"
            lines.append("| %s %s | %s | %.2f× %s | ≥ %.1f× | %.2f | %s | %s |"
                         % (op, case, size_name(n), ratio, peer, need, needed,
                            "%.2f" % limit if limit is not None else "-",
                            verdict))
    if not lines:
        return []
    return ["## Targets", "",
            "qjit's faster backend against the peer the issues name. "
            "\"needs\" is the target in el/ns; \"memory limit\" is the "
            "faster of the `memory` and `memory_nt` rows, which only read "
            "the input and write the output.", "",
            "| case | N | qjit | target | needs (el/ns) | memory limit (el/ns) "
            "| |", "|---|---|---:|---:|---:|---:|---|"] + lines + [""]


def dynamic_lines(results):
    """Dynamic qcast (parameters from the data) against qjit's static
    kernel of the same case, each backend's dynamic row over qjit's best
    static row (issue 22's targets at 4K and 64K: per block and per row
    >= 0.8x, per tensor, two passes, >= 0.5x)."""
    lines = []
    for (op, case), rows in results.dynamic.items():
        static = results.throughput.get((op, case), {})
        for row, sizes in rows.items():
            for n in sorted(sizes):
                cells = ["%s %s" % (op, case), row, size_name(n),
                         "%.2f" % sizes[n]["el_ns"]]
                best = best_qjit(static, n)
                need = 0.5 if "per_tensor" in case else 0.8
                if best and n <= 1 << 16:
                    ratio = sizes[n]["el_ns"] / best
                    cells.append("%.2f× (≥ %.1f×, %s)" % (
                        ratio, need, "met" if ratio >= need else "**not met**"))
                elif best:
                    cells.append("%.2f×" % (sizes[n]["el_ns"] / best))
                else:
                    cells.append("-")
                cells.append(sizes[n]["label"])
                lines.append("| " + " | ".join(cells) + " |")
    if not lines:
        return []
    return ["## Dynamic qcast (issue 22)", "",
            "The case's type as a dynamic qcast on each backend (absmax for "
            "symmetric cases, minmax for asymmetric ones: every group's "
            "scale computed from the data), over qjit's fastest static "
            "kernel of the same case, el/ns. asmjit makes it per tensor, per "
            "axis and in rows of blocks, in runs of 256 or more or of whole "
            "vectors of f32 values (llvm every layout).", "",
            "Per row and per block, both passes run at the vector ports' limit,"
            " so a dynamic kernel cannot reach 0.8x of an exact static one at "
            "sizes that live in L1 and L2: the range pass must give every "
            "element at least one more vector operation, and the parameters "
            "come from the whole group before its first code. The ceiling, "
            "modelled with the kernels' own main loops (`qjit asm TYPE "
            "--op=qcast --dynamic=absmax --backend=asmjit`, llvm-mca-22, 200 "
            "iterations), is the quantize loop's cycles over those of both "
            "loops, with the parameter choice and the driver free: per row "
            "0.74x on `sapphirerapids` and 0.77x on `znver4` (quantize 11.2 and "
            "7.0 cycles per 4 zmm, range 8.0 and 4.1 cycles per 8 zmm); blocks of "
            "32 0.73x and 0.72x (quantize 11.2 and 10.8 cycles per two blocks, "
            "the batched range 33 and 34 cycles per 16 blocks: 16 `vrangeps`, "
            "30 shuffles, 15 `vpmaxud`). At 1M and beyond, where memory bounds "
            "both kernels, dynamic equals static.", "",
            "| case | row | N | dynamic (el/ns) | × best static qjit | |",
            "|---|---|---|---:|---:|---|"] + lines + [""]


def threads_lines(results):
    """qjit on THREADS threads (Kernel::runParallel on a pthreadpool)
    against qjit on one and the peers on THREADS (issue 23's targets at
    16M: >= 1.6x qjit on one thread; per tensor >= 1.0x XNNPACK). Every
    row by the wall clock (the one-thread rows too), so that the ratios
    compare like with like on a shared machine."""
    lines = []
    for (op, case), rows in results.threaded.items():
        one = results.throughput.get((op, case), {})
        for n in sorted({n for r in rows.values() for n in r}):
            qjit = max((rows[b + THREADED_SUFFIX][n]["wall_el_ns"]
                        for b in QJIT_ROWS
                        if n in rows.get(b + THREADED_SUFFIX, {})),
                       default=None)
            if qjit is None:
                continue
            cells = ["%s %s" % (op, case), size_name(n), "%.2f" % qjit]
            single = best_qjit(one, n, "wall_el_ns")
            cells.append("%.2f× (≥ 1.6×)" % (qjit / single) if single
                         else "-")
            for peer in ("xnnpack", "onednn"):
                record = rows.get(peer + THREADED_SUFFIX, {}).get(n)
                if record:
                    need = " (≥ 1.0×)" if peer == "xnnpack" else ""
                    cells.append("%.2f× of %.2f%s" % (
                        qjit / record["wall_el_ns"], record["wall_el_ns"],
                        need))
                else:
                    cells.append("-")
            lines.append("| " + " | ".join(cells) + " |")
    if not lines:
        return []
    return ["## %d threads (issue 23)" % THREADS, "",
            "qjit's faster backend through `Kernel::runParallel` on a "
            "%d-thread pthreadpool, over qjit's faster backend on one thread "
            "and over the peers on %d threads (XNNPACK with a %d-thread "
            "pthreadpool, oneDNN with %d OpenMP threads), el/ns by the wall "
            "clock."
            % (THREADS, THREADS, THREADS, THREADS), "",
            "| case | N | qjit %dt (el/ns) | × qjit 1t | × xnnpack %dt | "
            "× onednn %dt |" % (THREADS, THREADS, THREADS),
            "|---|---|---:|---:|---:|---:|"] + lines + [""]


def qjit_isa(rows):
    """The ISA level the run's qjit rows ran at (their label's last word)."""
    labels = [record["label"] for b in QJIT_ROWS for record in
              rows.get(b, {}).values() if record["label"]]
    return labels[0].split()[-1] if labels else ""


def avx512_target_lines(results):
    """Issue 18's AVX-512 targets, when qjit's kernels ran at avx512: per
    tensor against XNNPACK, per axis and blockwise qcast against qjit's own
    per-tensor kernel and oneDNN at 4K/64K, and every case against the
    memory limit at 1M/16M."""
    lines = []
    own = results.throughput.get(("qcast", "i8_per_tensor"), {})
    for (op, case), rows in results.throughput.items():
        if qjit_isa(rows) != "avx512":
            continue
        for n in sorted({n for r in rows.values() for n in r}):
            value = best_qjit(rows, n)
            if value is None:
                continue
            checks = []
            if n >= 1 << 20:
                checks.append(("memory limit", memory_limit(rows, n), 0.9))
            elif "per_tensor" in case and "xnnpack" in rows:
                # Exact `divide` ≥ 1.0×; XNNPACK's own formula ≥ 1.3×.
                need = 1.2 if op == "dcast" else \
                    1.3 if case.endswith("_xnnpack_knobs") else 1.0
                checks.append(("xnnpack", rows["xnnpack"].get(n, {}).get(
                    "el_ns"), need))
            elif op == "qcast" and case.startswith("i8_"):
                checks.append(("qjit i8_per_tensor", best_qjit(own, n), 0.9))
                checks.append(("onednn", rows.get("onednn", {}).get(
                    n, {}).get("el_ns"), 2.0))
            limit = memory_limit(rows, n)
            for name, base, need in checks:
                if not base:
                    continue
                ratio = value / base
                verdict = "met" if ratio >= need else "**not met**"
                # A target above the memory rows is one of this machine's
                # memory, not of the kernel.
                if ratio < need and limit is not None and \
                        name != "memory limit" and need * base > limit:
                    verdict += ", beyond the memory limit (%.2f el/ns)" % limit
                lines.append("| %s %s | %s | %.2f× %s | ≥ %.1f× | %s |" % (
                    op, case, size_name(n), ratio, name, need, verdict))
    if not lines:
        return []
    return ["## AVX-512 targets (issue 18)", "",
            "qjit's faster backend at avx512 against XNNPACK (per tensor; "
            "`_xnnpack_knobs`: with XNNPACK's formula, x · fl(1/s) and the "
            "zero point after rounding), "
            "its own i8 per-tensor qcast and oneDNN (per axis, blockwise) "
            "at 4K and 64K, and the faster memory row at 1M and 16M.", "",
            "| case | N | qjit | target | |", "|---|---|---:|---:|---|"] + \
        lines + [""]


# Compact formats (issue 8) against qjit's own int8 kernels in the same run:
# (op, case) -> (int8 case, minimum ratio).
COMPACT_TARGETS = {
    ("dcast", "i4_block32"): ("i8_block32", 0.8),
    ("qcast", "i4_block32"): ("i8_block32", 0.5),
    ("dcast", "f8e4m3fn_per_tensor"): ("i8_per_tensor", 0.8),
    ("qcast", "f8e4m3fn_per_tensor"): ("i8_per_tensor", 0.5),
    ("dcast", "nf4_per_tensor"): ("i8_per_tensor", 0.8),
    ("qcast", "nf4_per_tensor"): ("i8_per_tensor", 0.5),
    # Issue 22: MXFP4 (f4E2M1FN codes, E8M0 block scales) against packed
    # int4 blockwise.
    ("dcast", "mxfp4_block32"): ("i4_block32", 0.9),
}


def compact_lines(results):
    """Compact formats against qjit's int8 kernels (qjit's best rows)."""
    lines = []
    for (op, case), (base, need) in COMPACT_TARGETS.items():
        rows = results.throughput.get((op, case))
        base_rows = results.throughput.get((op, base))
        if not rows or not base_rows:
            continue
        for n in sorted({n for r in rows.values() for n in r}):
            value, reference = best_qjit(rows, n), best_qjit(base_rows, n)
            if value is None or reference is None:
                continue
            ratio = value / reference
            limit = memory_limit(rows, n)
            lines.append("| %s %s | %s | %.2f el/ns | %.2f× %s | ≥ %.1f× | %s "
                         "| %s |" % (op, case, size_name(n), value, ratio, base,
                                     need, "%.2f" % limit if limit else "-",
                                     "met" if ratio >= need else "**not met**"))
    if not lines:
        return []
    return ["## Compact formats", "",
            "Packed int4, fp8 and NF4 against qjit's own int8 kernels "
            "(best backend of each), as issue 8 asks; MXFP4 against packed "
            "int4, as issue 22 asks.", "",
            "| case | N | qjit | vs base | target | memory limit (el/ns) | |",
            "|---|---|---:|---:|---:|---:|---|"] + lines + [""]


# Rows that are neither qjit nor memory nor qjit's own scalar reference:
# the systems qjit is measured against.
NON_PEER_ROWS = QJIT_ROWS + MEMORY_ROWS + ("reference",)


def best_peer(rows, n):
    """The fastest peer row at n, and its name."""
    peers = [(r[n]["el_ns"], name) for name, r in rows.items()
             if name not in NON_PEER_ROWS and n in r]
    return max(peers) if peers else (None, None)


def write_plot(results, path):
    """One panel per (op, case): qjit's best row over the best peer at each
    measured size, with the memory bound (the faster memory row over the
    same peer) as the line qjit cannot pass. Linear ratios, 1.0 marked, so
    the gap reads directly; ticks at the sizes measured."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing (python3-matplotlib); no plot",
              file=sys.stderr)
        return False
    panels = []
    for (op, case), rows in results.throughput.items():
        points = []
        for n in sorted({n for r in rows.values() for n in r}):
            qjit, (peer, peer_name) = best_qjit(rows, n), best_peer(rows, n)
            if qjit is None or peer is None:
                continue
            limit = memory_limit(rows, n)
            points.append((n, qjit / peer, limit / peer if limit else None,
                           peer_name))
        if points:
            panels.append(("%s %s" % (op, case), points))
    if not panels:
        return False
    columns = 3
    lines = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(lines, columns, squeeze=False,
                             figsize=(10, 2.3 * lines))
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (title, points) in zip(axes.flat, panels):
        sizes = [p[0] for p in points]
        ax.plot(sizes, [p[1] for p in points], marker="o", color="C0",
                label="qjit / best peer")
        bounded = [(p[0], p[2]) for p in points if p[2] is not None]
        if bounded:
            ax.plot([b[0] for b in bounded], [b[1] for b in bounded],
                    linestyle="--", color="0.5", label="memory bound / peer")
        ax.axhline(1.0, color="C3", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [size_name(n) for n in sizes])
        ax.minorticks_off()
        ax.set_ylim(bottom=0)
        peers = sorted({p[3] for p in points})
        ax.set_title("%s (vs %s)" % (title, "/".join(peers)), fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=9)
    fig.supylabel("throughput ratio (> 1: qjit faster)", fontsize=9)
    fig.tight_layout(rect=(0.02, 0.05, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def division_lines():
    """How the fast qcast kernels keep `divide` exact (static text)."""
    return ["## Exact `divide` without a divider", "",
            "qcast's default `divide` must equal IEEE `x / s` bit for bit, "
            "but `vdivps` is slow (on Zen 1 it bounds qcast at about "
            "1.5 el/ns). qjit's kernels avoid it where a proof allows:", "",
            "- Powers of two whose reciprocal is normal in the compute "
            "type: `x / 2^k == x * 2^-k` exactly "
            "(`jit/src/plan/ExactReciprocal.h`, both backends).",
            "- AArch64 (llvm), and AVX-512 (llvm) where the check below "
            "does not apply: Markstein's division, a "
            "reciprocal and two FMA corrections, exact for baked scales in "
            "[2^-60, 2^60] and baked zero points within ±2^33 "
            "(`jit/src/llvm/QuantArith.cpp`).",
            "- Where the target would otherwise divide (AVX2, SSE4.1; llvm "
            "also AVX-512, where it measured 1.9x Markstein's speed), for "
            "small integer ranges (max|bound| + max|z| < 4094), a nearest "
            "rounding mode and f32 scales in [2^-60, 2^60] (asmjit: AVX2, "
            "8-bit containers, baked or runtime parameters; llvm: baked "
            "parameters; `jit/src/plan/CheckedReciprocal.cpp`): "
            "`u0 = RN(x * RN(1/s))`; "
            "`w` = `RN(u0 + z)`, or with FMA the single rounding "
            "`RN(x * RN(1/s) + z)`, clamped to the bounds (zero point "
            "before rounding) or `u0` clamped to ±L (after); a lane passes "
            "when "
            "`|w - roundeven(w)| < 1/2 - 2^-20 * L` "
            "(L = power of two >= max|bound| + max|z| + 2; runtime "
            "parameters: L from the bounds, s and z checked per run). "
            "`u0` is within 3·2^-24·2L of `RN(x / s)` whenever |x/s| < 2L "
            "(larger quotients saturate either way), so the exact "
            "division's `w` lies within 2^-20·L of the kernel's and rounds "
            "to the same integer, without a tie. Every group of 32 lanes "
            "with a failing lane (near a half-integer, NaN, -inf) is "
            "recomputed with the division: about 3% of uniformly spread "
            "groups for i8 with |z| <= 128. With nearest-even rounding "
            "before the clamp, FMA and the full 8-bit range, both backends "
            "bracket instead: `a = RN(x * RN(1/s) + (z - m))` and "
            "`b = RN(x * RN(1/s) + (z + m))`, m = 2^-20·L, must convert "
            "(`vcvtps2dq`, nearest-even in the default environment) to the "
            "same integer, compared as saturating i16 sums of `a` and `-b` "
            "(two FMAs and two conversions per vector: no subtraction, "
            "absolute value or clamp; the packs saturate; llvm on AVX-512 "
            "too). asmjit's AVX-512 8-bit qcast brackets in 16.16 fixed "
            "point instead (`jit/src/plan/FixedPointBracket.cpp`; also "
            "under `reciprocal`, with the zero point after rounding for "
            "baked parameters (XNNPACK's formula: a passing lane is no tie) "
            "and with runtime parameters): "
            "`n = vcvtps2dq(RN(x * 2^16·RN(1/s) + 2^16·(z - β + 1/2) + D))` "
            "holds the stored value in its high word and the verdict in "
            "its low word f, which must reach F (D = 3, F = 6 for i8 with "
            "|z| <= 3, from the error bound of lanes within the bounds; "
            "beyond them every error is relative and both sides "
            "saturate): one FMA and one conversion per vector, `vpacksswb` "
            "saturates both words, its even bytes give 64 verdicts to one "
            "`vpcmpub`, and a vector with a failing lane redoes those lanes "
            "by division (about 0.6% of 64-lane steps for uniformly spread "
            "i8). "
            "`tests/jit/CheckedReciprocalTest.cpp` puts inputs on both "
            "sides of the check, and NaN, infinities, far ties and "
            "conversion limits among passing lanes.",
            "- asmjit fp8/fp4 qcast with one baked scale in [2^-32, 1] "
            "(f32, AVX2 and AVX-512): two of the four vectors of a main-loop step use "
            "Markstein's correction, `q = RN(x * RN(1/s))` bounded to "
            "±2^100, `r = fma(-q, s, x)`, `RN(q + r * RN(1/s))`; the other "
            "two keep `vdivps`, which runs beside them. Quotients below "
            "2^-30 (where `r` may be inexact) keep their sign and stay "
            "nonzero, so they encode as ±0 either way.", ""]


def modelled_lines(out_md):
    """Where the modelled figures are. bench/model.py writes them to their
    own file: it runs on any machine, the harness only on the one
    measured, so neither report waits for the other."""
    name = "performance-model.md"
    if not os.path.exists(os.path.join(os.path.dirname(out_md), name)):
        return []
    return ["## Modelled (llvm-mca)", "",
            "[%s](%s), written by `bench/model.py` (regenerate with "
            "`bench/model.py` after a build; llvm-mca 22, its exact version "
            "in that file): cycles per element of every case's main loop for both "
            "qjit backends on Sapphire Rapids and Zen 4 (AVX-512), Zen 1 "
            "(AVX2) and the machine that ran it, with llvm-mca's "
            "bottleneck. These figures are modelled, not measured: they "
            "need no AVX-512 machine, but know nothing of memory bandwidth "
            "or caches and cover the main loop only (no entry, tails or "
            "parameter set-up), so where a measured table exists it is "
            "the one to trust." % (name, name), ""]


def table_lines(results):
    """Each kernel family's example, and each fit row's, with both backends
    (the `table/` benchmarks): the measurement behind KernelFits.def."""
    if not results.table:
        return []
    lines = ["## Kernel families and fit rows", "",
             "Each family's example (`jit/src/plan/KernelFamilies.def`) and "
             "each fit row's (`KernelFits.def`: `fit-BACKEND-CONDITION-"
             "FAMILY`, where that backend fits `generic`) at about 64K "
             "elements. A fit row whose backend is not slower here is one to "
             "measure again on the hosts the row names.", "",
             "| example | llvm (el/ns) | asmjit (el/ns) | asmjit / llvm |",
             "|---|---:|---:|---:|"]
    for case, rows in results.table.items():
        llvm, asmjit = rows.get("llvm"), rows.get("asmjit")
        ratio = "%.2f×" % (asmjit / llvm) if llvm and asmjit else "-"
        lines.append("| %s | %s | %s | %s |" % (
            case, "%.2f" % llvm if llvm else "-",
            "%.2f" % asmjit if asmjit else "-", ratio))
    return lines + [""]


def disk_cache_lines(tool, kernels):
    """The persistent cache's figures from bench/DiskCacheBench.cpp (two
    child processes: cold llvm compiles, then the same from disk); none
    when the tool is not built or `kernels` is 0."""
    if not kernels or not os.path.exists(tool):
        return []
    run = subprocess.run([tool, "--kernels=%d" % kernels],
                         capture_output=True, text=True)
    if run.returncode != 0:
        print("report: %s failed: %s" % (tool, run.stderr), file=sys.stderr)
        return []
    lines = ["## Persistent cache", "",
             "`qjit_disk_cache_bench --kernels=%d`: one process compiles %d "
             "distinct llvm kernels cold into a fresh `QJIT_CACHE_DIR`, a "
             "second process compiles the same kernels from it (wall time, "
             "runtime creation included); then asmjit's mean compile time "
             "against the mean time to read and check one entry."
             % (kernels, kernels), "", "| figure | value |", "|---|---:|"]
    for line in run.stdout.splitlines():
        name, _, value = line.partition(" ")
        lines.append("| %s | %s |" % (name.replace("disk_cache/", ""), value))
    return lines + [""]


def kept_section(path, title):
    """The lines of section `title` in the existing report, which another
    script writes (bench/python_overhead.py: "Calls from Python"), so a
    rewrite of the report keeps it."""
    try:
        with open(path, encoding="utf-8") as f:
            old = f.read().splitlines()
    except OSError:
        return []
    heading = "## " + title
    if heading not in old:
        return []
    start = old.index(heading)
    end = next((i for i in range(start + 1, len(old))
                if old[i].startswith("## ")), len(old))
    return old[start:end] + ([""] if old[end - 1] else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default=os.path.join(
        ROOT, "build", "bench", "qjit_bench"))
    parser.add_argument("--json", help="read these results instead of "
                        "running the harness")
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--filter", default="")
    parser.add_argument("--repetitions", type=int, default=1,
                        help="run each benchmark this many times, "
                        "interleaved, and report the medians")
    parser.add_argument("--disk-cache-bench", default=os.path.join(
        ROOT, "build", "bench", "qjit_disk_cache_bench"))
    parser.add_argument("--disk-cache-kernels", type=int, default=1000,
                        help="kernels for the persistent cache figures "
                        "(0: skip them)")
    parser.add_argument("--out-md", default=os.path.join(
        ROOT, "docs", "performance.md"))
    parser.add_argument("--out-png", default=os.path.join(
        ROOT, "docs", "performance.png"))
    args = parser.parse_args()

    if args.json:
        with open(args.json, encoding="utf-8") as f:
            data, log = json.load(f), []
    else:
        data, log = run_harness(args.bench, args.min_time, args.filter,
                                args.repetitions)
    results = Results(data, log)

    plotted = write_plot(results, args.out_png)
    lines = ["# qjit performance", "",
             "Written by `bench/report.py` from a `qjit_bench` run; do not "
             "edit by hand.", "", "## Machine", ""]
    lines += machine_lines(data) + [""]
    if plotted:
        lines += ["![qjit over the best peer vs N](%s)" % os.path.relpath(
            args.out_png, os.path.dirname(args.out_md)), ""]
    lines += target_lines(results)
    lines += threads_lines(results)
    lines += dynamic_lines(results)
    lines += avx512_target_lines(results)
    lines += compact_lines(results)
    lines += table_lines(results)
    lines += division_lines()
    lines += modelled_lines(args.out_md)
    lines += ["## Throughput", "",
              "Rows: `llvm`, `asmjit` (qjit, best ISA of the host), "
              "`reference` (qjit's scalar reference, up to 1M elements), "
              "`plain_loop` (`clamp(nearbyint(x / s) + z)` by g++ -O3 "
              "-march=native), `xnnpack` (convert operators, per-tensor), "
              "`onednn` (reorder with scales; blockwise as per-row scales), "
              "`memory` / `memory_nt` (read the input and write the output, "
              "with ordinary or non-temporal stores: the memory-bound "
              "limit).", ""]
    for (op, case), rows in results.throughput.items():
        lines += throughput_table(op, case, rows, results) + [""]
    lines += latency_lines(results)
    lines += disk_cache_lines(args.disk_cache_bench, args.disk_cache_kernels)
    lines += skipped_lines(results)
    lines += kept_section(args.out_md, "Calls from Python")
    os.makedirs(os.path.dirname(args.out_md), exist_ok=True)
    with open(args.out_md, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    print("report: wrote %s%s" % (args.out_md, " and " + args.out_png
                                  if plotted else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
