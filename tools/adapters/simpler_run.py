#!/usr/bin/env python3
"""The adapter of `npufuzz --backend simpler`: simpler_run.py DIR [BUILDS].

DIR holds ptoas's kernel.cpp, a wrapper per task (taskP.cpp), the
orchestration (orchestration.cpp) and simpler.json, which
backend/pto/SimplerSources.cpp writes; argK.bin are the host's buffers
(inputs, and outputs holding the poison they start as) and poison.bin the
pattern the other GM tensors start as. This builds the kernels and the
orchestration with simpler's own KernelCompiler, runs them on one L2 Worker
of simpler's a2a3sim platform and writes each output back into its argK.bin.

It runs under the user's simpler (a Python that imports it), never ours:
nothing of simpler is copied here, only its documented Worker API
(examples/workers/l2 in its repository). Its compilers' scratch files go
into DIR, which npufuzz removes, so a killed run leaves nothing behind.

How a case ends:
- a task's kernel does not compile, with the compiler's first error in
  ptoas's kernel.cpp or in pto-isa's headers: that error on stderr, status
  78 (npufuzz: a contract gap between ptoas and the pto-isa simpler pins);
- the adapter cannot run the case (simpler does not import, a file it
  cannot read, an error in npufuzz's wrapper or orchestration, a compiler
  that was killed or could not link, a Worker that does not start): status
  80, npufuzz's environment, never a finding;
- the runtime raises: its traceback, status 1;
- the simulator dies: the signal, as the process ends.

simpler's sim stops a run in which no task finished for 10 s, which a
loaded two-core machine can reach: the adapter lifts that to what npufuzz's
own limit on a case allows, so a slow machine is never a finding and a
real hang is npufuzz's time-out.

BUILDS, when given, is a directory where what simpler's compiler built is
kept by a hash of everything it was built from (the source, ptoas's
kernel.cpp, the platform, the runtime, simpler's pto-isa pin): npufuzz
gives each case one, so that the runs its oracles repeat build nothing.

What simpler's sim leaves behind when a run dies: it copies its runtime's
shared objects to /tmp/aicpu_sim_XXXXXX and /tmp/aicore_sim_XXXXXX (a fixed
/tmp) and removes them when it unloads them, which a crashed run never
does.
"""
import hashlib
import json
import os
import re
import sys
import traceback

COMPILE_ERROR = 78
ENVIRONMENT = 80
# Above npufuzz's limit on a simpler case (PtoToolchain::simplerTimeoutSeconds).
SCHEDULER_TIMEOUT_MS = "900000"


def say(message):
    sys.stderr.write("npufuzz simpler adapter: %s\n" % message)
    sys.stderr.flush()


def first_error(text):
    """The first line of a compiler's output that says error:, else its first."""
    lines = [line for line in str(text).splitlines() if line.strip()]
    for line in lines:
        if "error:" in line:
            return line.strip()
    return lines[0].strip() if lines else "(no output)"


def in_the_toolchains_code(error):
    """Whether a compiler's error line points into ptoas's C++ (kernel.cpp)
    or pto-isa's headers, rather than npufuzz's wrapper, the linker or the
    driver (a killed compiler, a full disk)."""
    m = re.match(r"(?:In file included from )?(\S+?):\d+(?::\d+)?: (?:fatal )?error:", error)
    if not m:
        return False
    path = m.group(1)
    return os.path.basename(path) == "kernel.cpp" or "/pto/" in path or "pto-isa" in path


class Builds:
    """What simpler's compiler built, by a hash of what it was built from,
    in `directory` (None: nothing kept)."""

    def __init__(self, directory, salt):
        self.directory, self.salt = directory, salt

    def get(self, parts, build):
        if self.directory is None:
            return build()
        key = hashlib.sha256(self.salt.encode())
        for part in parts:
            key.update(b"\0" + part)
        path = os.path.join(self.directory, key.hexdigest() + ".bin")
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            pass
        binary = build()
        tmp = "%s.%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(binary)
        os.replace(tmp, path)
        return binary


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def main(argv):
    if len(argv) not in (2, 3):
        say("usage: simpler_run.py CASE_DIR [BUILDS_DIR]")
        return ENVIRONMENT
    case_dir = os.path.abspath(argv[1])
    os.environ.setdefault("KMP_DUPLICATE_LIB_OK", "TRUE")
    os.environ["SIMPLER_SCHEDULER_TIMEOUT_MS"] = SCHEDULER_TIMEOUT_MS
    try:
        import numpy as np
        from simpler.task_interface import (ArgDirection, CallConfig, ChipCallable, CoreCallable,
                                            DataType, TaskArgs, TensorArgType)
        from simpler.worker import Worker
        from simpler_setup.kernel_compiler import KernelCompiler
        from simpler_setup.pto_isa import ensure_pto_isa_root, read_pto_isa_pin
    except Exception as e:  # noqa: BLE001 - any import failure is the machine's
        say("cannot import simpler: %s" % e)
        return ENVIRONMENT
    try:
        with open(os.path.join(case_dir, "simpler.json")) as f:
            spec = json.load(f)
        with open(os.path.join(case_dir, "poison.bin"), "rb") as f:
            poison = f.read()
        if len(poison) != 4:
            raise OSError("poison.bin is not 4 bytes")
        host = []
        for t in spec["tensors"]:
            n = max(1, int(t["bytes"]))
            if t["init"] == "poison":
                data = (poison * (n // 4 + 1))[:n]
            else:
                with open(os.path.join(case_dir, t["init"]), "rb") as f:
                    data = f.read()
                if len(data) != int(t["bytes"]):
                    raise OSError("%s holds %d bytes, not %d" % (t["init"], len(data), t["bytes"]))
                data = data or b"\0"
            host.append(np.frombuffer(bytearray(data), dtype=np.uint8).copy())
    except (OSError, ValueError, KeyError) as e:
        say("cannot read the case: %s" % e)
        return ENVIRONMENT

    direction = {"in": ArgDirection.IN, "out": ArgDirection.OUT}
    platform, runtime = spec["platform"], spec["runtime"]
    try:
        compiler = KernelCompiler(platform=platform)
        pto_isa_root = ensure_pto_isa_root()
        include_dirs = compiler.get_orchestration_include_dirs(runtime) + [case_dir]
        builds = Builds(argv[2] if len(argv) == 3 else None,
                        "%s %s %s" % (platform, runtime, read_pto_isa_pin()))
        kernel_cpp = read_bytes(os.path.join(case_dir, "kernel.cpp"))
    except Exception as e:  # noqa: BLE001
        say("simpler's compiler is not set up: %s" % e)
        return ENVIRONMENT
    children = []
    for task in spec["tasks"]:
        try:
            source = os.path.join(case_dir, task["source"])
            binary = builds.get(
                [b"aiv", read_bytes(source), kernel_cpp],
                lambda: compiler.compile_incore(source_path=source, core_type="aiv",
                                                pto_isa_root=pto_isa_root,
                                                extra_include_dirs=include_dirs,
                                                build_dir=case_dir))
        except Exception as e:  # noqa: BLE001 - the compiler's diagnostics
            error = first_error(e)
            sys.stderr.write(str(e) + "\n")
            # Only an error in ptoas's C++ or pto-isa's headers is the
            # toolchains' contract: one in npufuzz's wrapper, a compiler
            # that was killed or could not link, or none at all, is
            # npufuzz's environment.
            if "compilation failed with exit code" in str(e) and \
                    "exit code -" not in str(e) and in_the_toolchains_code(error):
                say("%s: %s" % (task["source"], error))
                return COMPILE_ERROR
            say("%s does not build: %s" % (task["source"], error))
            return ENVIRONMENT
        try:
            children.append((int(task["func_id"]),
                             CoreCallable.build(signature=[direction[d] for d in task["signature"]],
                                                binary=binary)))
        except Exception as e:  # noqa: BLE001 - nothing has run yet
            say("simpler does not take %s's kernel: %s" % (task["source"], e))
            return ENVIRONMENT
    try:
        source = os.path.join(case_dir, spec["orchestration"])
        orchestration = builds.get(
            [b"orchestration", read_bytes(source)],
            lambda: compiler.compile_orchestration(runtime_name=runtime, source_path=source,
                                                   build_dir=case_dir))
    except Exception as e:  # noqa: BLE001 - npufuzz wrote it: never the toolchain's finding
        say("the orchestration does not compile: %s" % first_error(e))
        sys.stderr.write(str(e) + "\n")
        return ENVIRONMENT
    try:
        chip = ChipCallable.build(
            signature=[direction[d] for d in spec["orchestration_signature"]],
            func_name=spec["orchestration_function"], binary=orchestration, children=children)
        worker = Worker(level=2, platform=platform, runtime=runtime, device_id=0)
        handle = worker.register(chip)
        worker.init()
    except Exception as e:  # noqa: BLE001 - no case has run yet
        say("simpler's Worker does not start: %s" % e)
        return ENVIRONMENT
    try:
        # From here a failure is the compiled program's (npufuzz's
        # kExternalRunningMarker), not the compiler's.
        open(os.path.join(case_dir, "running"), "w").close()
        args, device = TaskArgs(), []
        for t, array in zip(spec["tensors"], host):
            d = worker.malloc(array.nbytes)
            worker.copy_to(d, array)
            device.append(d)
            kind = TensorArgType.INPUT if t["direction"] == "in" else TensorArgType.OUTPUT_EXISTING
            args.add_tensor(d.tensor(shapes=(array.nbytes,), dtype=DataType.UINT8), kind)
        worker.run(handle, args, CallConfig())
        for t, array, d in zip(spec["tensors"], host, device):
            if "write_back" in t:
                worker.copy_from(array, d)
                with open(os.path.join(case_dir, t["write_back"]), "wb") as f:
                    f.write(array.tobytes()[:int(t["bytes"])])
        for d in device:
            worker.free(d)
    except OSError as e:
        say("cannot write the outputs: %s" % e)
        return ENVIRONMENT
    except Exception:  # noqa: BLE001 - the runtime's error is the run's outcome
        traceback.print_exc()
        return 1
    finally:
        try:
            worker.close()
        except Exception as e:  # noqa: BLE001 - the outcome above stands
            say("simpler's Worker did not close: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
