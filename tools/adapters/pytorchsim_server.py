#!/usr/bin/env python3
"""The persistent adapter of `npufuzz --backend pytorchsim`.

Run by the Python of the user's PyTorchSim checkout (its pinned torch), with
`--pytorchsim DIR` naming the checkout. It sets PyTorchSim's `npu` device up
once (PyTorchSim builds it as a torch C++ extension the first time, about
40 s) and then serves case after case as torch_server.py does: a case
directory per line on stdin, answered with `done N` on stdout
(docs/external-backends.md, "Persistent commands").

Each case's program.py (PyTorchEmitter's model form: the torch calls a model
writes) has its kernel compiled by torch.compile on the `npu` device, which
is PyTorchSim's MLIR code generation. PyTorchSim then hands each kernel's
MLIR to `mlir-opt`, `mlir-translate` and `llc` in TORCHSIM_LLVM_PATH, its
LLVM fork, and runs Spike or TOGSim when its config says so. Here its config
turns both simulators off and TORCHSIM_LLVM_PATH names stand-ins that accept
everything: what PyTorchSim generated is npufuzz's to check, in the case
directory:

  kernelK.mlir     kernel K as PyTorchSim wrote it
  pytorchsim.json  the kernels, each call of one with the storage each
                   argument lives in, and the views the program returns

No output values: npufuzz verifies each kernel with upstream MLIR and
checks what its DMAs move (backend/pytorchsim/). A failure of PyTorchSim's
code generation is answered as a compiler error (78) with a headline naming
the exception and PyTorchSim's innermost frame; what PyTorchSim says it does
not do (NotImplementedError, an aten op the `npu` device lacks) is
unsupported (77). A failure of the adapter itself is 80, the environment.

`--check` sets the device up, compiles a one-op add and prints one line,
`pytorchsim COMMIT torch VERSION`: the canary.
"""
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import traceback

import case_loop
import compiler_coverage
from pytorchsim_releases import release_of
# Inductor's wrappers around the exception a compiler raised, as torch's
# adapter unwraps them; numbers dropped from what signs a failure.
from torch_server import _root_cause, _without_numbers

UNSUPPORTED = 77
COMPILE_ERROR = 78
ENVIRONMENT = 80

# The stand-ins for PyTorchSim's LLVM tools and RISC-V GCC: they accept
# everything, so that PyTorchSim goes on to the next kernel, and npufuzz
# checks each kernel.
_STAND_IN = "#!/bin/sh\nexit 0\n"


# A file the adapter keeps in a case directory while it sets PyTorchSim up
# for that case (its first): a case whose limit ended the adapter then
# (building the npu extension) is npufuzz's environment, not the case's
# (PyTorchSimBackend.cpp reads it).
SETTING_UP = "setting-up"


def _index_tree(e):
    """An index of Inductor's as the tree InductorIndex.h reads; ValueError
    for what it cannot say."""
    import sympy
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing
    if isinstance(e, sympy.Integer):
        return int(e)
    if isinstance(e, sympy.Symbol):
        return str(e)
    for kind, name in ((sympy.Add, "add"), (sympy.Mul, "mul"), (FloorDiv, "floordiv"),
                       (ModularIndexing, "modular_indexing"), (sympy.Mod, "mod"),
                       (sympy.Min, "min"), (sympy.Max, "max")):
        if isinstance(e, kind):
            return [name] + [_index_tree(a) for a in e.args]
    raise ValueError("an index holds %s" % type(e).__name__)


def _ask_record(ask):
    """What pytorchsim.json keeps of one DMA's ask: its line, buffer, index
    and the variable of each tile dimension, or why its map is not judged.

    PyTorchSim's tile for a load or store runs over the iteration variables
    the index reads, in their order (index0 outermost), or over all the
    kernel's when it broadcasts a load or store to the kernel's tile; a
    tile of another rank (a scalar's, a reduction's [1, n], one split by a
    floor division) is not judged."""
    record = {"code": ask["code"], "buffer": ask["buffer"]}
    index = ask["index"]
    try:
        record["index"] = _index_tree(index)
    except ValueError as e:
        record["why"] = str(e)
        return record
    names = {str(s) for s in index.free_symbols}
    if any(not re.match(r"index\d+$", n) for n in names):
        record["why"] = "an indirect index (it reads %s)" % ", ".join(
            sorted(n for n in names if not re.match(r"index\d+$", n)))
        return record
    used = sorted(names, key=lambda n: int(n[5:]))
    everything = ask["variables"]
    rank = ask["rank"]
    if rank == len(used) and (not ask["broadcast"] or used == everything):
        record["tile_variables"] = used
    elif ask["broadcast"] and rank == len(everything):
        record["tile_variables"] = everything
    else:
        record["why"] = "a tile of rank %d over %s of the kernel's %s" % (
            rank, used or "none", everything)
    return record


class Session:
    def __init__(self, checkout):
        self.checkout = os.path.realpath(checkout)
        self.scratch = tempfile.mkdtemp(prefix="npufuzz-pytorchsim-")
        self.calls = []    # (kernel source, arg names, [tensor args]), in order
        self.asks = []     # what Inductor asked of each DMA since the last kernel defined
        self.kernel_asks = {}  # kernel source -> the asks of its DMAs
        self.device = None
        self.wrapper = None  # the source of the last wrapper module loaded
        self.release = release_of(self.checkout)
        self.answers = None  # where it says ready, once set up (main)
        self._own_modules = None
        # PyTorchSim's code generation, when a campaign asks for its
        # coverage: set up before the first case imports it.
        self.measuring = compiler_coverage.CompilerCoverage(
            [("PyTorchSimFrontend", os.path.join(self.checkout, "PyTorchSimFrontend"))])

    def set_up(self):
        llvm = os.path.join(self.scratch, "llvm")
        os.makedirs(llvm)
        # v1.1.0 also builds a kernel's caller with the RISC-V GCC on PATH
        # (mlir_caller_codegen.compile_wih_kernel), for the simulators this
        # config turns off.
        for tool in ("mlir-opt", "mlir-translate", "llc", "riscv64-unknown-elf-gcc"):
            path = os.path.join(llvm, tool)
            with open(path, "w") as f:
                f.write(_STAND_IN)
            os.chmod(path, 0o755)
        os.environ["PATH"] = llvm + os.pathsep + os.environ.get("PATH", "")
        # PyTorchSim's default config, with functional (Spike) and timing
        # (TOGSim) simulation off: code generation alone.
        config_path = self.release.write_config(self.checkout, self.scratch)
        os.environ.update({
            "TORCHSIM_DIR": self.checkout,
            "TOGSIM_CONFIG": config_path,
            "TORCHSIM_LLVM_PATH": llvm,
            "TORCHSIM_DUMP_PATH": os.path.join(self.scratch, "dump"),
            "TORCHSIM_DUMP_LOG_PATH": os.path.join(self.scratch, "log"),
            "TORCHSIM_LOG_PATH": os.path.join(self.scratch, "log"),
            # Inductor's caches would hand back what an earlier case of
            # another adapter made; its files stay in this process's scratch.
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(self.scratch, "inductor"),
            "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1",
        })
        # PyTorchSim waits on each kernel's compile as on a future: it needs
        # Inductor's pool of compile threads, which one thread is not.
        if os.environ.get("TORCHINDUCTOR_COMPILE_THREADS") == "1":
            del os.environ["TORCHINDUCTOR_COMPILE_THREADS"]
        sys.path.insert(0, self.checkout)
        # PyTorchSim runs its LLVM tools (here, the stand-ins) from
        # Inductor's compile threads; CPython's vfork path has failed
        # there with EFAULT ("Bad address") now and then: plain fork.
        if hasattr(subprocess, "_USE_VFORK"):
            subprocess._USE_VFORK = False
        import torch
        torch.set_num_threads(1)
        # torch 2.8 compiles with caches off under `fresh_cache`, which on
        # any failure logs "on error, temporary cache dir kept at DIR": a
        # line of torch's about its cache, not PyTorchSim's failure, which
        # would otherwise sign every compile error alike.
        import logging
        logging.getLogger("torch._inductor.utils").setLevel(logging.ERROR)
        device = self.release.set_up_device(self.checkout)
        plant = os.environ.get("NPUFUZZ_PYTORCHSIM_PATCH")
        if plant:
            # A bug planted in PyTorchSim's code generation by a benchmark
            # (bench/compiler_time_to_bug.sh); never set otherwise. Loaded
            # before the recording, which then records what the planted
            # code generation writes.
            runpy.run_path(plant)
        self._pin_environment()
        self._record()
        # Set last: a setup that failed is tried again by the next case,
        # never skipped (a plant that did not load is no plant).
        self.device = device

    def _pin_environment(self):
        """PyTorchSim reads its setup from os.environ whenever it asks its
        config (extension_config's module __getattr__: the TOGSim config,
        whose functional mode decides whether a kernel is built for Spike,
        and the dump path), also from its compile threads. torch 2.8's
        `fresh_cache` clears and refills os.environ when a compile ends; a
        thread that read in between got PyTorchSim's defaults (the
        checkout's own config and directory): a kernel was then built for
        Spike with the stand-in tools, and its assembly looked for where
        none was written (a FileNotFoundError in parse_stack_sizes: the
        harness's, never PyTorchSim's). extension_config reads these
        variables from here; everything else from os.environ."""
        import collections.abc
        from PyTorchSimFrontend import extension_config
        session = self
        pinned = {name: os.environ[name] for name in (
            "TORCHSIM_DIR", "TOGSIM_CONFIG", "TORCHSIM_LLVM_PATH", "TORCHSIM_DUMP_LOG_PATH",
            "TORCHSIM_LOG_PATH")}

        class Environ(collections.abc.MutableMapping):
            def __getitem__(self, name):
                if name == "TORCHSIM_DUMP_PATH":
                    return session.dump_path
                return pinned[name] if name in pinned else os.environ[name]

            def __setitem__(self, name, value):
                os.environ[name] = value

            def __delitem__(self, name):
                del os.environ[name]

            def __iter__(self):
                return iter(sorted(set(os.environ) | set(pinned) | {"TORCHSIM_DUMP_PATH"}))

            def __len__(self):
                return len(set(os.environ) | set(pinned) | {"TORCHSIM_DUMP_PATH"})

        class Os:
            environ = Environ()

            def __getattr__(self, name):
                return getattr(os, name)
        extension_config.os = Os()
        self.dump_path = os.environ["TORCHSIM_DUMP_PATH"]

    def _record(self):
        from PyTorchSimFrontend import extension_codecache
        session = self
        original = extension_codecache.CustomAsyncCompile.mlir

        def mlir(self, source_code, *args, **kwargs):
            names = [name for name, _ in kwargs.get("arg_attributes", [])]
            run = original(self, source_code, *args, **kwargs)

            # Each call says which kernel it runs: a wrapper module torch
            # hands back from its cache for a graph seen before calls the
            # kernels it made then, without compiling them again.
            def call(*tensors, **more):
                session.calls.append((source_code, names, list(tensors)))
                return run(*tensors, **more)
            for attribute in ("arg_attributes", "future"):
                if hasattr(run, attribute):
                    setattr(call, attribute, getattr(run, attribute))
            return call
        extension_codecache.CustomAsyncCompile.mlir = mlir
        self._record_wrapper()
        self._record_asks()

    def _record_wrapper(self):
        """Keeps the source of the last wrapper module Inductor loads (the
        one whose call() runs PyTorchSim's kernels): read as it is loaded,
        since the wrapper file lives under the case's dump path, which the
        case's end removes, and since torch 2.8 compiles with caches off
        under `fresh_cache`, which restores os.environ and with it drops
        the TORCHSIM_LAST_COMPILED_MODULE the wrapper sets."""
        from torch._inductor.codecache import PyCodeCache
        session = self
        original = PyCodeCache.load_by_key_path.__func__

        def load_by_key_path(cls, key, path, *args, **kwargs):
            module = original(cls, key, path, *args, **kwargs)
            if hasattr(module, "custom_async_compile"):
                try:
                    with open(path) as f:
                        session.wrapper = f.read()
                except OSError:
                    session.wrapper = None
            return module
        PyCodeCache.load_by_key_path = classmethod(load_by_key_path)

    def _record_asks(self):
        """Records, for each DMA PyTorchSim's kernel code writes for a load
        or a store, what Inductor asked of it: the buffer, the index as the
        scheduler node gave it (over the kernel's iteration variables
        `index0`, ..., with Inductor's FloorDiv and ModularIndexing), and
        the variable each dimension of the DMA's tile runs over. npufuzz
        checks every slot of the tile against the index
        (backend/pytorchsim/KernelDmas.h, oracles/DmaMap.h).

        The DMA is the line `get_dma_code` returns inside the load or store;
        a kernel's asks are those made since the kernel defined before it
        (MLIRScheduling.define_kernel), whose line its source holds."""
        from PyTorchSimFrontend.mlir import mlir_codegen_backend as backend
        from PyTorchSimFrontend.mlir import mlir_scheduling as scheduling
        session = self
        asking = []  # the load or store being written, innermost last

        def wrap(method, broadcast):
            original = getattr(backend.MLIRKernel, method)

            def wrapper(kernel, name, index, *args, **kwargs):
                asking.append({"buffer": name, "index": index, "broadcast": broadcast,
                               "variables": [str(v) for v in kernel.itervars]})
                try:
                    return original(kernel, name, index, *args, **kwargs)
                finally:
                    asking.pop()
            setattr(backend.MLIRKernel, method, wrapper)
        wrap("load", True)
        wrap("store", True)
        wrap("store_reduction", False)

        original_info = backend.MLIRKernel.get_dma_info

        def get_dma_info(kernel, name, *args, **kwargs):
            result = original_info(kernel, name, *args, **kwargs)
            if asking and asking[-1]["buffer"] == name and "rank" not in asking[-1]:
                asking[-1]["rank"] = result[0].get_nr_dim()
            return result
        backend.MLIRKernel.get_dma_info = get_dma_info

        original_code = backend.MLIRKernel.get_dma_code

        def get_dma_code(kernel, *args, **kwargs):
            code = original_code(kernel, *args, **kwargs)
            if asking and "rank" in asking[-1] and "code" not in asking[-1]:
                asking[-1]["code"] = code
                session.asks.append(_ask_record(asking[-1]))
            return code
        backend.MLIRKernel.get_dma_code = get_dma_code

        original_define = scheduling.MLIRScheduling.define_kernel

        def define_kernel(scheduler, src_code, *args, **kwargs):
            mine = [a for a in session.asks if a["code"] in src_code]
            session.kernel_asks[src_code] = mine
            del session.asks[:]
            return original_define(scheduler, src_code, *args, **kwargs)
        scheduling.MLIRScheduling.define_kernel = define_kernel

    def commit(self):
        try:
            out = subprocess.run(["git", "-C", self.checkout, "rev-parse", "--short=12", "HEAD"],
                                 capture_output=True, text=True, timeout=30)
            return out.stdout.strip() or "(no git)"
        except (OSError, subprocess.SubprocessError):
            return "(no git)"

    def innermost(self, exc):
        """module.function of PyTorchSim's innermost frame, else Inductor's,
        else the innermost: no line numbers, which move between commits."""
        frames = traceback.extract_tb(exc.__traceback__)
        ours = [f for f in frames if os.path.realpath(f.filename).startswith(self.checkout + os.sep)]
        inductor = [f for f in frames if "/torch/_inductor/" in f.filename.replace(os.sep, "/")]
        chosen = ours or inductor or frames
        if not chosen:
            return "?"
        f = chosen[-1]
        return "%s.%s" % (os.path.splitext(os.path.basename(f.filename))[0], f.name)

    def own_modules(self):
        """The module names of PyTorchSim's Python files, read once: the
        checkout does not change under a running adapter."""
        if self._own_modules is None:
            self._own_modules = set()
            for top, _, files in os.walk(os.path.join(self.checkout, "PyTorchSimFrontend")):
                self._own_modules.update(os.path.splitext(f)[0] for f in files if f.endswith(".py"))
        return self._own_modules

    def failure(self, exc):
        """(status, headline) of an exception torch.compile raised."""
        root = _root_cause(exc)
        said = str(root).strip().splitlines()
        first = said[0] if said else ""
        import torch._dynamo.exc as dynamo_exc
        if isinstance(root, OSError) and str(getattr(root, "filename", "") or "").startswith(
                self.scratch + os.sep):
            # A stand-in tool of the adapter's own that did not start: the
            # machine (fork, memory), never PyTorchSim's.
            return ENVIRONMENT, "npufuzz pytorchsim adapter: a stand-in tool did not start: %s" % (
                _without_numbers(first)[:160])
        if isinstance(exc, (dynamo_exc.Unsupported, dynamo_exc.UserError)):
            return UNSUPPORTED, "dynamo cannot trace the program: " + first
        if isinstance(root, RuntimeError) and first.startswith("Unsupported scalar type"):
            # The npu device's fill_ (extension_device.cpp), when Inductor
            # folds a constant of another dtype on it at compile time.
            return UNSUPPORTED, "pytorchsim: the npu device's fill_ takes f32, i32 and i64 only"
        if isinstance(root, (ValueError, TypeError)) and first.startswith(
                ("Unsupported", "Not supporting", "Not supported")) and \
                self.innermost(root).split(".")[0] in self.own_modules():
            # PyTorchSim's own word that it does not take the op or type.
            return UNSUPPORTED, "pytorchsim: %s in %s: %s" % (
                type(root).__name__, self.innermost(root), _without_numbers(first)[:160])
        if isinstance(root, NotImplementedError):
            # PyTorchSim's own word, or torch's for an aten op the `npu`
            # device has no kernel of.
            m = re.search(r"Could not run '([^']+)' with arguments from the '(\w+)' backend", first)
            if m:
                return UNSUPPORTED, "pytorchsim: the %s device has no %s" % (m.group(2), m.group(1))
            return UNSUPPORTED, "pytorchsim: NotImplementedError in %s: %s" % (
                self.innermost(root), _without_numbers(first)[:160])
        return COMPILE_ERROR, "pytorchsim: %s in %s" % (type(root).__name__, self.innermost(root))

    def run_program(self, namespace, inputs):
        import torch
        import torch._dynamo
        from torch._inductor.codecache import PyCodeCache
        torch._dynamo.reset()
        # A wrapper module of an earlier case is not handed back: each case
        # is compiled, and its wrapper is the one loaded last.
        if hasattr(PyCodeCache, "cache"):  # torch 2.2
            PyCodeCache.cache.clear()
        else:
            PyCodeCache.cache_clear()
        self.wrapper = None
        kernel = namespace["kernel"]
        # runpy hands back a copy of the program's globals: its functions
        # read their own.
        kernel.__globals__["_DEV"] = self.device
        fn = torch.compile(kernel, fullgraph=True, dynamic=False)
        args = [t.to(self.device) for t in inputs]
        outs = fn(*args)
        return args, list(outs)

    def answer(self, case_dir):
        if self.device is None:  # the first case: set up for it
            marker = os.path.join(case_dir, SETTING_UP)
            open(marker, "w").close()
            try:
                self.set_up()
                # The start ends here: the case's own limit counts from now.
                if self.answers:
                    case_loop.say_ready(self.answers)
            except Exception as e:
                said = str(e).strip().splitlines()
                with open(os.path.join(case_dir, "stderr.txt"), "w") as f:
                    f.write("npufuzz pytorchsim adapter: PyTorchSim at %s does not set up: %s: %s\n"
                            % (self.checkout, type(e).__name__, said[0] if said else ""))
                    traceback.print_exc(file=f)
                return ENVIRONMENT
            os.remove(marker)
        program = os.path.join(case_dir, "program.py")
        if not os.path.isfile(program):
            with open(os.path.join(case_dir, "stderr.txt"), "w") as f:
                f.write("no program.py: the PyTorch emitter refused the case\n")
            return UNSUPPORTED
        with open(os.path.join(case_dir, "manifest.json")) as f:
            manifest = json.load(f)
        namespace = runpy.run_path(program, run_name="npufuzz_case")
        import torch
        dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                  "i8": torch.int8, "i32": torch.int32, "i64": torch.int64,
                  "index": torch.int64, "i1": torch.bool}
        inputs = [namespace["_load"](case_dir, t["file"], dtypes[t["dtype"]])
                  for t in manifest["inputs"]]
        self.dump_path = os.path.join(case_dir, "pytorchsim-dump")
        os.environ["TORCHSIM_DUMP_PATH"] = self.dump_path
        del self.calls[:]
        del self.asks[:]
        self.kernel_asks.clear()
        code, headline, details = 0, None, ""
        args, outs = [], []
        try:
            args, outs = self.run_program(namespace, inputs)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # PyTorchSim's code generation, under torch.compile
            # BaseException: PyTorchSim's RecompileSignal is one, and one that
            # escapes its retry loop is its failure, not the adapter's.
            code, headline = self.failure(e)
            details = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        shutil.rmtree(self.dump_path, ignore_errors=True)
        try:
            if code == 0:
                self.write_record(case_dir, args, outs)
            if details:
                with open(os.path.join(case_dir, "details.txt"), "w") as f:
                    f.write(details)
        except Exception as e:  # the adapter's own files: its environment
            code, headline = ENVIRONMENT, "npufuzz pytorchsim adapter: cannot record the run: %s: %s" % (
                type(e).__name__, e)
        with open(os.path.join(case_dir, "stderr.txt"), "w") as f:
            f.write(headline + "\n" if headline else "")
        self.measuring.write(case_dir)
        return code

    def write_record(self, case_dir, args, outs):
        """pytorchsim.json: each storage a kernel argument or a returned
        view lives in (the program's inputs first, by position), each call,
        each returned view."""
        storages, keys = [], {}

        def storage(t, role="temporary", index=-1):
            key = t.untyped_storage().data_ptr()
            if key not in keys:
                keys[key] = len(storages)
                storages.append({"role": role, "index": index,
                                 "bytes": t.untyped_storage().nbytes()})
            return keys[key]

        def place(t):
            return {"storage": storage(t),
                    "byte_offset": t.data_ptr() - t.untyped_storage().data_ptr(),
                    "element_bytes": t.element_size()}
        for k, t in enumerate(args):
            storage(t, "input", k)
        kernels, calls = [], []
        for source, names, tensors in self.calls:
            if source not in [k[0] for k in kernels]:
                kernels.append((source, names))
                with open(os.path.join(case_dir, "kernel%d.mlir" % (len(kernels) - 1)), "w") as f:
                    f.write(source)
            calls.append({"kernel": [k[0] for k in kernels].index(source),
                          "args": [place(t) for t in tensors]})
        views = []
        for k, t in enumerate(outs):
            p = place(t)
            s = storages[p["storage"]]
            if s["role"] == "temporary":
                s["role"], s["index"] = "output", k
            p.update({"shape": list(t.shape), "strides": list(t.stride())})
            views.append(p)
        record = {"kernels": [{"file": "kernel%d.mlir" % k, "args": names,
                               "dmas": self.kernel_asks.get(source, [])}
                              for k, (source, names) in enumerate(kernels)],
                  "storages": storages, "calls": calls, "outputs": views,
                  "fallbacks": self.fallbacks()}
        with open(os.path.join(case_dir, "pytorchsim.json"), "w") as f:
            json.dump(record, f, indent=1)

    def fallbacks(self):
        """What the last compiled wrapper's call() runs besides PyTorchSim's
        kernels (an aten op, an extern kernel): writes the trace does not
        see."""
        source = self.wrapper
        if source is None:
            return ["a wrapper npufuzz could not read"]
        body = source[source.find("def call(args):"):]
        body = body[:body.find("\ndef ", 1)]
        found = re.findall(r"\b((?:extern_kernels|aten|torch\.ops\.\w+)\.\w+(?:\.\w+)?)\(", body)
        return sorted(set(found))

    def check(self):
        """The canary: a one-op add reaches PyTorchSim's MLIR."""
        import torch
        namespace = {"kernel": lambda x, y: (x + y,)}
        self.run_program(namespace, [torch.ones(8, 64), torch.ones(8, 64)])
        if not self.calls or "memref.dma_start" not in self.calls[0][0]:
            raise RuntimeError("torch.compile on the npu device wrote no kernel with a DMA")
        return "pytorchsim %s %s torch %s" % (self.commit(), self.release.name, torch.__version__)


def main():
    answers = case_loop.answers_channel()
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    if len(args) != 2 or args[0] != "--pytorchsim":
        sys.stderr.write("usage: pytorchsim_server.py --pytorchsim DIR [--check]\n")
        return ENVIRONMENT
    try:
        session = Session(args[1])
    except ValueError as e:
        sys.stderr.write("npufuzz pytorchsim adapter: %s\n" % e)
        return ENVIRONMENT
    try:
        if check:
            try:
                session.set_up()
                version = session.check()
            except Exception as e:
                said = str(e).strip().splitlines()
                sys.stderr.write("npufuzz pytorchsim adapter: PyTorchSim at %s does not set up: "
                                 "%s: %s\n" % (args[1], type(e).__name__, said[0] if said else ""))
                traceback.print_exc()
                return ENVIRONMENT
            answers.write(version + "\n")
            return 0
        # Set up in the first case (Session.answer), so that a limit that
        # ends the setup is told apart from one that ends a case.
        # The case directory's files, as the other adapters: npufuzz's
        # environment, never a finding.
        session.answers = answers
        return case_loop.serve(answers, session.answer, "pytorchsim",
                               (OSError, KeyError, ValueError, SyntaxError), ready=False)
    finally:
        shutil.rmtree(session.scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
