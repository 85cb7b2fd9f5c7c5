"""The loop every persistent adapter runs (docs/external-backends.md,
"Persistent commands"): a case directory per line of stdin, answered with
`done N` on the original stdout, N being the case's exit status. Anything
the cases print goes to stderr, so it cannot be taken for an answer."""
import os
import sys

ENVIRONMENT = 80  # the adapter could not run the case at all


def answers_channel():
    """The original stdout, for the answers; fd 1 then points at stderr."""
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    return answers


def say_ready(answers):
    """Tells npufuzz the adapter's start-up is done: it measures the start
    up to here, and the case's own time limit counts from here, so that a
    slow start on a busy machine is never taken for a hanging case."""
    answers.write("ready\n")


def serve(answers, run_one, name, expected_errors=(OSError,), ready=True):
    """Runs `run_one(case_dir)` for each directory read; an error of
    `expected_errors` (the case directory, not the program) answers
    ENVIRONMENT, which is npufuzz's environment, never a finding. With
    `ready`, says so first (the adapter has imported its compiler); an
    adapter that sets up in its first case says it itself."""
    if ready:
        say_ready(answers)
    process_stderr = os.dup(2)
    for line in sys.stdin:
        case_dir = line.rstrip("\n")
        if not case_dir:
            continue
        try:
            code = run_one(case_dir)
        except expected_errors as e:
            os.dup2(process_stderr, 2)
            sys.stderr.write("npufuzz %s adapter: %s\n" % (name, e))
            code = ENVIRONMENT
        answers.write("done %d\n" % code)
    return 0
