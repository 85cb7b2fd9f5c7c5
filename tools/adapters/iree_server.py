#!/usr/bin/env python3
"""The persistent adapter of `npufuzz --backend iree`.

Started once per npufuzz worker with IREE's runtime imported once, it runs
case after case: npufuzz writes a case directory per line on stdin, and this
answers each with `done N` on stdout (docs/external-backends.md, "Persistent
commands"). For each case it compiles DIR/kernel.mlir (the tensor style with
tensors at its ABI: manifest "returns_outputs") with iree-compile for the
llvm-cpu backend of the local device, with the optimisations manifest.json's
"switches" turn on, loads the module into IREE's runtime (local-sync: one
thread, so reductions do not depend on a thread count) and writes outK.npy.

How a case ends:
- iree-compile killed by a signal: its stderr (the assertion, the stack) on
  DIR/stderr.txt, status 128+N: a crash npufuzz signs by its frames;
- iree-compile rejects the module: if it also rejects it with nothing but
  parsing and verification (--compile-to=input), IREE's bundled MLIR cannot
  read what Debian's MLIR writes: status 77, unsupported, never a finding;
  otherwise its first error on stderr, status 78 (compile-error);
- the runtime raises: its first line, status 1 (a runtime error);
- the adapter itself cannot work (a file it cannot write): status 80,
  npufuzz's environment, never a finding.
iree-compile's whole stderr and the flags go to DIR/details.txt.
"""
import json
import os
import re
import subprocess
import sys

import case_loop

UNSUPPORTED = 77
COMPILE_ERROR = 78
RUNTIME_FAULT = 79  # IREE's runtime refused what the module asked of it
ENVIRONMENT = 80
CRASHED = 128 + 11  # as a shell reports a child killed by SIGSEGV

# Messages by which iree-compile says that it does not support what it was
# given (a documented limitation, not a miscompilation): the case is
# unsupported, with the reason, and counted.
LIMITATIONS = [
    (re.compile(r"I/O type '[^']*index[^']*' is invalid: index types"),
     "iree-compile: index-typed tensors between dispatches"),
    (re.compile(r"tiling is not supported for the semi-affine indexing map"),
     "iree-compile: tiling a semi-affine (floor/mod) indexing map"),
]

# Each switch of backend/CompilerSwitches.def: its flag when on, and off.
SWITCH_FLAGS = {
    "opt-level": ("--iree-opt-level=O2", "--iree-opt-level=O0"),
    "data-tiling": ("--iree-opt-data-tiling=true", "--iree-opt-data-tiling=false"),
    "aggressive-fusion": ("--iree-dispatch-creation-enable-aggressive-fusion=true",
                          "--iree-dispatch-creation-enable-aggressive-fusion=false"),
    "fuse-multi-use": ("--iree-dispatch-creation-fuse-multi-use=true",
                       "--iree-dispatch-creation-fuse-multi-use=false"),
    "propagate-transposes": ("--iree-global-opt-propagate-transposes=true",
                             "--iree-global-opt-propagate-transposes=false"),
    "host-cpu": ("--iree-llvmcpu-target-cpu=host", "--iree-llvmcpu-target-cpu=generic"),
}

BASE_FLAGS = ["--iree-hal-target-device=local",
              "--iree-hal-local-target-device-backends=llvm-cpu"]

# numpy dtypes of the ABI types (the tensor ABI widens index and i1, and
# passes bf16 as its bits).
ABI_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "uint16", "i8": "int8",
              "i32": "int32", "i64": "int64", "index": "int64", "i1": "int8"}


def first_error(text):
    """The first diagnostic of iree-compile's stderr, without its location
    and numbers (SSA names, sizes), which vary between cases of one bug."""
    for line in text.splitlines():
        if "error:" in line:
            said = line.split("error:", 1)[1].strip()
            return re.sub(r"%[\w#]+|0x[0-9a-fA-F]+|\d+", "N", said)[:200]
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[0][:200] if lines else "no diagnostic"


def runtime_error(text):
    """The runtime's status without its source paths and numbers:
    `OUT_OF_RANGE; attempted to access an address outside ...`."""
    text = re.sub(r"^.*?\b([A-Z_]{4,});", r"\1;", text)
    text = re.sub(r"\([^)]*\)", "", text)
    text = re.sub(r";\s*while .*", "", text)
    return re.sub(r"0x[0-9a-fA-F]+|\d+", "N", text).strip()[:200]


def compile_flags(manifest):
    flags = list(BASE_FLAGS)
    for name, on in sorted(manifest.get("switches", {}).items()):
        if name not in SWITCH_FLAGS:
            raise KeyError("unknown switch %r" % name)
        flags.append(SWITCH_FLAGS[name][0 if on else 1])
    return flags


def compile_kernel(compiler, case_dir, flags, log):
    """(status, headline) of compiling DIR/kernel.mlir into DIR/kernel.vmfb;
    status 0 when it compiled."""
    source = os.path.join(case_dir, "kernel.mlir")
    target = os.path.join(case_dir, "kernel.vmfb")
    argv = [compiler] + flags + [source, "-o", target]
    log.append("$ " + " ".join(argv))
    # No limit of its own: npufuzz's ends the whole process group, a hang.
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       errors="replace")
    log.append(p.stderr)
    # LLVM's crash handler prints the stack and exits; npufuzz signs a
    # crash by its frames.
    if p.returncode != 0 and ("crash backtrace" in p.stderr or
                              re.search(r"^\s*#0 0x", p.stderr, re.M)):
        return CRASHED, p.stderr
    if p.returncode < 0:
        # npufuzz reads the assertion or the stack from stderr itself.
        return 128 - p.returncode, p.stderr or "iree-compile killed by signal %d" % -p.returncode
    if p.returncode == 0:
        return 0, None
    # Rejected: by the parser and verifier alone, or by a pass?
    parse = subprocess.run([compiler, "--compile-to=input", source, "-o", os.devnull],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="replace")
    if parse.returncode != 0:
        log.append("--compile-to=input:\n" + parse.stderr)
        return UNSUPPORTED, "iree-compile cannot read the module: " + first_error(parse.stderr)
    for pattern, reason in LIMITATIONS:
        if pattern.search(p.stderr):
            return UNSUPPORTED, reason
    return COMPILE_ERROR, "iree-compile: error: " + first_error(p.stderr)


def run_kernel(runtime, case_dir, manifest):
    """Runs kernel.vmfb's entry on the case's inputs; writes outK.npy."""
    import numpy as np
    mlir = manifest["mlir"]
    inputs = manifest["inputs"]
    args = []
    for a in mlir["args"]:
        if a["kind"] == "input":
            spec = inputs[a["index"]]
            data = np.load(os.path.join(case_dir, spec["file"]))
            if spec["dtype"] == "bf16":  # its bits, the upper half of f32's
                data = (np.ascontiguousarray(data, np.float32).view(np.uint32) >> 16)
            args.append(np.ascontiguousarray(data.astype(ABI_DTYPES[spec["dtype"]])))
        elif a["kind"] == "valid_dim":
            args.append(int(a["value"]))
        else:
            raise ValueError("an output argument in a tensor-ABI kernel")
    with open(os.path.join(case_dir, "kernel.vmfb"), "rb") as f:
        flatbuffer = f.read()
    config = runtime.Config("local-sync")
    context = runtime.SystemContext(config=config)
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, flatbuffer))
    results = context.modules.module[mlir["entry"]](*args)
    if not isinstance(results, (list, tuple)):
        results = [results]
    outputs = manifest["outputs"]
    if len(results) != len(outputs):
        raise ValueError("%d results for %d outputs" % (len(results), len(outputs)))
    for spec, value in zip(outputs, results):
        array = np.asarray(value.to_host() if hasattr(value, "to_host") else value)
        if spec["dtype"] == "i1":
            array = array != 0
        elif spec["dtype"] == "bf16":
            array = (array.astype(np.uint16).astype(np.uint32) << 16).view(np.float32)
        np.save(os.path.join(case_dir, spec["file"]),
                np.ascontiguousarray(array.astype(np.dtype(spec["npy_descr"]))))


def run_case(compiler, runtime, case_dir):
    """(status, stderr text, details)."""
    with open(os.path.join(case_dir, "manifest.json")) as f:
        manifest = json.load(f)
    if "mlir" not in manifest.get("files", {}):
        reason = manifest.get("unsupported", {}).get("mlir", "no kernel.mlir")
        return UNSUPPORTED, reason + "\n", []
    if not manifest["mlir"].get("returns_outputs"):
        return ENVIRONMENT, "kernel.mlir is not in the tensor ABI\n", []
    flags = compile_flags(manifest)
    log = []
    status, headline = compile_kernel(compiler, case_dir, flags, log)
    if status != 0:
        return status, headline.rstrip("\n") + "\n", log
    return run_isolated(runtime, case_dir, manifest, log)


def run_isolated(runtime, case_dir, manifest, log):
    """Runs the module in a forked child, so that a runtime that aborts or
    faults on it (a module the compiler got wrong) ends the case, not the
    adapter: (status, stderr text, details)."""
    message_path = os.path.join(case_dir, "runtime-error.txt")
    stderr_path = os.path.join(case_dir, "runtime-stderr.txt")
    # Compiled: a crash from here on is the module's, which npufuzz traces
    # to the op that first goes wrong (docs/external-backends.md, "running").
    open(os.path.join(case_dir, "running"), "w").close()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: the runtime's own output goes to a file
        code = 0
        try:
            fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            run_kernel(runtime, case_dir, manifest)
        except Exception as e:  # the runtime's error, or the module's
            with open(message_path, "w") as f:
                f.write("%s\n%s" % (type(e).__name__, e))
            code = RUNTIME_FAULT
        finally:
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    said = ""
    if os.path.exists(stderr_path):
        with open(stderr_path, errors="replace") as f:
            said = f.read()
        log.append("iree runtime stderr:\n" + said)
    if os.WIFSIGNALED(status):
        # npufuzz reads an assertion from what the runtime printed.
        sig = os.WTERMSIG(status)
        return 128 + sig, "iree runtime: killed by signal %d\n%s" % (sig, said), log
    code = os.WEXITSTATUS(status)
    if code == RUNTIME_FAULT:
        with open(message_path, errors="replace") as f:
            kind, _, text = f.read().partition("\n")
        log.append("iree runtime: " + text)
        first = text.splitlines()[0] if text else kind
        return RUNTIME_FAULT, "iree runtime: " + runtime_error(first) + "\n", log
    return code, said, log


def direct_compiler(path):
    """The iree-compile binary that pip's `iree-compile` console script
    starts (after importing Python, a quarter second a case), or `path`
    itself: a build's binary, or a user's wrapper, runs as given."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return path
    if b"iree.compiler.tools.scripts.iree_compile" not in head:
        return path
    try:
        from iree.compiler.tools.binaries import find_tool
        return find_tool("iree-compile")
    except Exception:  # an installation without it: the script still works
        return path


def answer(compiler, runtime, case_dir):
    """Runs one case; its status, with its stderr.txt and details.txt."""
    code, err, details = run_case(compiler, runtime, case_dir)
    with open(os.path.join(case_dir, "stderr.txt"), "w") as f:
        f.write(err)
    if details:
        with open(os.path.join(case_dir, "details.txt"), "w") as f:
            f.write("\n".join(details))
    return code


def main():
    answers = case_loop.answers_channel()
    if len(sys.argv) != 3 or sys.argv[1] != "--iree-compile":
        sys.stderr.write("usage: iree_server.py --iree-compile PATH\n")
        return ENVIRONMENT
    compiler = direct_compiler(sys.argv[2])
    try:
        import numpy  # noqa: F401
        import iree.runtime as runtime
    except ImportError as e:
        sys.stderr.write("npufuzz iree adapter: %s; see docs/toolchains.md#iree-runtime\n" % e)
        return ENVIRONMENT
    return case_loop.serve(answers, lambda case_dir: answer(compiler, runtime, case_dir), "iree",
                           (OSError, KeyError, ValueError))


if __name__ == "__main__":
    sys.exit(main())
