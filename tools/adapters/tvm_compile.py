"""How `npufuzz --backend tvm` compiles and runs a case's kernel with Apache TVM.

The torch adapter (torch_server.py --compile tvm) runs each case's
program.py with torch.compile standing for this: the kernel is exported
with torch.export, imported into Relax by TVM's torch frontend
(from_exported_program), optimised by Relax's "zero" pipeline and built by
tvm.compile for the `llvm` target under the PassContext the case's switches
ask for, and run on TVM's CPU runtime (relax.VirtualMachine). Each step's failure is told apart: what
torch.export or TVM's frontend refuses is the case's (unsupported, never a
finding); an error after that is TVM's.
"""
import os
import re
import traceback

UNSUPPORTED = 77
COMPILE_ERROR = 78
RUNTIME_FAULT = 79

# Each TVM switch of backend/CompilerSwitches.def: the PassContext when it
# is on (TVM's default, as relax.build runs it), and when it is off.
# (opt_level, disabled passes, config)
SWITCH_CONTEXT = {
    "opt-level": ({"opt_level": 2}, {"opt_level": 0}),
    "fuse-ops": ({}, {"disabled_pass": ["FuseOps", "FuseTIR"]}),
    "fold-constant": ({}, {"disabled_pass": ["FoldConstant"]}),
    "memory-planning": ({}, {"disabled_pass": ["StaticPlanBlockMemory"]}),
    "vectorize": ({}, {"config": {"tirx.disable_vectorize": True}}),
    "storage-rewrite": ({}, {"config": {"tirx.disable_storage_rewrite": True}}),
    "cse": ({}, {"config": {"tirx.disable_cse_tir": True}}),
}


class Refused(Exception):
    """torch.export or TVM's frontend cannot take the program: the case is
    outside what the compiler accepts, not a bug of it."""


class Failed(Exception):
    """TVM failed on a program its frontend took: (status, headline)."""

    def __init__(self, status, headline):
        super().__init__(headline)
        self.status = status
        self.headline = headline


def pass_context_arguments(switches):
    """PassContext(**...) for a manifest's "switches"; an unknown name is
    the adapter's environment (OSError), never a finding."""
    arguments = {"opt_level": 2, "disabled_pass": [], "config": {}}
    for name, on in sorted(switches.items()):
        if name not in SWITCH_CONTEXT:
            raise OSError("manifest.json: unknown switch %r" % name)
        chosen = SWITCH_CONTEXT[name][0 if on else 1]
        arguments["opt_level"] = min(arguments["opt_level"], chosen.get("opt_level", 2))
        arguments["disabled_pass"] += chosen.get("disabled_pass", [])
        arguments["config"].update(chosen.get("config", {}))
    return arguments


def _without_numbers(text):
    # Temporaries, line numbers, shapes and addresses differ between cases
    # of one bug.
    return re.sub(r"0x[0-9a-fA-F]+|\d+", "N", text)


def _innermost_tvm_frame(exc):
    """module.function of TVM's innermost Python frame, without its line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "/tvm/" in f.filename.replace(os.sep, "/")]
    if not frames:
        return "?"
    f = frames[-1]
    return "%s.%s" % (os.path.splitext(os.path.basename(f.filename))[0], f.name)


def tvm_headline(stage, exc):
    """What signs a TVM failure: its stage, its type, and TVM's own check
    message (its first line, numbers and names of temporaries left out) or
    else the innermost TVM frame; never a line number."""
    said = [l.strip() for l in str(exc).splitlines() if l.strip()]
    checks = [l for l in said if "Check failed" in l or l.startswith(("InternalError", "TVMError"))]
    at = said.index((checks or said or [""])[0]) if said else 0
    message = said[at] if said else ""
    if message.endswith(":") and at + 1 < len(said):
        # "LLVM module verification failed with the following errors:"
        message += " " + said[at + 1]
    # C++ frames TVM prints before the message: "File ..., line N, in ..."
    message = re.sub(r"^.*?\.(cc|h):\d+: ", "", message)
    # Its first sentence: what follows names the case's own values and
    # shapes ("However, R.floor_divide(lv30, ...) uses ...").
    message = re.split(r"(?<=[.!])\s\s|(?<=[.!])\s+However", message)[0]
    if len(message) > 160:
        message = message[:160]
    where = message if message else _innermost_tvm_frame(exc)
    return "tvm %s: %s: %s" % (stage, type(exc).__name__, _without_numbers(where))


def _frontend_refuses(exc):
    """Whether an exception of from_exported_program is its way of saying an
    op or form is not supported (the case's), as opposed to a failure on an
    op it claims (TVM's)."""
    text = str(exc)
    return (isinstance(exc, (NotImplementedError, KeyError)) or
            "Unsupported function type" in text or "is not supported" in text or
            "not supported" in text.lower() and isinstance(exc, (ValueError, AssertionError)))


def _reads_pool_indices(exported):
    """Whether the exported program uses the indices of a max pool. TVM's
    torch frontend computes a max pool's values only, and gives its indices
    as a placeholder of zeros (base_fx_graph_translator.py,
    _max_pool2d_with_indices: "We only compute the output and create a
    placeholder for indices"): a program that reads them is one the frontend
    does not take, though it says nothing."""
    import operator
    for node in exported.graph.nodes:
        if node.op != "call_function" or "max_pool2d_with_indices" not in str(node.target):
            continue
        for user in node.users:
            if user.target is operator.getitem and user.args[1] == 1 and user.users:
                return True
    return False


def _has_integer_convolution(exported):
    """Whether the exported program convolves integers. TVM's torch
    frontend gives every conv2d out_dtype="float32" (_conv2d_impl), so an
    integer convolution comes back as floats: silently another program
    (reported as mlc-ai/relax#165, closed unmerged)."""
    for node in exported.graph.nodes:
        if node.op != "call_function" or "conv" not in str(node.target):
            continue
        value = node.meta.get("val")
        if value is not None and hasattr(value, "dtype") and not value.dtype.is_floating_point:
            return True
    return False


class Compiled:
    """A kernel built by TVM, called as the compiled kernel would be."""

    def __init__(self, kernel, context_arguments, on_running):
        self.kernel = kernel
        self.context_arguments = context_arguments
        self.on_running = on_running
        self.vm = None

    def _build(self, args):
        import torch
        import tvm
        from tvm import relax
        from tvm.relax.frontend.torch import from_exported_program

        kernel = self.kernel

        class Kernel(torch.nn.Module):
            def forward(self, *inputs):
                return kernel(*inputs)

        try:
            exported = torch.export.export(Kernel(), tuple(args))
        except Exception as e:
            said = str(e).splitlines()
            raise Refused("torch.export cannot trace the program: " +
                          (said[0] if said else type(e).__name__))
        if _reads_pool_indices(exported):
            raise Refused("tvm's torch frontend computes no max_pool2d indices (a placeholder "
                          "of zeros)")
        if _has_integer_convolution(exported):
            raise Refused("tvm's torch frontend makes every conv2d's result float32")
        try:
            module = from_exported_program(exported)
        except Exception as e:
            if _frontend_refuses(e):
                said = str(e).splitlines()
                raise Refused("tvm's torch frontend refuses the program: " +
                              _without_numbers(said[0] if said else type(e).__name__))
            raise Failed(COMPILE_ERROR, tvm_headline("import", e))
        try:
            # As TVM's end-to-end tutorial optimises a model: the "zero"
            # pipeline (legalization, constant folding, operator fusion),
            # then tvm.compile, whose default pipeline on a CPU fuses
            # nothing by itself.
            with tvm.transform.PassContext(**self.context_arguments):
                optimised = relax.get_pipeline("zero")(module)
                executable = tvm.compile(optimised, target="llvm")
            self.vm = relax.VirtualMachine(executable, tvm.cpu())
        except Exception as e:
            raise Failed(COMPILE_ERROR, tvm_headline("build", e))
        self.module = module

    def __call__(self, *args):
        import torch
        import tvm
        if self.vm is None:
            self._build(args)
        # Built: a crash from here on is the module's, which npufuzz traces
        # to the op that first goes wrong (docs/external-backends.md).
        self.on_running()
        try:
            # TVM takes only storage aligned as its allocator aligns (64
            # bytes), which a tensor from numpy need not be; torch's
            # allocator's is.
            results = self.vm["main"](*[tvm.runtime.from_dlpack(
                torch.empty(a.shape, dtype=a.dtype).copy_(a)) for a in args])
        except Exception as e:
            raise Failed(RUNTIME_FAULT, tvm_headline("runtime", e))
        if not isinstance(results, (list, tuple)) and not hasattr(results, "__len__"):
            results = [results]
        return tuple(torch.from_dlpack(r).clone() for r in results)
