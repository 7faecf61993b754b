#!/usr/bin/env python3
"""Re-derive the frontend corpus expectations from mlir-opt 22.

The corpus (tests/frontend/corpus/*.txt, format documented at the top of
every file) records, for every type text, what qjit must answer. For
every case not marked `qjit:` that answer is MLIR 22's: this script asks
mlir-opt again and reports (default) or rewrites (--write) any difference.

  * a valid case gets its `print:` line from mlir-opt, and its `normalized:`
    line from `mlir-opt --normalize-quant-types` when that differs;
  * an invalid case only needs mlir-opt to reject it too; the location and
    the value it names (`error-at:`, `error-names:`) are qjit's own, so they
    are hand-written and never touched.

Bare types are checked as the result of an unregistered op
(`"test.op"() : () -> TYPE`); tensors of uniform types additionally as the
result of a `quant.qcast`, whose verifier enforces the op-level rules (axis
< rank, scale count = dim size, sub-channel block shapes).

Cases marked `qjit:` (deviations from MLIR 22, or families MLIR 22 lacks)
are skipped; `--show-mlir` prints what MLIR 22 says about them for review.

This is a developer tool: it is not run by CI. Python 3 standard library.
"""

import argparse
import pathlib
import re
import subprocess
import sys

CORPUS_DIR = pathlib.Path(__file__).resolve().parent
DEFAULT_MLIR_OPT = "/usr/lib/llvm-22/bin/mlir-opt"


class Case:
    """One case of a corpus file, with the line numbers of its fields."""

    def __init__(self, path, line):
        self.path = path
        self.line = line  # 1-based line of the case's first field
        self.input_lines = []
        self.fields = {}  # key -> (value, line index in the file)
        self.last_index = line - 1  # line index of the case's last line

    @property
    def text(self):
        return "\n".join(self.input_lines)

    def where(self):
        return f"{self.path.name}:{self.line}"


def parse_corpus(path):
    """Splits a corpus file into cases (blank lines separate cases)."""
    cases = []
    current = None
    lines = path.read_text().split("\n")
    for index, raw in enumerate(lines):
        if raw.startswith("#"):
            continue
        if raw.strip() == "":
            current = None
            continue
        if current is None:
            current = Case(path, index + 1)
            cases.append(current)
        current.last_index = index
        if raw.startswith("| ") or raw == "|":
            current.input_lines.append(raw[2:])
            continue
        key, sep, value = raw.partition(":")
        if not sep:
            sys.exit(f"{path.name}:{index + 1}: expected 'key: value'")
        value = value[1:] if value.startswith(" ") else value
        if key == "input":
            current.input_lines.append(value)
        current.fields[key] = (value, index)
    return cases, lines


def error_location(case):
    """The 1-based (line, column) that `error-at:` designates."""
    text = case.text
    spec = case.fields["error-at"][0]
    if spec == "<end>":
        lines = text.split("\n")
        return len(lines), len(lines[-1]) + 1
    token, _, occurrence = spec.rpartition(" @")
    if not token or not occurrence.isdigit():
        token, occurrence = spec, "1"
    offset = -1
    for _ in range(int(occurrence)):
        offset = text.find(token, offset + 1)
        if offset < 0:
            raise ValueError(f"error-at: '{spec}' does not occur in the input")
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


MLIR_LOCATION_RE = re.compile(r"<stdin>:(\d+):(\d+): error: (.*)")
TEST_OP_PREFIX = len('"test.op"() : () -> ')


def mlir_location(diagnostic):
    """MLIR's line:column for a rejected bare type, in input coordinates."""
    match = MLIR_LOCATION_RE.search(str(diagnostic))
    if not match:
        return "?", str(diagnostic)
    line, column = int(match.group(1)), int(match.group(2))
    if line == 1:
        column -= TEST_OP_PREFIX
    return f"{line}:{column}", match.group(3)


def run_mlir_opt(mlir_opt, source, *flags):
    """Returns (ok, stdout or stderr) for one mlir-opt run."""
    result = subprocess.run(
        [mlir_opt, "--allow-unregistered-dialect", *flags, "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode == 0:
        return True, result.stdout
    return False, result.stderr.strip()


def extract_after(output, marker, strip_suffix=""):
    for line in output.splitlines():
        if marker in line:
            text = line.split(marker, 1)[1]
            if strip_suffix and text.endswith(strip_suffix):
                text = text[: -len(strip_suffix)]
            return text
    raise RuntimeError(f"no '{marker}' in mlir-opt output:\n{output}")


TENSOR_RE = re.compile(r"^tensor<((?:[0-9?]+x)*|\*x)(!quant.*)>$")
EXPRESSED_RE = re.compile(r"^!quant\.uniform<[a-zA-Z0-9]+(?:<-?\d+:-?\d+>)?:(\w+)")


def mlir_verdict(mlir_opt, text):
    """Returns (print, normalized) for a type MLIR 22 accepts, or raises
    ValueError with MLIR's diagnostic when it rejects it. Every check reads
    the original text: MLIR 22 cannot always re-read its own print."""
    ok, out = run_mlir_opt(mlir_opt, f'"test.op"() : () -> {text}\n')
    if not ok:
        raise ValueError(out)
    printed = extract_after(out, "() -> ")

    tensor = TENSOR_RE.match(printed)
    expressed = EXPRESSED_RE.match(tensor.group(2)) if tensor else None
    if tensor and expressed:
        shape, element_type = tensor.group(1), expressed.group(1)
        source_type = f"tensor<{shape}{element_type}>"
        ok, out = run_mlir_opt(
            mlir_opt,
            f"func.func @f(%x: {source_type}) -> {text} {{\n"
            f"  %0 = quant.qcast %x : {source_type} to {text}\n"
            f"  return %0 : {text}\n}}\n",
        )
        if not ok:
            raise ValueError(out)

    ok, out = run_mlir_opt(
        mlir_opt, f"func.func private @f({text})\n", "--normalize-quant-types"
    )
    if not ok:
        raise ValueError(out)
    normalized = extract_after(out, "func.func private @f(", ")")
    return printed, normalized


def check_file(path, mlir_opt, write, show_mlir):
    cases, lines = parse_corpus(path)
    problems = 0
    # (line index, new text, insert?) edits, applied bottom-up.
    edits = []
    for case in cases:
        if not case.input_lines:
            print(f"{case.where()}: case without input")
            problems += 1
            continue
        if "error-at" in case.fields:
            try:
                location = error_location(case)
            except ValueError as error:
                print(f"{case.where()}: {error}")
                problems += 1
                continue
        try:
            verdict = mlir_verdict(mlir_opt, case.text)
        except ValueError as error:
            verdict = error
        if "qjit" in case.fields:
            if show_mlir:
                print(f"{case.where()}: [qjit: {case.fields['qjit'][0]}]"
                      f"\n  MLIR 22: {verdict}")
            continue
        expects_valid = "print" in case.fields
        if isinstance(verdict, ValueError):
            if expects_valid:
                print(f"{case.where()}: MLIR 22 rejects it:\n  {verdict}")
                problems += 1
            elif "error-at" not in case.fields:
                print(f"{case.where()}: invalid in MLIR 22 ({verdict});"
                      " hand-write error-at/error-names")
                problems += 1
            elif show_mlir:
                where, message = mlir_location(verdict)
                print(f"{case.where()}: qjit {location[0]}:{location[1]},"
                      f" MLIR 22 {where}: {message}")
            continue
        printed, normalized = verdict
        if "error-at" in case.fields:
            print(f"{case.where()}: MLIR 22 accepts it as {printed};"
                  " mark the case `qjit:` or fix it")
            problems += 1
            continue
        inserted = []
        for key, want in (("print", printed),
                          ("normalized", normalized if normalized != printed
                           else None)):
            have = case.fields.get(key)
            if have and have[0] == want:
                continue
            if have is None and want is None:
                continue
            if not write:
                print(f"{case.where()}: {key}: corpus has "
                      f"{have[0] if have else '(none)'}, MLIR 22 gives {want}")
                problems += 1
            elif have is None:
                inserted.append(f"{key}: {want}")
            elif want is None:
                edits.append((have[1], None, False))
            else:
                edits.append((have[1], f"{key}: {want}", False))
        if inserted:
            edits.append((case.last_index, "\n".join(inserted), True))
    if write and edits:
        for index, text, insert in sorted(edits, key=lambda e: e[0],
                                          reverse=True):
            if insert:
                lines.insert(index + 1, text)
            elif text is None:
                del lines[index]
            else:
                lines[index] = text
        path.write_text("\n".join(lines))
        print(f"{path.name}: {len(edits)} expectation(s) rewritten")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path,
                        help="corpus files (default: all *.txt here)")
    parser.add_argument("--mlir-opt", default=DEFAULT_MLIR_OPT)
    parser.add_argument("--write", action="store_true",
                        help="rewrite print/normalized lines in place")
    parser.add_argument("--show-mlir", action="store_true",
                        help="show MLIR 22's verdict on `qjit:` cases and"
                        " its location for invalid cases")
    args = parser.parse_args()
    files = args.files or sorted(CORPUS_DIR.glob("*.txt"))
    problems = sum(check_file(path, args.mlir_opt, args.write, args.show_mlir)
                   for path in files)
    print(f"{problems} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
