#!/usr/bin/env python3
"""Runs a Python module (a peer fuzzer: `-m nnsmith.cli.fuzz ...`) under the
same coverage measurement as npufuzz's adapters (tools/adapters/
compiler_coverage.py: coverage.py, branches, the compiler's packages only),
for the whole run, and writes what it reached to OUT in the adapters'
format (docs/compiler-coverage.md).

Usage: measure_compiler.py OUT PACKAGE -m MODULE [ARGS...]
  PACKAGE: inductor (torch/_inductor) or tvm.

With NPUFUZZ_GROWTH_SECONDS=S, it also appends to OUT.growth.jsonl, every S
seconds, {"seconds": ..., "files": ...}: what was reached first since the
last line, so the lines together are the growth curve of the run, and what
it reached until a crash that ends it.
"""
import os
import runpy
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools",
                                "adapters"))
import compiler_coverage  # noqa: E402


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "-m" or sys.argv[2] not in ("inductor", "tvm"):
        sys.stderr.write(__doc__)
        return 2
    out = os.path.abspath(sys.argv[1])
    # Found without importing it: an imported module is not instrumented.
    if sys.argv[2] == "inductor":
        package = ("torch/_inductor", compiler_coverage.package_directory("torch", "_inductor"))
    else:
        package = ("tvm", compiler_coverage.package_directory("tvm"))
    os.environ[compiler_coverage.ENVIRONMENT_VARIABLE] = "on"
    measuring = compiler_coverage.CompilerCoverage([package])
    if measuring.off:
        sys.stderr.write("measure_compiler.py: %s\n" % measuring.off)
        return 2
    sys.argv = [sys.argv[4]] + sys.argv[5:]
    every = float(os.environ.get("NPUFUZZ_GROWTH_SECONDS", "0") or 0)
    taken = []  # every take's files, the growth snapshots' and the last

    def snapshot(growth, started):
        import json
        import time
        delta = measuring.take()
        taken.append(delta.get("files", {}))
        growth.write(json.dumps({"seconds": round(time.time() - started, 1),
                                 "files": delta.get("files", {})},
                                separators=(",", ":")) + "\n")
        growth.flush()

    if every > 0:
        import threading
        import time
        growth = open(out + ".growth.jsonl", "w")
        # Seconds since NPUFUZZ_GROWTH_START (epoch seconds) when given: a
        # run restarted after a crash continues its predecessor's clock.
        started = float(os.environ.get("NPUFUZZ_GROWTH_START", "0") or 0) or time.time()
        stop = threading.Event()

        def grow():
            while not stop.wait(every):
                snapshot(growth, started)
        threading.Thread(target=grow, daemon=True).start()
    code = 0
    try:  # measured from here: the compiler is imported, instrumented, inside
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    import json
    if every > 0:
        stop.set()
        snapshot(growth, started)
    last = measuring.take() if every <= 0 else {"tool": measuring.tool,
                                                 "packages": [package[0]]}
    # The whole run: the union of every take.
    files = dict(last.get("files", {}))
    for delta in taken:
        for name, got in delta.items():
            into = files.setdefault(name, {"lines": [], "branches": []})
            into["lines"] = sorted(set(into["lines"]) | set(got["lines"]))
            into["branches"] = sorted({tuple(b) for b in into["branches"]} |
                                      {tuple(b) for b in got["branches"]})
    last["files"] = {name: {"lines": v["lines"], "branches": [list(b) for b in v["branches"]]}
                     for name, v in sorted(files.items())}
    with open(out, "w") as f:
        json.dump(last, f, separators=(",", ":"))
    return code


if __name__ == "__main__":
    sys.exit(main())
