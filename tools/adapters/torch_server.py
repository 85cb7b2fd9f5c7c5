#!/usr/bin/env python3
"""The persistent adapter of `npufuzz --backend torch`.

Started once per npufuzz worker, it imports torch once and then runs case
after case: npufuzz writes a case directory per line on stdin, and this
answers each with `done N` on stdout, N being the exit status that
`python3 DIR/program.py DIR` would have had (docs/external-backends.md,
"Persistent commands"). Each case's diagnostics go to DIR/stderr.txt, as a
one-shot run's stderr would. At the end of stdin it exits.

Torch runs on one thread: npufuzz runs one worker per core, and results of
threaded reductions may depend on the thread count.
"""
import os
import runpy
import sys
import traceback

UNSUPPORTED = 77  # the protocol's exit status for "cannot express the case"


def run_case(case_dir):
    """Runs DIR/program.py in this process; returns its exit status."""
    program = os.path.join(case_dir, "program.py")
    if not os.path.isfile(program):
        sys.stderr.write("no program.py: the PyTorch emitter refused the case\n")
        return UNSUPPORTED
    old_argv = sys.argv
    sys.argv = [program, case_dir]
    try:
        # A fresh namespace per case: nothing of one case leaks into the next.
        namespace = runpy.run_path(program, run_name="npufuzz_case")
        namespace["main"]()
        return 0
    except SystemExit as e:
        if e.code is None:
            return 0
        if isinstance(e.code, int):
            return e.code
        sys.stderr.write(str(e.code) + "\n")
        return 1
    except BaseException:  # a traceback is what a one-shot run would print
        traceback.print_exc()
        return 1
    finally:
        sys.argv = old_argv


def main():
    # The answers travel on the original stdout; anything the programs print
    # goes to stderr instead, so it cannot be taken for an answer.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    try:
        import numpy  # noqa: F401
        import torch
    except ImportError as e:
        sys.stderr.write("npufuzz torch adapter: %s; install Debian's python3-torch and "
                         "python3-numpy\n" % e)
        return 3
    torch.set_num_threads(1)
    process_stderr = os.dup(2)
    for line in sys.stdin:
        case_dir = line.rstrip("\n")
        if not case_dir:
            continue
        with open(os.path.join(case_dir, "stderr.txt"), "w") as err:
            sys.stderr.flush()
            os.dup2(err.fileno(), 2)
            try:
                code = run_case(case_dir)
            finally:
                sys.stderr.flush()
                sys.stdout.flush()
                os.dup2(process_stderr, 2)
        answers.write("done %d\n" % code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
