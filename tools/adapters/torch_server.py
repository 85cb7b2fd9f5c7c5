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

With `--compile inductor` (npufuzz --backend inductor) each program runs its
kernel under torch.compile(fullgraph=True, dynamic=False) through Inductor
on the CPU, or dynamic=True when the case's static_shapes switch is off.
With its freezing switch on, the case's weights (manifest.json's inputs
marked "weight") are a module's parameters, compiled under no_grad.
A failure of the compiler is answered with one headline on the
case's stderr, which npufuzz signs, and the traceback in DIR/details.txt;
DIR/details.txt also gets the code Inductor generated, which a finding
keeps. A failure of the adapter itself (a file it cannot write) is answered
with status 80: npufuzz's environment, never a finding.

With `--compile tvm` (npufuzz --backend tvm) the kernel goes through Apache
TVM instead (tvm_compile.py): torch.export, Relax's torch frontend,
relax.build for `llvm`, TVM's CPU runtime.
"""
import json
import os
import re
import runpy
import sys
import traceback

import case_loop
import compiler_coverage
import tvm_compile

UNSUPPORTED = 77  # the protocol's exit status for "cannot express the case"
COMPILE_ERROR = 78  # the toolchain rejected the program
ENVIRONMENT = 80  # the adapter could not run the case at all


def _innermost_frame(exc):
    """module.function where a compiler error was raised, without line
    numbers, which move from release to release: the innermost frame of code
    loaded into torch from outside any installed package (a patch or plugin
    of the user's), else the innermost of Inductor's own, else the innermost."""
    frames = traceback.extract_tb(exc.__traceback__)
    paths = [f.filename.replace(os.sep, "/") for f in frames]
    foreign = [f for f, p in zip(frames, paths)
               if "/site-packages/" not in p and "/lib/python" not in p
               and not p.startswith("<") and os.path.basename(p) != "program.py"]
    inductor = [f for f, p in zip(frames, paths) if "/torch/_inductor/" in p]
    chosen = foreign or inductor or frames
    if not chosen:
        return "?"
    f = chosen[-1]
    return "%s.%s" % (os.path.splitext(os.path.basename(f.filename))[0], f.name)


def _root_cause(exc):
    """The exception the wrappers (InductorError, LoweringException,
    BackendCompilerFailed) were raised for."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        # LoweringException is raised `from None`: its cause is its context.
        inner = getattr(exc, "inner_exception", None) or exc.__cause__ or exc.__context__
        if inner is None or type(exc).__name__ not in (
                "InductorError", "LoweringException", "BackendCompilerFailed"):
            return exc
        exc = inner
    return exc


def _without_numbers(text):
    # Temporaries, line numbers and sizes differ between cases of one bug.
    return re.sub(r"0x[0-9a-fA-F]+|\d+", "N", text)


# run_case's status for a case whose kernel Inductor's cache held broken
# (removed): run it once more. Never an answer on the protocol.
CACHE_REPAIRED = -1


def _remove_broken_cache_entry(root):
    """Whether `root` is a kernel of Inductor's on-disk cache that cannot be
    loaded because it is not whole, now removed.

    A compile killed while it wrote its library (a case's time or memory
    limit, a campaign interrupted) can leave an empty or cut `.so` under
    the cache directory every adapter on the machine shares; any later case
    whose kernel hashes the same then fails to load it ("file too short").
    That is the machine's state, not the compiler's answer to the case."""
    if not isinstance(root, ImportError):
        return False
    match = re.match(r"(/\S+\.so): (file too short|invalid ELF header)", str(root))
    if not match:
        return False
    try:
        from torch._inductor.runtime.cache_dir_utils import cache_dir
        path, cache = os.path.realpath(match.group(1)), os.path.realpath(cache_dir())
    except (ImportError, OSError):
        return False
    if os.path.commonpath([path, cache]) != cache:
        return False
    try:
        os.remove(path)
    except FileNotFoundError:
        pass  # another adapter removed it first
    except OSError:
        return False
    return True


def compile_failure(exc):
    """(exit status, headline) for an exception torch.compile raised while
    compiling, or None for one the compiled code raised when it ran."""
    try:
        import torch._dynamo.exc as dynamo_exc
        from torch._inductor.exc import CppCompileError
    except ImportError:
        return None
    root = _root_cause(exc)
    if _remove_broken_cache_entry(root):
        return CACHE_REPAIRED, "a kernel in Inductor's cache was not whole: " + str(root)
    if isinstance(root, CppCompileError):
        errors = [l for l in str(root).splitlines() if "error:" in l]
        first = errors[0].split("error:", 1)[1].strip() if errors else type(root).__name__
        return COMPILE_ERROR, "inductor: generated C++ does not compile: " + _without_numbers(first)
    if isinstance(exc, (dynamo_exc.Unsupported, dynamo_exc.UserError)):
        # torch.compile's tracer cannot take the program whole: npufuzz's
        # program is outside what fullgraph=True accepts, not a compiler bug.
        said = str(exc).splitlines()
        return UNSUPPORTED, "dynamo cannot trace the program: " + (said[0] if said else
                                                                    type(exc).__name__)
    names = {type(e).__name__ for e in (exc, getattr(exc, "inner_exception", None),
                                        exc.__cause__) if e is not None}
    if names & {"InductorError", "LoweringException", "BackendCompilerFailed"}:
        return COMPILE_ERROR, "inductor: %s in %s" % (
            type(root).__name__, _innermost_frame(root))
    return None


# The code Inductor generated (its output wrapper, holding the C++ kernels),
# in order: GraphLowering.save_output_code is called for every graph it
# compiles and for every one its cache hands back.
_generated_code = []


def _record_generated_code():
    try:
        from torch._inductor.graph import GraphLowering
    except ImportError:
        return
    GraphLowering.save_output_code = _generated_code.append


# Each switch of backend/CompilerSwitches.def: Inductor's config when it is
# on, and when it is off.
SWITCH_CONFIG = {
    "prologue_fusion": ({"prologue_fusion": True}, {"prologue_fusion": False}),
    "epilogue_fusion": ({"epilogue_fusion": True}, {"epilogue_fusion": False}),
    "pattern_matcher": ({"pattern_matcher": True}, {"pattern_matcher": False}),
    "loop_ordering_after_fusion": ({"loop_ordering_after_fusion": True},
                                   {"loop_ordering_after_fusion": False}),
    "fusion": ({"max_fusion_size": 64}, {"max_fusion_size": 1}),
    # No vector ISA has 1 bit: scalar kernels (cpu_vec_isa.pick_vec_isa).
    "cpp_vectorization": ({"cpp.simdlen": None}, {"cpp.simdlen": 1}),
    "split_reductions": ({"split_reductions": True}, {"split_reductions": False}),
    # On, the case's weights are also a module's parameters (_Compiling).
    "freezing": ({"freezing": True}, {"freezing": False}),
    # Templates are chosen over ATen's kernels without timing them
    # (_template_first): the choice never depends on the machine's load.
    "max_autotune": ({"max_autotune": True, "max_autotune_gemm_backends": "ATEN,CPP"},
                     {"max_autotune": False}),
    "cpp_wrapper": ({"cpp_wrapper": True}, {"cpp_wrapper": False}),
    # Not a config key: off, torch.compile gets dynamic=True (_Compiling).
    "static_shapes": ({}, {}),
    # One config key, numerics, of the two (inductor_config).
    "default_pointwise_numerics": ({}, {}),
    "default_reduction_numerics": ({}, {}),
}

# torch._inductor.config.numerics of the two numerics switches' states
# (pointwise on, reduction on): strict in what each one off asks for.
NUMERICS = {
    (True, True): "default",
    (False, True): "strict_pointwise",
    (True, False): "strict_reduction",
    (False, False): "strict",
}


def inductor_config(manifest):
    """The Inductor config manifest.json's "switches" ask for, and whether
    sizes are compiled as symbols (the static_shapes switch off)."""
    switches = manifest.get("switches", {})
    patch = {}
    for name, on in sorted(switches.items()):
        if name not in SWITCH_CONFIG:
            raise OSError("manifest.json: unknown switch %r" % name)
        patch.update(SWITCH_CONFIG[name][0 if on else 1])
    numerics = NUMERICS[(switches.get("default_pointwise_numerics", True),
                         switches.get("default_reduction_numerics", True))]
    if numerics != "default":
        patch["numerics"] = numerics
    return patch, not switches.get("static_shapes", True)


def weight_positions(manifest):
    """The positions of kernel()'s arguments a model holds as its weights
    (manifest.json's inputs marked "weight")."""
    return [k for k, tensor in enumerate(manifest.get("inputs", [])) if tensor.get("weight")]


def _template_first(choices):
    """max-autotune's choices for one matmul, less all but one: the first
    template if there is one (the C++ GEMM template), else the first of
    ATen's. One choice is taken without being timed, so which kernel runs
    depends on the case alone, never on how busy the machine is."""
    from torch._inductor.select_algorithm import ExternKernelCaller
    templates = [c for c in choices if not isinstance(c, ExternKernelCaller)]
    return (templates or choices)[:1]


def _with_weights(torch, compile, kernel, weights, options):
    """kernel(*args) compiled as an inference model runs it: the arguments
    at `weights` are the parameters of a module (buffers, if integers),
    compiled under torch.no_grad(), where freezing folds them in as
    constants. Each call compiles afresh: frozen weights are one call's."""
    names = [(k, "w%d" % k) for k in weights]

    class Model(torch.nn.Module):
        def __init__(self, args):
            super().__init__()
            for k, name in names:
                if args[k].is_floating_point():
                    self.register_parameter(
                        name, torch.nn.Parameter(args[k], requires_grad=False))
                else:
                    self.register_buffer(name, args[k])

        def forward(self, *activations):
            args = list(activations)
            # In increasing order: each lands at its place. The names are
            # constants: dynamo formats no string with a symbolic int.
            for k, name in names:
                args.insert(k, getattr(self, name))
            return kernel(*args)

    def run(*args):
        import torch._dynamo
        torch._dynamo.reset()
        with torch.no_grad():
            model = compile(Model(args).eval(), **options)
            return model(*[a for k, a in enumerate(args) if k not in weights])
    return run


class _Compiling:
    """Inductor's config patch while a case's main() runs, and with sizes
    as symbols, torch.compile(kernel, ..., dynamic=True) in place of the
    program's dynamic=False: the program stays the one every backend runs.
    With freezing on, the case's weights are a module's parameters
    (_with_weights); with max-autotune on, templates come first
    (_template_first)."""

    def __init__(self, manifest):
        import torch
        import torch._inductor.config as config
        self.torch = torch
        patch, self.dynamic = inductor_config(manifest)
        self.weights = weight_positions(manifest) if patch.get("freezing") else []
        self.autotune = bool(patch.get("max_autotune"))
        self.patch = config.patch(patch)

    def compile(self, kernel, **options):
        if self.dynamic:
            options["dynamic"] = True
        if self.weights:
            return _with_weights(self.torch, self.saved, kernel, self.weights, options)
        return self.saved(kernel, **options)

    def __enter__(self):
        self.patch.__enter__()
        if self.autotune:
            from torch._inductor import select_algorithm
            select_algorithm.add_preprocessing_fn(_template_first)
        self.saved = self.torch.compile
        self.torch.compile = self.compile
        return self

    def __exit__(self, *exc):
        self.torch.compile = self.saved
        if self.autotune:
            from torch._inductor import select_algorithm
            select_algorithm.clear_preprocessing_fns()  # the defaults stay
        return self.patch.__exit__(*exc)


def _trust_known_vector_isas():
    """Lets Inductor skip its probe of the CPU's vector ISAs when an earlier
    adapter on this machine ran it and every ISA the CPU reports passed.

    Inductor checks each ISA by building a probe and loading it in a fresh
    Python (about 4 s each, once per process). npufuzz starts an adapter per
    worker and per triage child (confirmation, generalisation, reduction),
    so the probe was most of a finding's cost. Its verdict is a property of
    the machine, the compiler and torch: kept in the virtual environment,
    keyed by all three. A key that does not match, or an ISA that failed,
    leaves Inductor to probe as it always does."""
    import hashlib
    import shutil
    import torch
    try:  # internals of Inductor: another torch may not have them
        from torch._inductor import config, cpu_vec_isa
        from torch._inductor.cpp_builder import get_cpp_compiler
    except ImportError:
        return
    if config.cpp.vec_isa_ok is not None:
        return  # the user decided (TORCHINDUCTOR_VEC_ISA_OK)
    try:
        compiler = os.path.realpath(shutil.which(get_cpp_compiler()))
        with open("/proc/cpuinfo") as f:  # x86's "flags", Arm's "Features"
            flags = sorted({line for line in f if line.startswith(("flags", "Features"))})
        key = hashlib.sha256(json.dumps(
            [torch.__version__, compiler, os.stat(compiler).st_mtime, flags]).encode()).hexdigest()
    except Exception:
        return
    path = os.path.join(sys.prefix, "npufuzz-vector-isas.json")
    try:
        with open(path) as f:
            kept = json.load(f)
    except (OSError, ValueError):
        kept = None
    if isinstance(kept, dict) and kept.get("key") == key:
        config.cpp.vec_isa_ok = True  # every ISA the CPU reports
        if [str(isa) for isa in cpu_vec_isa.valid_vec_isa_list()] == kept.get("passed"):
            return
        config.cpp.vec_isa_ok = None  # one of them failed its probe here
        cpu_vec_isa.valid_vec_isa_list.cache_clear()
    passed = [str(isa) for isa in cpu_vec_isa.valid_vec_isa_list()]
    try:
        temporary = "%s.%d" % (path, os.getpid())  # workers write at once
        with open(temporary, "w") as f:
            json.dump({"key": key, "passed": passed}, f)
        os.replace(temporary, path)
    except OSError:
        pass  # a read-only environment probes in every adapter


# The last compiled program, kept while the next case is the same program
# with the same switches on other data (npufuzz's padding variant reruns a
# case so): its kernel is not compiled again, as the in-process backend
# reuses its compiled code. Any other case starts from a reset compiler.
_kept = {"key": None, "namespace": None, "tvm": None}


def _forget_compiled():
    import torch._dynamo
    torch._dynamo.reset()  # frees the last compile
    _kept["key"], _kept["namespace"], _kept["tvm"] = None, None, None


class _TvmInPlaceOfTorchCompile:
    """While a case's main() runs, torch.compile(kernel, ...) builds the
    kernel with TVM: the program stays the one every backend runs."""

    def __init__(self, case_dir, manifest):
        import torch
        self.torch = torch
        self.arguments = tvm_compile.pass_context_arguments(manifest.get("switches", {}))
        self.case_dir = case_dir
        self.compiled = None  # the kept program's, when run_case hands it over

    def _running(self):
        open(os.path.join(self.case_dir, "running"), "w").close()

    def compile(self, kernel, **_):
        if self.compiled is None or self.compiled.kernel is not kernel:
            self.compiled = tvm_compile.Compiled(kernel, self.arguments, self._running)
        self.compiled.on_running = self._running
        return self.compiled

    def __enter__(self):
        self.saved = self.torch.compile
        self.torch.compile = self.compile
        return self

    def __exit__(self, *_):
        self.torch.compile = self.saved


def run_case(case_dir, compiling):
    """Runs DIR/program.py in this process: its exit status, a compiler
    failure's headline (or None), and what a finding keeps of it.
    `compiling`: None (eager torch), "inductor" or "tvm"."""
    program = os.path.join(case_dir, "program.py")
    if not os.path.isfile(program):
        sys.stderr.write("no program.py: the PyTorch emitter refused the case\n")
        return UNSUPPORTED, None, []
    # Outside the try: a bad manifest is the adapter's environment. Read
    # once: the compile's switches and weights, and the kept program's key.
    manifest = None
    if compiling:
        with open(os.path.join(case_dir, "manifest.json")) as m:
            manifest = json.load(m)
    if compiling == "inductor":
        config_patch = _Compiling(manifest)
    elif compiling == "tvm":
        config_patch = _TvmInPlaceOfTorchCompile(case_dir, manifest)
    old_argv = sys.argv
    sys.argv = [program, case_dir]
    generated_before = len(_generated_code)
    code, headline, details = 0, None, []
    key = None
    if compiling:
        with open(program) as f:
            key = (f.read(), json.dumps(manifest.get("switches", {}), sort_keys=True))
        if key != _kept["key"]:
            _forget_compiled()
    try:
        # A fresh namespace per case: nothing of one case leaks into the
        # next, but the same program's own compiled kernel.
        if key is not None and key == _kept["key"]:
            namespace = _kept["namespace"]
            if compiling == "tvm":
                config_patch.compiled = _kept["tvm"]
        else:
            namespace = runpy.run_path(program, run_name="npufuzz_case")
        if compiling:
            with config_patch:
                namespace["main"]()
        else:
            # Eager torch has nothing to compile: a crash from here on is
            # the program's (docs/external-backends.md, "running").
            open(os.path.join(case_dir, "running"), "w").close()
            namespace["main"]()
    except SystemExit as e:
        if isinstance(e.code, int):
            code = e.code
        elif e.code is not None:
            sys.stderr.write(str(e.code) + "\n")
            code = 1
    except tvm_compile.Refused as e:
        code, headline = UNSUPPORTED, str(e)
    except tvm_compile.Failed as e:
        code, headline = e.status, e.headline
        details.append("".join(traceback.format_exception(type(e), e, e.__traceback__)))
    except BaseException as e:
        failure = (compile_failure(e) if compiling == "inductor" and isinstance(e, Exception)
                   else None)
        if failure is None:  # a traceback is what a one-shot run would print
            traceback.print_exc()
            code = 1
        else:
            code, headline = failure
            details.append("".join(traceback.format_exception(type(e), e, e.__traceback__)))
    finally:
        sys.argv = old_argv
    if compiling:
        for text in _generated_code[generated_before:]:
            details.append("--- code Inductor generated ---\n" + text)
        del _generated_code[generated_before:]
        module = getattr(config_patch, "compiled", None)
        if module is not None and getattr(module, "module", None) is not None:
            details.append("--- the Relax module TVM imported ---\n" + str(module.module))
        if code == 0:
            _kept["key"], _kept["namespace"] = key, namespace
            _kept["tvm"] = module
        else:
            _forget_compiled()
    return code, headline, details


def answer(case_dir, compiling, process_stderr, measuring=None):
    """Runs one case with its output on DIR/log.txt; returns its status.
    `measuring`: the compiler's coverage (compiler_coverage.py), written to
    DIR/compiler-coverage.json, or None.

    DIR/stderr.txt, which npufuzz classifies, is the log, or for a compiler
    failure only its headline: torch's warnings while compiling would
    otherwise stand before it. The log then goes to DIR/details.txt."""
    log_path = os.path.join(case_dir, "log.txt")
    with open(log_path, "w") as log:
        sys.stderr.flush()
        os.dup2(log.fileno(), 2)
        try:
            code, headline, details = run_case(case_dir, compiling)
            if code == CACHE_REPAIRED:  # compiled afresh, once
                code, headline, details = run_case(case_dir, compiling)
            if code == CACHE_REPAIRED:
                code = ENVIRONMENT
        finally:
            sys.stderr.flush()
            sys.stdout.flush()
            os.dup2(process_stderr, 2)
    if measuring is not None:
        measuring.write(case_dir)
    with open(log_path) as f:
        log_text = f.read()
    os.remove(log_path)
    with open(os.path.join(case_dir, "stderr.txt"), "w") as f:
        f.write(headline + "\n" if headline else log_text)
    if headline and log_text:
        details.insert(0, log_text)
    if details:
        with open(os.path.join(case_dir, "details.txt"), "w") as f:
            f.write("\n".join(details))
    return code


def main():
    # The answers travel on the original stdout; anything the programs print
    # goes to stderr instead, so it cannot be taken for an answer.
    answers = case_loop.answers_channel()
    compiling = sys.argv[2] if len(sys.argv) == 3 and sys.argv[1] == "--compile" else None
    if len(sys.argv) > 1 and compiling not in ("inductor", "tvm"):
        sys.stderr.write("usage: torch_server.py [--compile inductor|tvm]\n")
        return ENVIRONMENT
    patch = os.environ.get({"inductor": "NPUFUZZ_INDUCTOR_PATCH",
                            "tvm": "NPUFUZZ_TVM_PATCH"}.get(compiling, "-"))
    if compiling:
        # The emitted programs compile their kernel when this is set.
        os.environ["NPUFUZZ_TORCH_COMPILE"] = compiling
        # TVM's runtime runs kernels on one thread, as torch does below.
        os.environ.setdefault("TVM_NUM_THREADS", "1")
        if patch:
            # Inductor's caches would hand back what the unpatched compiler
            # made of the same program.
            os.environ["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"
        # One kernel compiles at a time, in this process: a pool of compile
        # processes would cost each adapter seconds to start (npufuzz starts
        # one per worker and per triage child) and takes cores from the
        # other workers.
        os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
        # Otherwise Inductor as users ship it: its defaults. It keeps fused f16/bf16
        # intermediates in f32, which npufuzz's exactness model allows for
        # (oracles/Exactness.h); its knob to round them
        # (TORCHINDUCTOR_EMULATE_PRECISION_CASTS) crashes its C++ code
        # generation in torch 2.8 (docs/ml-compilers.md).
    # The compiler's own packages, when a campaign asks for their coverage:
    # set up before the compiler is imported, so that its modules are
    # instrumented as they load.
    measuring = None
    if compiling and compiler_coverage.asked():
        measuring = compiler_coverage.CompilerCoverage(
            [("torch/_inductor", compiler_coverage.package_directory("torch", "_inductor"))]
            if compiling == "inductor" else [("tvm", compiler_coverage.package_directory("tvm"))])
    try:
        import numpy  # noqa: F401
        import torch
    except ImportError as e:
        sys.stderr.write("npufuzz torch adapter: %s; see docs/toolchains.md#torch\n" % e)
        return ENVIRONMENT
    torch.set_num_threads(1)
    if compiling == "inductor":
        _record_generated_code()
        _trust_known_vector_isas()
    if compiling == "tvm":
        try:
            import tvm  # noqa: F401
            from tvm.relax.frontend.torch import from_exported_program  # noqa: F401
        except ImportError as e:
            sys.stderr.write("npufuzz tvm adapter: %s; see docs/toolchains.md#tvm\n" % e)
            return ENVIRONMENT
    if compiling and patch:
        # A bug planted in the compiler by npufuzz's tests
        # (tests/integrations/inductor/, tests/integrations/tvm/); never set
        # otherwise.
        runpy.run_path(patch)
    process_stderr = os.dup(2)
    return case_loop.serve(
        answers, lambda case_dir: answer(case_dir, compiling, process_stderr, measuring), "torch")


if __name__ == "__main__":
    sys.exit(main())
