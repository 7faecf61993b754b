#!/usr/bin/python3
"""Models qjit kernels' main loops with llvm-mca and writes a speed table.

    bench/model.py [--qjit build/tools/qjit] [--n 65536]
                   [--out-md docs/performance-model.md] [--json FILE]
                   [--cases REGEX] [--cpus sapphirerapids,znver4,...]

For every case of the benchmark harness (`qjit bench --list-types`), op
(qcast, dcast), qjit backend (llvm, asmjit) and target CPU, the kernel's
listing comes from `qjit asm` at the CPU's ISA level (and -mcpu for llvm,
which tunes for it). llvm-mc re-prints it in Intel syntax with explicit
operand sizes, so both backends' listings read alike; the main loop is
found in it, wrapped in LLVM-MCA-BEGIN / LLVM-MCA-END markers and run
through llvm-mca. Cycles per element = cycles per iteration / elements per
iteration. The figures are modelled, not measured: they need no AVX-512
machine, but know nothing of memory bandwidth, caches or the code outside
the main loop (see docs/performance-model.md). Debian's python3, stdlib
only. A kernel that a backend does not compile, or a step that fails, is
"—" in the table and its reason is listed; the script never stops on one.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ("qcast", "dcast")
BACKENDS = ("llvm", "asmjit")
# Server cores users deploy on, a widespread AVX2 core, and this machine.
CPUS = (("sapphirerapids", "avx512"), ("znver4", "avx512"),
        ("znver1", "avx2"), ("host", None))
LLVM_MC = "llvm-mc-22"
LLVM_MCA = "llvm-mca-22"
LLC = "llc-22"
ITERATIONS = 200
# Store widths of Intel-syntax memory operands.
PTR_BYTES = {"byte": 1, "word": 2, "dword": 4, "qword": 8, "xmmword": 16,
             "ymmword": 32, "zmmword": 64}
TIMEOUT = 300


class ModelError(Exception):
    """One table cell that cannot be modelled; the message says why."""


def run(command, stdin=None):
    try:
        proc = subprocess.run(command, input=stdin, capture_output=True,
                              text=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ModelError("%s: %s" % (os.path.basename(command[0]), error))
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        reason = next((l for l in lines if "error" in l), lines[0] if lines
                      else "exit %d" % proc.returncode)
        raise ModelError("%s: %s" % (os.path.basename(command[0]),
                                     reason.strip()[:200]))
    return proc.stdout


def host_cpu():
    """The host's CPU name as LLVM knows it (what -mcpu=native picks)."""
    match = re.search(r"Host CPU:\s*(\S+)", run([LLC, "--version"]))
    if not match:
        raise ModelError("llc: no host CPU in --version")
    return match.group(1)


def bench_cases(qjit, n):
    """(name, runtime parameters?, type text, extra qjit flags) of every
    harness case."""
    cases = []
    for line in run([qjit, "bench", "--list-types", "--n=%d" % n]).splitlines():
        name, parameters, text = line.split(" ", 2)
        kind, *options = parameters.split(",")
        cases.append((name, kind == "runtime", text,
                      ["--" + option for option in options]))
    return cases


def listing(qjit, case, op, backend, isa, cpu):
    _, runtime, text, flags = case
    command = [qjit, "asm", text, "--op=" + op, "--backend=" + backend] + flags
    if isa:
        command.append("--isa=" + isa)
    if backend == "llvm":
        command.append("-mcpu=" + cpu)  # asmjit code is the same for any CPU.
    if runtime:
        command.append("--runtime-params")
    return run(command)


def canonical(text, cpu):
    """`text` (either backend's syntax) re-printed by llvm-mc: Intel syntax,
    every memory operand with its size, one instruction per line."""
    return run([LLVM_MC, "-triple=x86_64", "-mcpu=" + cpu,
                "-output-asm-variant=1"], stdin=text).splitlines()


LABEL = re.compile(r"^([.\w$]+):")
JUMP = re.compile(r"^\s+j[a-z]+\s+([.\w$]+)\s*$")


def is_instruction(line):
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith((".", "#")) and \
        not LABEL.match(line)


def main_loop(lines):
    """(label line, last body line) of the kernel's main loop.

    A loop is a label and the first jump back to it, conditional or not
    (LLVM leaves some loops through a branch at the top and closes them
    with `jmp`). Loops that contain another loop run it, so only innermost
    ones count; of those, the main loop has the largest body (unrolled
    vectors, against the single-vector and scalar tails). Between equal
    bodies, cached stores win over non-temporal ones: those loops run only
    for outputs beyond the caches, which the model does not see."""
    labels = {}
    loops = []
    for index, line in enumerate(lines):
        label = LABEL.match(line)
        if label:
            labels[label.group(1)] = index
            continue
        jump = JUMP.match(line)
        if jump and jump.group(1) in labels:
            start = labels.pop(jump.group(1))  # Only its first jump back.
            loops.append((start, index))
    innermost = [(s, e) for s, e in loops
                 if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e)
                            for s2, e2 in loops)]
    if not innermost:
        raise ModelError("no loop in the listing")

    def rank(loop):
        body = lines[loop[0] + 1:loop[1] + 1]
        return (sum(is_instruction(l) for l in body),
                not any(re.match(r"\s+v?movnt", l) for l in body))
    return max(innermost, key=rank)


STORE = re.compile(r"^\s+(\S+)\s+(\w+) ptr \[([^\]]*)\]")
# Instructions whose first operand is memory but only read.
READS_FIRST = re.compile(r"cmp|test|bt|prefetch|push|clflush")


def stored_bytes(body):
    """Bytes the loop body writes: instructions whose first (destination)
    operand is memory. Stack slots (spills, scratch) are not output."""
    total = 0
    for line in body:
        match = STORE.match(line)
        if match and not READS_FIRST.match(match.group(1)) and \
                not re.match(r"\s*[re]?sp\b", match.group(3)):
            total += PTR_BYTES.get(match.group(2), 0)
    return total


def output_element_bytes(lines, op):
    """Bytes of one output element, from the listing's `# spec:` header:
    the storage for qcast (packed sub-byte codes are fractions of a byte,
    unpacked ones take a byte), the expressed type for dcast."""
    spec = next((l for l in lines if l.startswith("# spec:")), "")
    if op == "dcast":
        match = re.search(r"expressed=b?f(\d+)", spec)
        if not match:
            raise ModelError("no expressed type in the listing's header")
        return int(match.group(1)) / 8
    match = re.search(r"storage=\S*?(\d+)(?:E\w+)?<\S*> (packed|unpacked)",
                      spec)
    if not match:
        raise ModelError("no storage type in the listing's header")
    bits = int(match.group(1))
    if match.group(2) == "packed" and bits < 8:
        return bits / 8
    container = 8
    while container < bits:
        container *= 2
    return container / 8


def mca(lines, loop, cpu):
    """llvm-mca's summary of the marked loop: (cycles per iteration,
    bottleneck text)."""
    start, end = loop
    marked = ([".intel_syntax noprefix"] + lines[:start + 1] +
              ["# LLVM-MCA-BEGIN main"] + lines[start + 1:end + 1] +
              ["# LLVM-MCA-END"] + lines[end + 1:])
    report = run([LLVM_MCA, "-mcpu=" + cpu, "-iterations=%d" % ITERATIONS,
                  "-bottleneck-analysis", "-instruction-info=false",
                  "-resource-pressure=false"],
                 stdin="\n".join(marked) + "\n")
    cycles = re.search(r"Total Cycles:\s+(\d+)", report)
    iterations = re.search(r"Iterations:\s+(\d+)", report)
    if not cycles or not iterations:
        raise ModelError("llvm-mca: no summary")
    return (int(cycles.group(1)) / int(iterations.group(1)),
            bottleneck(report))


def bottleneck(report):
    """What llvm-mca's bottleneck analysis blames most: the busiest
    resources, register or memory dependencies, or the dispatch width."""
    def percent(pattern):
        match = re.search(pattern + r"\s*\[\s*([\d.]+)%\s*\]", report)
        return float(match.group(1)) if match else 0.0
    if "No resource or data dependency bottlenecks" in report:
        uops = re.search(r"uOps Per Cycle:\s+([\d.]+)", report)
        width = re.search(r"Dispatch Width:\s+(\d+)", report)
        if uops and width and float(uops.group(1)) >= 0.9 * int(width.group(1)):
            return "dispatch width (%s uops/cycle)" % width.group(1)
        return "none found"
    causes = {"register deps": percent(r"- Register Dependencies"),
              "memory deps": percent(r"- Memory Dependencies")}
    block = report.split("Resource Pressure", 1)[-1].split(
        "Data Dependencies", 1)[0]
    ports = [(float(p), name) for name, p in
             re.findall(r"-\s+(\S+)\s+\[\s*([\d.]+)%\s*\]", block)]
    top = max((p for p, _ in ports), default=0)
    busiest = "+".join(name for p, name in sorted(ports, reverse=True)
                       if p >= top - 5)
    causes[busiest or "resources"] = percent(r"Resource Pressure")
    # The main cause, and a second one nearly as frequent (resources and
    # a dependency chain often hold the same cycles).
    ranked = sorted(causes.items(), key=lambda item: -item[1])
    shown = [ranked[0]] + [c for c in ranked[1:2]
                           if c[1] >= 0.8 * ranked[0][1] and c[1] > 0]
    return "; ".join("%s %.0f%%" % cause for cause in shown)


def model_cell(qjit, case, op, backend, isa, cpu):
    """One record: the loop llvm-mca modelled and its cycles per element."""
    text = listing(qjit, case, op, backend, isa, cpu)
    header = [l for l in text.splitlines() if l.startswith("#")]
    lines = canonical(text, cpu)
    loop = main_loop(lines)
    body = lines[loop[0] + 1:loop[1] + 1]
    element = output_element_bytes(header, op)
    stored = stored_bytes(body)
    if not stored:
        raise ModelError("the main loop stores nothing")
    elements = stored / element
    cycles, limit = mca(lines, loop, cpu)
    isa_used = re.search(r"isa (?:cap )?(\w+)", header[1]) if len(header) > 1 \
        else None
    return {"loop": lines[loop[0]].rstrip(":"),
            "instructions": sum(is_instruction(l) for l in body),
            "elements_per_iteration": elements,
            "cycles_per_iteration": cycles,
            "cycles_per_element": cycles / elements,
            "elements_per_cycle": elements / cycles,
            "bottleneck": limit,
            "isa": isa_used.group(1) if isa_used else isa}


def tool_version(command):
    try:
        out = run(command)
    except ModelError:
        return "?"
    match = re.search(r"LLVM version (\S+)", out)
    return match.group(1) if match else out.strip().splitlines()[0]


def fmt(value, digits=3):
    return "—" if value is None else "%.*f" % (digits, value)


def markdown(records, cpus, meta):
    lines = ["# qjit modelled performance (llvm-mca)", "",
             "Written by `bench/model.py`; do not edit by hand. Regenerate "
             "with `bench/model.py` after building `build/tools/qjit` "
             "(options: `bench/model.py --help`).", "",
             "**Modelled, not measured**: llvm-mca %s simulates each "
             "kernel's main loop on the named core's scheduling model, "
             "%d iterations, the loop's data in L1 and every branch "
             "predicted. It needs no such machine, but knows nothing of "
             "memory bandwidth, caches, page walks or frequency, nor of the "
             "code outside the main loop (entry, tails, parameter "
             "set-up); short tensors and tensors beyond the caches run "
             "slower than this (measured figures: "
             "[performance.md](performance.md))." % (
                 meta["llvm_mca"], ITERATIONS), "",
             "- Cases: the harness's (`qjit bench --list-types --n=%d`); "
             "listings from `qjit asm TYPE --op=OP --backend=B "
             "--isa=ISA`, blockwise cases with `--runtime-params` and a "
             "preset's case with its `--semantics` as in the harness. llvm also gets `-mcpu=CPU`: that CPU's features "
             "(capped at ISA) and its scheduling. asmjit generates for "
             "the ISA level alone, so its Zen 4 and Sapphire Rapids loops "
             "are the same code." % meta["n"],
             "- Main loop: in the listing as llvm-mc re-prints it, the "
             "innermost loop (a label and the first jump back to it) with "
             "the most instructions.",
             "- Elements per iteration: the bytes the loop stores (the "
             "sizes of its memory destinations, stack slots excepted) "
             "over the bytes of one output element (storage for qcast, "
             "packed 4-bit codes as half a byte; expressed type for "
             "dcast).",
             "- cycles/el = llvm-mca's total cycles / iterations / "
             "elements per iteration; el/cycle is its inverse. "
             "Bottleneck: what llvm-mca's `-bottleneck-analysis` blames "
             "most (the busiest resources or ports, register or memory "
             "dependencies).",
             "- CPUs: %s; `%s` is this machine as LLVM names it (`llc-22 "
             "--version`, from its CPUID model number, which a virtual "
             "machine may report for another core), at the ISA level qjit "
             "picks for it (%s)." % (
                 ", ".join("%s (%s)" % (meta["host"] if c == "host" else c,
                                        i or "host") for c, i in cpus),
                 meta["host"], meta["host_isa"]),
             "- Generated %s at qjit commit %s." % (meta["date"],
                                                    meta["commit"]), "",
             "## Cycles per element", "",
             "Lower is faster. `—`: not modelled (reasons below).", ""]
    names = [meta["host"] if c == "host" else c for c, _ in cpus]
    lines.append("| case | op | backend | " + " | ".join(names) + " |")
    lines.append("|---|---|---|" + "---:|" * len(names))
    for key in sorted({(r["case"], r["op"], r["backend"]) for r in records},
                      key=lambda k: (meta["order"].index(k[0]),
                                     OPS.index(k[1]), BACKENDS.index(k[2]))):
        cells = []
        for name in names:
            r = next(r for r in records if (r["case"], r["op"], r["backend"],
                                            r["cpu"]) == key + (name,))
            cells.append(fmt(r.get("cycles_per_element")))
        lines.append("| %s | %s | %s | %s |" % (key + (" | ".join(cells),)))
    for name in names:
        lines += ["", "## %s" % name, "",
                  "| case | op | backend | isa | cycles/el | el/cycle | "
                  "el/iter | cycles/iter | loop | bottleneck |",
                  "|---|---|---|---|---:|---:|---:|---:|---|---|"]
        for r in records:
            if r["cpu"] != name:
                continue
            if "error" in r:
                lines.append("| %s | %s | %s | — | — | — | — | — | — | — |"
                             % (r["case"], r["op"], r["backend"]))
                continue
            lines.append("| %s | %s | %s | %s | %s | %s | %g | %s | %s "
                         "(%d instr.) | %s |" % (
                             r["case"], r["op"], r["backend"], r["isa"],
                             fmt(r["cycles_per_element"]),
                             fmt(r["elements_per_cycle"], 2),
                             r["elements_per_iteration"],
                             fmt(r["cycles_per_iteration"], 1),
                             r["loop"], r["instructions"], r["bottleneck"]))
    failed = [r for r in records if "error" in r]
    if failed:
        lines += ["", "## Not modelled", ""]
        lines += ["- %s %s %s on %s: %s" % (r["op"], r["case"], r["backend"],
                                            r["cpu"], r["error"])
                  for r in failed]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qjit", default=os.path.join(ROOT, "build", "tools",
                                                       "qjit"))
    parser.add_argument("--n", type=int, default=65536,
                        help="elements of the cases' tensor types (shapes "
                        "of per-axis and blockwise kernels; a multiple of "
                        "1024)")
    parser.add_argument("--cases", default="",
                        help="only cases whose name matches this regex")
    parser.add_argument("--cpus", default=",".join(c for c, _ in CPUS),
                        help="comma-separated, of: %s" %
                        ", ".join(c for c, _ in CPUS))
    parser.add_argument("--out-md", default=os.path.join(
        ROOT, "docs", "performance-model.md"))
    parser.add_argument("--json", help="also write the records here")
    args = parser.parse_args()

    wanted = args.cpus.split(",")
    cpus = [(c, i) for c, i in CPUS if c in wanted]
    try:
        cases = bench_cases(args.qjit, args.n)
    except ModelError as error:
        sys.exit("model: %s" % error)
    try:
        host = host_cpu()
    except ModelError as error:
        print("model: no host column: %s" % error, file=sys.stderr)
        host = "host"
        cpus = [(c, i) for c, i in cpus if c != "host"]
    if host in wanted:
        # This machine is one of the named CPUs: one column says it all.
        cpus = [(c, i) for c, i in cpus if c != "host"]
    cases = [c for c in cases if re.search(args.cases, c[0])]
    records = []
    for case in cases:
        for op in OPS:
            for backend in BACKENDS:
                for cpu, isa in cpus:
                    target = host if cpu == "host" else cpu
                    record = {"case": case[0], "op": op, "backend": backend,
                              "cpu": target}
                    try:
                        record.update(model_cell(args.qjit, case, op, backend,
                                                 isa, target))
                    except ModelError as error:
                        record["error"] = str(error)
                    except Exception as error:  # pylint: disable=broad-except
                        record["error"] = "model.py: %r" % error
                    records.append(record)
                    print("model: %s %s %s %s: %s" % (
                        op, case[0], backend, target,
                        record.get("error") or "%.3f cycles/el" %
                        record["cycles_per_element"]), file=sys.stderr)
    try:
        commit = run(["git", "-C", ROOT, "rev-parse", "--short",
                      "HEAD"]).strip()
        if run(["git", "-C", ROOT, "status", "--porcelain", "--",
                "jit", "tools", "bench"]).strip():
            commit += " with local changes"
    except ModelError:
        commit = "?"
    host_isas = {r["isa"] for r in records
                 if r["cpu"] == host and r["backend"] == "llvm" and "isa" in r}
    meta = {"llvm_mca": tool_version([LLVM_MCA, "--version"]), "host": host,
            "host_isa": "/".join(sorted(host_isas)) or "?",
            "n": args.n, "commit": commit,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d"),
            "order": [c[0] for c in cases]}
    os.makedirs(os.path.dirname(os.path.abspath(args.out_md)), exist_ok=True)
    with open(args.out_md, "w", encoding="utf-8") as f:
        f.write(markdown(records, cpus, meta))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "records": records}, f, indent=1)
    print("model: wrote %s" % args.out_md, file=sys.stderr)


if __name__ == "__main__":
    main()
