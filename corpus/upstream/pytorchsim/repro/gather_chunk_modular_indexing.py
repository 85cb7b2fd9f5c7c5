#!/usr/bin/env python3
"""A bug of PyTorchSim's code generation, as npufuzz found and reduced it.

From: corpus/upstream/pytorchsim/gather_chunk_modular_indexing.npf

Run it with the Python PyTorchSim runs in (its pinned torch), naming
the checkout: python3 repro.py /path/to/PyTorchSim (or set TORCHSIM_DIR).
kernel() below is the case's program as a model writes it, on the
device in _DEV; its inputs are embedded. The script compiles kernel()
with torch.compile on PyTorchSim's npu device (its default config,
functional and timing simulation off: code generation alone) and
exits 1 when the code generation raises or when a kernel it wrote is
not valid MLIR (upstream mlir-opt: $MLIR_OPT, else mlir-opt-22 or
mlir-opt on PATH, on the kernel with its memref.dma_start ops in
MLIR's generic form), 0 when neither, 2 when PyTorchSim, torch or
mlir-opt is missing or PyTorchSim says it does not take the program.
No values are compared: no simulator runs.
"""
import os
import sys

import base64
import io
import json
import re
import shutil
import subprocess
import tempfile
import traceback

# PyTorchSim v1.1.0's npu device (torch_openreg), which `import torch`
# loads, reads its environment then (and fails without TORCHSIM_DIR):
# the checkout and the scratch paths are set before it.
_CHECKOUT = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else
                             os.environ.get("TORCHSIM_DIR", ""))
_SCRATCH = tempfile.mkdtemp(prefix="pytorchsim-repro-")
os.environ.update({
    "TORCHSIM_DIR": _CHECKOUT,
    "TORCHSIM_LLVM_PATH": os.path.join(_SCRATCH, "llvm"),
    "TORCHSIM_DUMP_PATH": os.path.join(_SCRATCH, "dump"),
    "TORCHSIM_DUMP_LOG_PATH": os.path.join(_SCRATCH, "log"),
    "TORCHSIM_LOG_PATH": os.path.join(_SCRATCH, "log"),
    "TORCHINDUCTOR_CACHE_DIR": os.path.join(_SCRATCH, "inductor"),
    "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"})
try:
    import numpy as np
    import torch
except ImportError as e:  # nothing to show without them
    print("a module the script needs is not installed (%s)" % e)
    sys.exit(2)

_DEV = None


_fmax = torch.maximum
_fmin = torch.minimum


def kernel(v0, v4):
    v1 = torch.chunk(v0, 4, dim=1)[2]
    v2 = v1.reshape([16])
    v3 = v2 - v2
    v5 = torch.gather(v3, 0, v4.to(torch.int64).clamp(0, 15))
    return (v5, )


# (dtype, the .npy bytes; bf16 as f32, exact)
_INPUTS = [
    ("float16", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGYyJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDMyKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="),
    ("int64", "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoLAAAAAAAAAAwAAAAAAAAA"),
]


def _array(text):
    return np.load(io.BytesIO(base64.b64decode(text)))


def _set_up(checkout, scratch):
    """PyTorchSim's npu device, code generation alone, and the list each
    kernel it writes is appended to."""
    llvm = os.environ["TORCHSIM_LLVM_PATH"]
    os.makedirs(llvm)
    # Its LLVM fork's tools and (v1.1.0) its RISC-V GCC: not needed to write MLIR.
    for tool in ("mlir-opt", "mlir-translate", "llc", "riscv64-unknown-elf-gcc"):
        path = os.path.join(llvm, tool)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(path, 0o755)
    os.environ["PATH"] = llvm + os.pathsep + os.environ.get("PATH", "")
    # Master v1.1.0 (torch 2.8): the torch_openreg device, YAML configs; the
    # torch 2.2 line: a C++ extension device, JSON configs.
    openreg = os.path.isfile(os.path.join(checkout, "PyTorchSimDevice", "torch_openreg",
                                          "__init__.py"))
    if openreg:
        import yaml
        load, dump, suffix = yaml.safe_load, yaml.safe_dump, ".yml"
    else:
        load, dump, suffix = json.load, json.dump, ".json"
    config_path = os.path.join(scratch, "togsim" + suffix)
    with open(os.path.join(checkout, "configs",
                           "systolic_ws_128x128_c1_simple_noc_tpuv3" + suffix)) as f:
        config = load(f)
    config["pytorchsim_functional_mode"] = 0
    config["pytorchsim_timing_mode"] = 0
    with open(config_path, "w") as f:
        dump(config, f)
    os.environ["TOGSIM_CONFIG"] = config_path  # read when a kernel is compiled
    sys.path.insert(0, checkout)
    from PyTorchSimFrontend import extension_codecache
    if openreg:
        device = torch.npu.custom_device()
    else:
        from Scheduler.scheduler import PyTorchSimRunner
        device = PyTorchSimRunner.setup_device().custom_device()
    kernels = []
    original = extension_codecache.CustomAsyncCompile.mlir

    def mlir(self, source_code, *args, **kwargs):
        if source_code not in kernels:
            kernels.append(source_code)
        return original(self, source_code, *args, **kwargs)
    extension_codecache.CustomAsyncCompile.mlir = mlir
    return device, kernels


class _Cursor:
    """A reader of one dma_start's text; ValueError when it is not in
    PyTorchSim's form."""

    def __init__(self, text, at):
        self.s, self.at = text, at

    def skip(self):
        while self.at < len(self.s) and self.s[self.at].isspace():
            self.at += 1

    def maybe(self, ch):
        self.skip()
        if self.s.startswith(ch, self.at):
            self.at += 1
            return True
        return False

    def eat(self, ch):
        if not self.maybe(ch):
            raise ValueError("expected %r at %d" % (ch, self.at))

    def value(self):
        self.skip()
        m = re.compile(r"%[\w$.-]+").match(self.s, self.at)
        if not m:
            raise ValueError("expected a value at %d" % self.at)
        self.at = m.end()
        return m.group(0)

    def indexed(self):
        base, indices = self.value(), []
        self.eat("[")
        if not self.maybe("]"):
            indices.append(self.value())
            while self.maybe(","):
                indices.append(self.value())
            self.eat("]")
        return base, indices

    def type(self):
        """A type up to the next , { or newline outside <>."""
        self.skip()
        start, depth = self.at, 0
        while self.at < len(self.s):
            ch = self.s[self.at]
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
            elif depth == 0 and ch in ",{\n":
                break
            self.at += 1
        t = self.s[start:self.at].rstrip()
        if not t or depth:
            raise ValueError("expected a type at %d" % start)
        return t

    def dictionary(self):
        """A balanced {...} when one follows, else ''."""
        before = self.at
        self.skip()
        start, depth = self.at, 0
        while self.s.startswith("{", start) and self.at < len(self.s):
            ch = self.s[self.at]
            self.at += 1
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth == 0:
                return self.s[start:self.at]
        self.at = before
        return ""


def _generic_dma_starts(kernel):
    """The kernel with each `memref.dma_start` in MLIR's generic form, which
    upstream parses (PyTorchSim writes a custom form with its attributes
    after the types, which only its LLVM fork reads); line numbers kept."""
    name, out, copied = "memref.dma_start", [], 0
    at = kernel.find(name)
    while at != -1:
        after = at + len(name)
        line_start = kernel.rfind("\n", 0, at) + 1
        if "//" in kernel[line_start:at] or (
                after < len(kernel) and (kernel[after].isalnum() or kernel[after] == "_")):
            at = kernel.find(name, after)
            continue
        c = _Cursor(kernel, after)
        operands, types = [], []

        def add(values, value_type):
            operands.extend(values)
            types.extend([value_type] * len(values))
        src, src_indices = c.indexed()
        c.eat(",")
        dst, dst_indices = c.indexed()
        c.eat(",")
        kind = c.value()
        c.eat(",")
        tag, tag_indices = c.indexed()
        c.eat(",")
        axis = c.value()
        c.eat(",")
        vstride = c.value()
        c.eat(":")
        src_type = c.type()
        c.eat(",")
        dst_type = c.type()
        c.eat(",")
        tag_type = c.type()
        attributes = c.dictionary().replace("\n", " ")
        add([src], src_type)
        add(src_indices, "index")
        add([dst], dst_type)
        add(dst_indices, "index")
        add([kind], "index")
        add([tag], tag_type)
        add(tag_indices, "index")
        add([axis, vstride], "index")
        out.append(kernel[copied:at])
        out.append('"memref.dma_start"(%s)%s : (%s) -> ()%s' % (
            ", ".join(operands), " " + attributes if attributes else "", ", ".join(types),
            "\n" * kernel.count("\n", at, c.at)))
        copied = at = c.at
        at = kernel.find(name, at)
    out.append(kernel[copied:])
    return "".join(out)


def _mlir_opt():
    """$MLIR_OPT when set (None when it is not a program), else upstream
    MLIR 22's mlir-opt-22 or an mlir-opt on PATH."""
    if os.environ.get("MLIR_OPT"):
        return shutil.which(os.environ["MLIR_OPT"])
    return shutil.which("mlir-opt-22") or shutil.which("mlir-opt")


def _root_cause(exc):
    """The exception torch.compile's wrappers were raised for."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        inner = getattr(exc, "inner_exception", None) or exc.__cause__ or exc.__context__
        if inner is None or type(exc).__name__ not in (
                "InductorError", "LoweringException", "BackendCompilerFailed"):
            return exc
        exc = inner
    return exc


def _not_supported(exc):
    """Whether PyTorchSim or torch says it does not take the program (its
    NotImplementedError, an "Unsupported ..." error, dynamo refusing to
    trace it): no bug the script can show."""
    import torch._dynamo.exc as dynamo_exc
    root = _root_cause(exc)
    said = str(root).strip()
    return (isinstance(exc, (dynamo_exc.Unsupported, dynamo_exc.UserError)) or
            isinstance(root, NotImplementedError) or
            said.startswith(("Unsupported", "Not supporting", "Not supported")))


def main():
    checkout = _CHECKOUT
    if not os.path.isfile(os.path.join(checkout, "PyTorchSimFrontend", "extension_codecache.py")):
        print("name a PyTorchSim checkout: python3 %s DIR, or TORCHSIM_DIR" % sys.argv[0])
        return 2
    mlir_opt = _mlir_opt()
    if mlir_opt is None:
        print("no mlir-opt of upstream MLIR: set MLIR_OPT to one, or put mlir-opt-22 on PATH")
        return 2
    # PyTorchSim waits on each kernel's compile as on a future: it needs
    # Inductor's pool of compile threads, which one thread is not.
    if os.environ.get("TORCHINDUCTOR_COMPILE_THREADS") == "1":
        del os.environ["TORCHINDUCTOR_COMPILE_THREADS"]
    scratch = _SCRATCH
    try:
        try:
            device, kernels = _set_up(checkout, scratch)
        except Exception:
            traceback.print_exc()
            print("PyTorchSim at %s does not set up" % checkout)
            return 2
        global _DEV
        _DEV = device
        try:
            args = [torch.from_numpy(_array(data)).to(getattr(torch, dtype)).to(device)
                    for dtype, data in _INPUTS]
            torch.compile(kernel, fullgraph=True, dynamic=False)(*args)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # PyTorchSim's RecompileSignal is one
            traceback.print_exc()
            if isinstance(_root_cause(e), OSError):
                print("a program PyTorchSim runs did not start: not the bug")
                return 2
            if _not_supported(e):
                print("PyTorchSim does not take this program: the bug cannot show")
                return 2
            print("PyTorchSim's code generation failed: the bug shows")
            return 1
        for k, source in enumerate(kernels):
            path = os.path.join(scratch, "kernel%d.mlir" % k)
            try:
                generic = _generic_dma_starts(source)
            except ValueError as e:  # a form this script does not know
                print("kernel %d: a memref.dma_start not in PyTorchSim's known form (%s)" % (k, e))
                return 2
            with open(path, "w") as f:
                f.write(generic)
            p = subprocess.run([mlir_opt, path, "-o", os.devnull], capture_output=True, text=True,
                               timeout=600)
            if p.returncode != 0:
                print(p.stderr.strip())
                print("kernel %d, as PyTorchSim wrote it:\n%s" % (k, source))
                print("MLIR rejects a kernel PyTorchSim wrote: the bug shows")
                return 1
        print("PyTorchSim wrote %d kernel(s), each valid MLIR: the bug does not show" % len(kernels))
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
