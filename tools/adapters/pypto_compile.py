#!/usr/bin/env python3
"""The adapter of `npufuzz --backend pypto`: pypto_compile.py DIR.

DIR/program.py is a case written as a PyPTO program
(backend/emit/PyptoEmitter.h). This parses it with PyPTO's `pl.parse`,
runs PyPTO's default pass pipeline for Ascend910B (A2/A3: SSA, memory
spaces, memory reuse, address allocation, sync preparation) and its PTO code
generation on the InCore function `npf_kernel`, and writes the `.pto` text
to DIR/kernel.pto, which npufuzz assembles with the user's ptoas and runs on
pto-isa's CPU simulator as it does its own kernels.

It runs under the user's PyPTO (a Python that imports pypto), never ours,
and uses only what PyPTO's own tests do (tests/ut/codegen).

How a case ends:
- kernel.pto written: status 0;
- PyPTO rejects the program or fails in a pass or in code generation: its
  error on stderr, status 78 (a compile error of PyPTO's);
- the adapter cannot run (pypto does not import, DIR cannot be read or
  written): status 80, npufuzz's environment, never a finding.
"""

import os
import sys
import traceback

COMPILE_ERROR = 78
ENVIRONMENT = 80


def main() -> int:
    if len(sys.argv) != 2:
        print("npufuzz pypto adapter: usage: pypto_compile.py DIR", file=sys.stderr)
        return ENVIRONMENT
    case_dir = sys.argv[1]
    # torch's device extensions of another package may be on the path; PyPTO
    # needs none of them.
    os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
    try:
        import pypto.language as pl
        from pypto import backend, ir
        from pypto.backend import BackendType
        from pypto.ir.pass_manager import OptimizationStrategy, PassManager
        from pypto.pypto_core import codegen
    except Exception as e:  # noqa: BLE001: any import failure is the machine's
        print(f"npufuzz pypto adapter: pypto does not import: {e}", file=sys.stderr)
        return ENVIRONMENT
    try:
        with open(os.path.join(case_dir, "program.py"), encoding="utf-8") as f:
            source = f.read()
    except OSError as e:
        print(f"npufuzz pypto adapter: cannot read program.py: {e}", file=sys.stderr)
        return ENVIRONMENT
    try:
        backend.reset_for_testing()
        backend.set_backend_type(BackendType.Ascend910B)
        program = pl.parse(source, filename="program.py")
        optimized = PassManager.get_strategy(OptimizationStrategy.Default).run_passes(program)
        kernel = next(f for f in optimized.functions.values() if f.name == "npf_kernel")
        text = codegen.PTOCodegen().generate(ir.Program([kernel], kernel.name, optimized.span))
    except Exception:  # noqa: BLE001: PyPTO's own errors are what it says of the program
        traceback.print_exc()
        return COMPILE_ERROR
    try:
        with open(os.path.join(case_dir, "kernel.pto"), "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"npufuzz pypto adapter: cannot write kernel.pto: {e}", file=sys.stderr)
        return ENVIRONMENT
    return 0


if __name__ == "__main__":
    sys.exit(main())
