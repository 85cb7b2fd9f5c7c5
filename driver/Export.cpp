//===- driver/Export.cpp - A finding as the script its compiler's tracker takes ===//
#include "driver/Export.h"

#include "driver/BriefExport.h"

#include "backend/CompilerSwitches.h"
#include "backend/emit/PyTorchEmitter.h"
#include "backend/mlir/MlirEmitter.h"
#include "backend/mlir/Pipelines.h"
#include "ir/Npy.h"
#include "oracles/Compare.h"
#include "oracles/Exactness.h"
#include "oracles/RunConfig.h"
#include "oracles/SumBound.h"
#include "oracles/UndecidedElements.h"
#include "reference/Executor.h"

#include "llvm/Support/Base64.h"

#include <cctype>
#include <cmath>
#include <sstream>

namespace npufuzz {

bool parseExportForm(std::string_view name, ExportForm &out) {
#define NPUFUZZ_X(Id, spelled, what)                                                               \
  if (name == spelled) {                                                                           \
    out = ExportForm::Id;                                                                          \
    return true;                                                                                   \
  }
  NPUFUZZ_EXPORT_FORMS(NPUFUZZ_X)
#undef NPUFUZZ_X
  return false;
}

std::string exportFormNames() {
  std::string names;
#define NPUFUZZ_X(Id, spelled, what) names += (names.empty() ? "" : ", ") + std::string(spelled);
  NPUFUZZ_EXPORT_FORMS(NPUFUZZ_X)
#undef NPUFUZZ_X
  return names;
}

const char *exportFileName(ExportForm form) {
  switch (form) {
  case ExportForm::Torch:
  case ExportForm::Tvm:
  case ExportForm::TorchHarness:
  case ExportForm::TvmHarness:
  case ExportForm::Iree:
  case ExportForm::IreeHarness:
  case ExportForm::PyTorchSim: return "repro.py";
  case ExportForm::Mlir: return "repro.mlir";
  }
  return "repro.py";
}

std::optional<ExportForm> exportFormOf(BackendKind backend) {
  switch (backend) {
  case BackendKind::Inductor: return ExportForm::TorchHarness;
  case BackendKind::Tvm: return ExportForm::TvmHarness;
  case BackendKind::Iree: return ExportForm::IreeHarness;
  case BackendKind::MlirJit:
  case BackendKind::MlirTools: return ExportForm::Mlir;
  case BackendKind::External:
  case BackendKind::Torch:
  case BackendKind::Pto:
  case BackendKind::PyTorchSim: return ExportForm::PyTorchSim;
  case BackendKind::Pypto:
  case BackendKind::Simpler: return std::nullopt;
  }
  return std::nullopt;
}

namespace {
BackendKind backendOf(ExportForm form) {
  switch (form) {
  case ExportForm::Torch:
  case ExportForm::TorchHarness: return BackendKind::Inductor;
  case ExportForm::Tvm:
  case ExportForm::TvmHarness: return BackendKind::Tvm;
  case ExportForm::Iree:
  case ExportForm::IreeHarness: return BackendKind::Iree;
  case ExportForm::Mlir: return BackendKind::MlirJit;
  case ExportForm::PyTorchSim: return BackendKind::PyTorchSim;
  }
  return BackendKind::MlirJit;
}

/// A Python literal of `text` (the characters it holds are printable
/// ASCII: base64, names, numbers).
std::string pyString(const std::string &text) { return "\"" + text + "\""; }

std::string base64Of(const std::string &bytes) { return llvm::encodeBase64(bytes); }

/// The Python entries that set a switch as the adapter does
/// (tools/adapters/torch_server.py for Inductor, tvm_compile.py for TVM):
/// an Inductor config key, or a PassContext argument.
std::string switchSetting(CompilerSwitch s, bool on) {
  switch (s) {
  case CompilerSwitch::InductorPrologueFusion:
    return on ? "\"prologue_fusion\": True" : "\"prologue_fusion\": False";
  case CompilerSwitch::InductorEpilogueFusion:
    return on ? "\"epilogue_fusion\": True" : "\"epilogue_fusion\": False";
  case CompilerSwitch::InductorPatternMatcher:
    return on ? "\"pattern_matcher\": True" : "\"pattern_matcher\": False";
  case CompilerSwitch::InductorLoopOrdering:
    return on ? "\"loop_ordering_after_fusion\": True" : "\"loop_ordering_after_fusion\": False";
  case CompilerSwitch::InductorFusion:
    return on ? "\"max_fusion_size\": 64" : "\"max_fusion_size\": 1";
  case CompilerSwitch::InductorCppVectorization:
    return on ? "\"cpp.simdlen\": None" : "\"cpp.simdlen\": 1";
  case CompilerSwitch::InductorSplitReductions:
    return on ? "\"split_reductions\": True" : "\"split_reductions\": False";
  case CompilerSwitch::InductorFreezing: return on ? "\"freezing\": True" : "\"freezing\": False";
  case CompilerSwitch::InductorMaxAutotune:
    return on ? "\"max_autotune\": True, \"max_autotune_gemm_backends\": \"ATEN,CPP\""
              : "\"max_autotune\": False";
  case CompilerSwitch::InductorCppWrapper:
    return on ? "\"cpp_wrapper\": True" : "\"cpp_wrapper\": False";
  // Not a config key: torch.compile's own argument (compileFunction).
  case CompilerSwitch::InductorStaticShapes: return "";
  // One config key of the two: numerics (compileFunction).
  case CompilerSwitch::InductorDefaultPointwiseNumerics:
  case CompilerSwitch::InductorDefaultReductionNumerics: return "";
  case CompilerSwitch::TvmOptLevel: return on ? "" : "opt_level=0";
  case CompilerSwitch::TvmFuseOps: return on ? "" : "pass:FuseOps pass:FuseTIR";
  case CompilerSwitch::TvmFoldConstant: return on ? "" : "pass:FoldConstant";
  case CompilerSwitch::TvmMemoryPlanning: return on ? "" : "pass:StaticPlanBlockMemory";
  case CompilerSwitch::TvmVectorize: return on ? "" : "config:tirx.disable_vectorize";
  case CompilerSwitch::TvmStorageRewrite: return on ? "" : "config:tirx.disable_storage_rewrite";
  case CompilerSwitch::TvmCse: return on ? "" : "config:tirx.disable_cse_tir";
  // iree-compile's flags, as tools/adapters/iree_server.py passes them.
  case CompilerSwitch::IreeOptimize: return on ? "--iree-opt-level=O2" : "--iree-opt-level=O0";
  case CompilerSwitch::IreeDataTiling:
    return on ? "--iree-opt-data-tiling=true" : "--iree-opt-data-tiling=false";
  case CompilerSwitch::IreeAggressiveFusion:
    return on ? "--iree-dispatch-creation-enable-aggressive-fusion=true"
              : "--iree-dispatch-creation-enable-aggressive-fusion=false";
  case CompilerSwitch::IreeFuseMultiUse:
    return on ? "--iree-dispatch-creation-fuse-multi-use=true"
              : "--iree-dispatch-creation-fuse-multi-use=false";
  case CompilerSwitch::IreePropagateTransposes:
    return on ? "--iree-global-opt-propagate-transposes=true"
              : "--iree-global-opt-propagate-transposes=false";
  case CompilerSwitch::IreeHostCpu:
    return on ? "--iree-llvmcpu-target-cpu=host" : "--iree-llvmcpu-target-cpu=generic";
  }
  return "";
}

bool switchOn(const SwitchStates &states, CompilerSwitch id) {
  for (const SwitchState &s : states)
    if (s.id == id)
      return s.on;
  return false;
}

/// Inductor's config entries for `states`, as the adapter sets them
/// (tools/adapters/torch_server.py), comma-separated: every switch's, or
/// with `changesOnly` those not at the compiler's default (an OptIn mode
/// only when on, either way); then numerics,
/// strict in what each numerics switch off asks for, when one is.
/// `dynamic`: the static_shapes switch is off.
std::string inductorConfigEntries(const SwitchStates &states, bool changesOnly, bool &dynamic) {
  std::string entries;
  bool strictPointwise = false, strictReduction = false;
  dynamic = false;
  for (const SwitchState &s : states) {
    dynamic |= s.id == CompilerSwitch::InductorStaticShapes && !s.on;
    strictPointwise |= s.id == CompilerSwitch::InductorDefaultPointwiseNumerics && !s.on;
    strictReduction |= s.id == CompilerSwitch::InductorDefaultReductionNumerics && !s.on;
    const std::string setting = switchSetting(s.id, s.on);
    // A mode users opt into is written only when on, as a config written
    // before it existed is read.
    const bool atDefault = s.on == onByDefault(s.id);
    if (!setting.empty() && !(atDefault && (changesOnly || !onByDefault(s.id))))
      entries += (entries.empty() ? "" : ", ") + setting;
  }
  if (strictPointwise || strictReduction)
    entries += std::string(entries.empty() ? "" : ", ") + "\"numerics\": \"" +
               (strictPointwise && strictReduction ? "strict"
                : strictPointwise                  ? "strict_pointwise"
                                                   : "strict_reduction") +
               "\"";
  return entries;
}

/// How the compiler is called, by form.
std::string compileFunction(ExportForm form, const SwitchStates &states,
                            const std::vector<size_t> &weights) {
  std::ostringstream os;
  if (form == ExportForm::TorchHarness) {
    bool dynamic = false;
    os << "# Inductor's config as the finding ran it (the rest at its defaults).\n_CONFIG = {"
       << inductorConfigEntries(states, /*changesOnly=*/false, dynamic) << "}\n\n\n";
    os << inductorCompileFunction(states, weights, dynamic);
    return os.str();
  }
  // TVM: the PassContext of the finding's switches.
  os << "# TVM's PassContext as the finding ran it.\n"
     << "_PASS_CONTEXT = dict(" << tvmPassContextArguments(states) << ")\n\n\n"
     << "def _compile(kernel):\n"
        "    # torch.export, Relax's torch frontend, its \"zero\" pipeline (as TVM's\n"
        "    # end-to-end tutorial optimises a model), tvm.compile for llvm.\n"
        "    import tvm\n"
        "    from tvm import relax\n"
        "    from tvm.relax.frontend.torch import from_exported_program\n\n"
        "    class Kernel(torch.nn.Module):\n"
        "        def forward(self, *inputs):\n"
        "            return kernel(*inputs)\n\n"
        "    def run(*args):\n"
        "        module = from_exported_program(torch.export.export(Kernel(), tuple(args)))\n"
        "        with tvm.transform.PassContext(**_PASS_CONTEXT):\n"
        "            executable = tvm.compile(relax.get_pipeline(\"zero\")(module), "
        "target=\"llvm\")\n"
        "        vm = relax.VirtualMachine(executable, tvm.cpu())\n"
        "        # TVM takes storage aligned as torch's allocator aligns it.\n"
        "        results = vm[\"main\"](*[tvm.runtime.from_dlpack(torch.empty(a.shape, "
        "dtype=a.dtype).copy_(a)) for a in args])\n"
        "        return tuple(torch.from_dlpack(r).clone() for r in results)\n"
        "    return run\n";
  return os.str();
}

/// What every Python reproducer compares with: an embedded .npy, and the
/// judge's rules (oracles/Compare.h) on numpy arrays.
const char *kComparison = R"PY(

def _array(text):
    return np.load(io.BytesIO(base64.b64decode(text)))


def _mismatches(g, want, defined, how, bound, tiny=0.0):
    """Indices of the defined elements where `g` is not `want`: exactly (a
    NaN equals a NaN; the sign of a zero counts), within `how`'s tolerance
    for a value the compiler may round otherwise ("approx"; two non-finite
    values match, as formulas differ at overflow), or within that and
    `bound` for a sum it may add in another order ("reordered"; any value
    where the bound is infinite). Below `tiny`, a value and the zero of its
    sign are one (a CPU that flushes subnormals)."""
    g = g.astype(want.dtype).reshape(want.shape)
    if how == "unstable" or (how[0] == "reordered" and bound is None):
        return []
    if want.dtype.kind != "f":
        bad = g != want
    else:
        g64, w64 = g.astype(np.float64), want.astype(np.float64)
        same_sign = np.signbit(g64) == np.signbit(w64)
        same = (np.isnan(g64) & np.isnan(w64)) | ((np.abs(g64) < tiny) & (np.abs(w64) < tiny) & same_sign)
        if how == "exact":
            same |= (g64 == w64) & same_sign
        else:
            kind, rtol, atol = how
            extra = bound.astype(np.float64).reshape(want.shape) if kind == "reordered" else 0.0
            with np.errstate(invalid="ignore", over="ignore"):
                near = np.abs(g64 - w64) <= atol + rtol * np.abs(w64) + extra
            close = (g64 == w64) | (near & np.isfinite(g64) & np.isfinite(w64))
            if kind == "approx":  # a zero has a definite sign even so
                same |= close & ((w64 != 0) | (g64 != 0) | same_sign)
                same |= ~np.isfinite(g64) & ~np.isfinite(w64)
            else:
                same |= close | ~np.isfinite(extra)
        bad = ~same
    return [tuple(int(i) for i in idx) for idx in np.argwhere(bad & defined)]
)PY";

const char *kHarness = R"PY(

def main():
    args = [torch.from_numpy(_array(data)).to(getattr(torch, dtype)) for dtype, data in _INPUTS]
    try:
        outs = _compile(kernel)(*args)
    except Exception:
        traceback.print_exc()
        print("the compiler failed: the bug shows")
        return 1
    eager = kernel(*args)
    failed = False
    for k, (name, dtype, how, values, mask, bound) in enumerate(_OUTPUTS):
        want, defined = _array(values), _array(mask).astype(bool)
        got = outs[k].float() if outs[k].dtype == torch.bfloat16 else outs[k]
        bad = _mismatches(got.detach().numpy(), want, defined, how,
                          _array(bound) if bound else None)
        if not bad:
            continue
        failed = True
        first = bad[0]
        e = eager[k].float() if eager[k].dtype == torch.bfloat16 else eager[k]
        print("output %d (%s, %s): %d of %d elements differ; first %s: expected %r, got %r "
              "(eager torch: %r)" % (k, name, dtype, len(bad), int(defined.sum()), list(first),
                                     want[first].item(), got[first].item(), e[first].item()))
    print("the bug shows" if failed else "no difference: the bug does not show")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
)PY";

/// PyTorchSim's side of its reproducer: the device set up as
/// tools/adapters/pytorchsim_server.py sets it up (PyTorchSim's default
/// config, simulators off, stand-ins for its fork's LLVM tools), each kernel
/// its code generation writes recorded, and each verified by upstream
/// MLIR's mlir-opt after its dma_starts are put in generic form
/// (backend/pytorchsim/DmaStart.h, the same rewrite in Python).
const char *kPyTorchSimHarness = R"PY(

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
)PY";

/// What a Python reproducer compares with: the reference's outputs, with
/// what the compiler's freedoms decide left undefined, how each value is
/// compared, and every value when a reordered sum is compared against its
/// terms.
struct ScriptExpectation {
  RefRun ref;
  ExactnessModel freedoms;
  std::vector<Exactness> exactness;
  std::vector<unsigned> approximations;
  std::vector<RefTensor> values; ///< empty unless an output is a reordered sum
};

bool expectationOf(const Case &c, BackendKind backend, const SwitchStates &states,
                   ScriptExpectation &out, std::string &error) {
  out.ref = runReference(c);
  if (!out.ref.ok()) {
    error = "the reference cannot run the case: " + out.ref.error;
    return false;
  }
  out.freedoms = freedomsOf(backend, states);
  out.exactness = classifyValues(c, out.freedoms);
  out.approximations = approximationCounts(c, out.exactness);
  undefineWhatFreedomsDecide(c, out.ref, out.freedoms);
  for (ValueId v : c.outputs)
    if (out.exactness[v] == Exactness::Reordered)
      return evaluateCase(c, out.ref.inputs, out.values, error);
  return true;
}

/// How an output is compared, as a Python literal, and the bound of a
/// reordered sum's error (its .npy as a Python string, or None).
void comparedAs(const Case &c, const ScriptExpectation &expected, ValueId v, std::string &how,
                std::string &bound) {
  const std::vector<RefTensor> &values = expected.values;
  const Exactness e = expected.exactness[v];
  const unsigned approximations = expected.approximations[v];
  const ExactnessModel &freedoms = expected.freedoms;
  const TensorType &t = c.typeOf(v);
  const Tolerance tol = toleranceFor(t.dtype);
  std::ostringstream os;
  os.precision(17);
  bound = "None";
  switch (e) {
  case Exactness::Exact: os << "\"exact\""; break;
  case Exactness::Unstable: os << "\"unstable\""; break;
  case Exactness::Approx:
    // Compounded approximations widen the relative tolerance up to 5 %
    // (oracles/Compare.h).
    os << "(\"approx\", " << std::max(tol.rtol, std::min(tol.rtol * approximations, 0.05)) << ", "
       << tol.atol << ")";
    break;
  case Exactness::Reordered: {
    os << "(\"reordered\", " << tol.rtol << ", " << tol.atol << ")";
    if (values.empty())
      break;
    const std::vector<double> terms = reorderedSumBound(c, values, v, freedoms);
    RefTensor b = RefTensor::zeros(TensorType{DType::F32, t.shape, std::nullopt});
    for (size_t i = 0; i < terms.size() && i < b.f.size(); ++i)
      // Rounded up into f32, so the bound only widens.
      b.f[i] = std::isfinite(terms[i]) ? std::nextafter(static_cast<float>(terms[i]), INFINITY)
                                       : INFINITY;
    bound = pyString(base64Of(encodeNpy(b)));
    break;
  }
  }
  how = os.str();
}

/// Whether `name` appears in `text` as a whole identifier.
bool mentions(const std::string &text, const std::string &name) {
  auto identifierChar = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool startsWord = at == 0 || !identifierChar(text[at - 1]);
    const bool endsWord =
        at + name.size() >= text.size() || !identifierChar(text[at + name.size()]);
    if (startsWord && endsWord)
      return true;
  }
  return false;
}

/// The program's top-level blocks (the emitter parts them by two blank
/// lines) without the helpers (`def _name`) that nothing kept calls: a
/// maintainer reads the kernel and what it needs.
std::string usedPart(const std::string &program) {
  std::vector<std::string> blocks;
  for (size_t at = 0; at < program.size();) {
    const size_t end = program.find("\n\n\n", at);
    blocks.push_back(program.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? program.size() : end + 3;
  }
  auto helperName = [](const std::string &block) -> std::string {
    if (block.rfind("def _", 0) != 0)
      return "";
    return block.substr(4, block.find('(') - 4);
  };
  std::vector<bool> kept(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i)
    kept[i] = helperName(blocks[i]).empty();
  for (bool grew = true; grew;) { // helpers the kept blocks call, transitively
    grew = false;
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (kept[i])
        continue;
      for (size_t j = 0; j < blocks.size() && !kept[i]; ++j)
        if (kept[j] && mentions(blocks[j], helperName(blocks[i])))
          kept[i] = grew = true;
    }
  }
  std::string out;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (kept[i])
      out += (out.empty() ? "" : "\n\n\n") + blocks[i];
  return out;
}

/// The PyTorch program from its imports on, up to its main() (which reads
/// .npy files the script holds instead), without the helpers its kernel
/// does not call; `imports` go before numpy and torch, which are imported
/// with `guarded` under a guard: a module missing is the machine's fault,
/// not the bug's, and exits 2, as a tool that cannot start does.
bool scriptBody(const std::string &program, const std::string &imports, const std::string &guarded,
                std::string &body, std::string &error) {
  const size_t mainAt = program.find("\n\ndef main():");
  const size_t preludeEnd = program.find("\nimport os\n");
  if (mainAt == std::string::npos || preludeEnd == std::string::npos) {
    error = "the PyTorch program has no main() to replace";
    return false;
  }
  body = usedPart(program.substr(preludeEnd + 1, mainAt - preludeEnd - 1));
  const std::string plain = "\nimport numpy as np\nimport torch\n";
  const size_t at = body.find(plain);
  if (at == std::string::npos) {
    error = "the PyTorch program does not import numpy and torch where expected";
    return false;
  }
  body.replace(at, plain.size(),
               imports + "try:\n    import numpy as np\n    import torch\n" + guarded +
                   "except ImportError as e:  # nothing to show without them\n"
                   "    print(\"a module the script needs is not installed (%s)\" % e)\n"
                   "    sys.exit(2)\n");
  return true;
}

bool pythonScript(const Case &c, const Expectation &how, ExportForm form,
                  const ExportSource &source, std::string &out, std::string &error) {
  std::string program;
  if (!exactPyTorchProgram(c, program, error))
    return false;
  std::string body;
  if (!scriptBody(program, "\n",
                  form == ExportForm::TvmHarness ? "    import tvm  # noqa: F401\n" : "", body,
                  error))
    return false;
  const BackendKind backend = backendOf(form);
  ScriptExpectation expected;
  if (!expectationOf(c, backend, switchStatesOf(backend, how), expected, error))
    return false;
  const RefRun &ref = expected.ref;
  const ExactnessModel &freedoms = expected.freedoms;

  std::ostringstream os;
  const char *compiler =
      form == ExportForm::TorchHarness ? "torch.compile (Inductor)" : "Apache TVM";
  os << "#!/usr/bin/env python3\n"
     << "\"\"\"A bug of " << compiler << ", as npufuzz found and reduced it.\n\n";
  if (!source.signature.empty())
    os << "npufuzz's signature: " << source.signature << "\n";
  os << "From: " << source.path << "\n\n"
     << "Run it with python3 (it needs torch and numpy"
     << (form == ExportForm::TvmHarness ? ", and apache-tvm" : "") << ").\n"
     << "kernel() below is the case's program; its inputs are embedded. The\n"
     << "script runs kernel() compiled, compares each output with the expected\n"
     << "one embedded (the program's semantics, as npufuzz's reference computes\n"
     << "them; elements outside an output's valid region are not compared) and\n"
     << "exits 1 when they differ or the compiler fails, 0 when they agree\n"
     << "(2 when a module it needs is not installed).\n"
     << "A value the compiler may round otherwise (a fused low-precision\n"
     << "intermediate) is compared within its type's tolerance; one it may\n"
     << "decide otherwise is not compared"
     << (freedoms.signedOverflowUndefined
             ? ", nor one a signed i32/i64 overflow\nreaches (the compiler's is undefined, as in C)"
         : freedoms.negationOverflowUndefined
             ? ", nor one a negation of an i32/i64\nminimum reaches (undefined in Inductor's C++)"
             : "")
     << (freedoms.selfSubtractionFolded ? ",\nnor one an x - x of an infinite or NaN x reaches "
                                          "(TVM folds x - x\nto 0 by design)"
                                        : "")
     << ".\n\"\"\"\n";
  os << "import base64\nimport io\nimport traceback\n";
  os << body << "\n\n";
  os << compileFunction(form, switchStatesOf(backend, how), weightInputs(c)) << "\n\n";
  os << "# (dtype, the .npy bytes; bf16 as f32, exact)\n_INPUTS = [\n";
  for (const RefTensor &t : ref.inputs)
    os << "    (" << pyString(std::string(torchDtypeName(t.type.dtype))) << ", "
       << pyString(base64Of(encodeNpy(t))) << "),\n";
  os << "]\n\n# (value, dtype, how compared, expected .npy, its defined elements, the\n"
     << "# bound of a reordered sum's error)\n_OUTPUTS = [\n";
  for (size_t k = 0; k < ref.outputs.size(); ++k) {
    const RefTensor &t = ref.outputs[k];
    const ValueId v = c.outputs[k];
    std::string compared, bound;
    comparedAs(c, expected, v, compared, bound);
    os << "    (" << pyString("%" + std::to_string(v)) << ", "
       << pyString(std::string(dtypeName(t.type.dtype))) << ", " << compared << ", "
       << pyString(base64Of(encodeNpy(t))) << ", " << pyString(base64Of(encodeNpyMask(t))) << ", "
       << bound << "),\n";
  }
  os << "]\n" << kComparison << kHarness;
  out = os.str();
  return true;
}

const char *kIreeHarness = R"PY(

def _compiler():
    # The iree-compile binary that pip's iree-base-compiler installs, else
    # the one on PATH.
    try:
        from iree.compiler.tools.binaries import find_tool
        return find_tool("iree-compile")
    except Exception:
        return "iree-compile"


# numpy types of the kernel's ABI: bf16 travels as its bits, i1 as i8.
_ABI = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16, "i8": np.int8,
        "i32": np.int32, "i64": np.int64, "index": np.int64, "i1": np.int8}
# The smallest normal of each float type: IREE's CPU runtime flushes
# subnormals, so a subnormal and the zero of its sign are one value.
_TINY = {"f32": 2.0 ** -126, "bf16": 2.0 ** -126, "f16": 2.0 ** -14}


def _argument(kind, dtype, value):
    if kind == "valid_dim":
        return int(value)
    a = _array(value)
    if dtype == "bf16":  # the upper half of f32's bits
        a = np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16
    return np.ascontiguousarray(a.astype(_ABI[dtype]))


def _result(dtype, a):
    a = np.asarray(a)
    if dtype == "i1":
        return a != 0
    if dtype == "bf16":
        return (a.astype(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a


def _run(vmfb, out_dir):
    from iree import runtime
    # One thread (local-sync), as npufuzz ran it.
    context = runtime.SystemContext(config=runtime.Config("local-sync"))
    with open(vmfb, "rb") as f:
        context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, f.read()))
    results = context.modules.module[_ENTRY](*[_argument(*a) for a in _ARGS])
    if not isinstance(results, (list, tuple)):
        results = [results]
    for k, r in enumerate(results):
        np.save(os.path.join(out_dir, "out%d.npy" % k),
                np.asarray(r.to_host() if hasattr(r, "to_host") else r))


def main():
    # Without IREE there is nothing to show: exit 2, never "the bug shows".
    try:
        from iree import runtime  # noqa: F401
    except ImportError as e:
        print("IREE's runtime is not installed (%s): pip install iree-base-runtime" % e)
        return 2
    with tempfile.TemporaryDirectory() as d:
        source, vmfb = os.path.join(d, "kernel.mlir"), os.path.join(d, "kernel.vmfb")
        with open(source, "w") as f:
            f.write(_MLIR)
        try:
            p = subprocess.run([_compiler()] + _FLAGS + [source, "-o", vmfb],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True)
        except OSError as e:
            print("iree-compile cannot start (%s): pip install iree-base-compiler" % e)
            return 2
        if p.returncode != 0:
            sys.stdout.write(p.stderr[-4000:])
            print("iree-compile failed (exit %d): the bug shows" % p.returncode)
            return 1
        # The module runs in a child: one that faults ends the child.
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _run(vmfb, d)
            except Exception:
                traceback.print_exc()
                code = 3
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            print("the module died of signal %d: the bug shows" % os.WTERMSIG(status))
            return 1
        if os.WEXITSTATUS(status) != 0:
            print("IREE's runtime failed: the bug shows")
            return 1
        failed = False
        for k, (name, dtype, how, values, mask, bound) in enumerate(_OUTPUTS):
            want, defined = _array(values), _array(mask).astype(bool)
            if not os.path.exists(os.path.join(d, "out%d.npy" % k)):
                print("the module returned no result %d: the bug shows" % k)
                return 1
            got = _result(dtype, np.load(os.path.join(d, "out%d.npy" % k)))
            bad = _mismatches(got, want, defined, how, _array(bound) if bound else None,
                              _TINY.get(dtype, 0.0))
            if not bad:
                continue
            failed = True
            first = bad[0]
            print("output %d (%s, %s): %d of %d elements differ; first %s: expected %r, got %r"
                  % (k, name, dtype, len(bad), int(defined.sum()), list(first),
                     want[first].item(), got.reshape(want.shape)[first].item()))
    print("the bug shows" if failed else "no difference: the bug does not show")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
)PY";

bool ireeScript(const Case &c, const Expectation &how, const ExportSource &source, std::string &out,
                std::string &error) {
  const ReferenceFlushScope ireeRuntime(true); // as IREE's backend does
  MlirKernel kernel;
  if (!ireeTensorKernel(c, how, kernel, error))
    return false;
  ScriptExpectation expected;
  if (!expectationOf(c, BackendKind::Iree, switchStatesOf(BackendKind::Iree, how), expected, error))
    return false;
  const RefRun &ref = expected.ref;

  std::ostringstream os;
  os << "#!/usr/bin/env python3\n"
     << "\"\"\"A bug of IREE (iree-compile for llvm-cpu, and its runtime), as npufuzz\n"
     << "found and reduced it.\n\n";
  if (!source.signature.empty())
    os << "npufuzz's signature: " << source.signature << "\n";
  os << "From: " << source.path << "\n\n"
     << "Run it with python3 (it needs numpy, and IREE's iree-base-compiler and\n"
     << "iree-base-runtime). _MLIR below is the case's program on tensors. The\n"
     << "script compiles it with iree-compile and the flags the finding ran with,\n"
     << "runs its entry on the embedded inputs with IREE's runtime on one thread,\n"
     << "compares each result with the expected one embedded (the program's\n"
     << "semantics, as npufuzz's reference computes them, on a CPU that flushes\n"
     << "subnormals as IREE's runtime does; elements outside an output's valid\n"
     << "region are not compared) and exits 1 when they differ or compiling or\n"
     << "running fails, 0 when they agree, 2 when numpy or IREE is not\n"
     << "installed. A value the compiler may round otherwise is compared within\n"
     << "its type's tolerance, a float sum it may add in another order within a\n"
     << "bound on its terms; one it may decide otherwise is not compared.\n\"\"\"\n"
     << "import base64\nimport io\nimport os\nimport subprocess\nimport sys\nimport tempfile\n"
     << "import traceback\n\n"
     << "try:\n    import numpy as np\nexcept ImportError as e:  # nothing to show without it\n"
     << "    print(\"numpy is not installed (%s)\" % e)\n    sys.exit(2)\n\n"
     << "_MLIR = r'''" << kernel.text << "'''\n\n"
     << "_ENTRY = " << pyString(kernel.entry) << "\n\n"
     << "# iree-compile's flags as the finding ran it.\n_FLAGS = [\n"
     << "    \"--iree-hal-target-device=local\",\n"
     << "    \"--iree-hal-local-target-device-backends=llvm-cpu\",\n";
  for (const SwitchState &s : switchStatesOf(BackendKind::Iree, how))
    os << "    " << pyString(switchSetting(s.id, s.on)) << ",\n";
  os << "]\n\n# The entry's arguments: (\"input\", dtype, the .npy bytes; bf16 as f32,\n"
     << "# exact), or (\"valid_dim\", None, a valid shape's extent).\n_ARGS = [\n";
  for (const KernelArg &a : kernel.args) {
    switch (a.kind) {
    case KernelArg::Kind::Input: {
      const RefTensor &t = ref.inputs.at(static_cast<size_t>(a.index));
      os << "    (\"input\", " << pyString(std::string(dtypeName(t.type.dtype))) << ", "
         << pyString(base64Of(encodeNpy(t))) << "),\n";
      break;
    }
    case KernelArg::Kind::ValidDim: os << "    (\"valid_dim\", None, " << a.value << "),\n"; break;
    case KernelArg::Kind::Output:
      error = "the tensor kernel takes an output as an argument";
      return false;
    }
  }
  os << "]\n\n# (value, dtype, how compared, expected .npy, its defined elements, the\n"
     << "# bound of a reordered sum's error)\n_OUTPUTS = [\n";
  for (size_t k = 0; k < ref.outputs.size(); ++k) {
    const RefTensor &t = ref.outputs[k];
    const ValueId v = c.outputs[k];
    std::string compared, bound;
    comparedAs(c, expected, v, compared, bound);
    os << "    (" << pyString("%" + std::to_string(v)) << ", "
       << pyString(std::string(dtypeName(t.type.dtype))) << ", " << compared << ", "
       << pyString(base64Of(encodeNpy(t))) << ", " << pyString(base64Of(encodeNpyMask(t))) << ", "
       << bound << "),\n";
  }
  os << "]\n" << kComparison << kIreeHarness;
  out = os.str();
  return true;
}

bool mlirFile(const Case &c, const Expectation &how, const ExportSource &source, std::string &out,
              std::string &error) {
  RunConfig config;
  if (!parseMlirStyle(how.style, config.style)) {
    error = "unknown style '" + how.style + "'";
    return false;
  }
  config.loweringSeed = how.loweringSeed;
  config.drawsModes = how.drawsModes;
  MlirKernel kernel;
  std::string unsupported;
  if (!emitMlir(c, emitOptionsOf(config), kernel, unsupported)) {
    error = "the case has no " + how.style + " kernel: " + unsupported;
    return false;
  }
  Pipeline pipeline;
  if (!resolvePipeline(how.pipeline, config.style, pipeline, error, how.stage))
    return false;
  std::string passes;
  for (const std::string &p : pipeline.before)
    passes += (passes.empty() ? "" : ",") + p;
  for (const std::string &p : pipeline.passes)
    passes += (passes.empty() ? "" : ",") + p;
  std::ostringstream os;
  os << "// A bug of MLIR's passes, as npufuzz found and reduced it";
  if (!source.signature.empty())
    os << ": " << source.signature;
  os << "\n// From: " << source.path << " (the " << how.style << " style";
  if (how.loweringSeed)
    os << ", lowering seed " << *how.loweringSeed;
  os << ")\n// RUN: mlir-opt --pass-pipeline='builtin.module(" << passes << ")' %s\n"
     << "// The function is " << kernel.entry << "; npufuzz's lowering to LLVM and its run\n"
     << "// follow these passes (docs/upstream-findings.md).\n"
     << kernel.text;
  out = os.str();
  return true;
}
/// The PyTorchSim form: the program in the model form PyTorchSim's backend
/// compiles, its inputs, and kPyTorchSimHarness.
bool pytorchsimScript(const Case &c, const Expectation &how, const ExportSource &source,
                      std::string &out, std::string &error) {
  if (how.verdict != VerdictKind::Ok && how.verdict != VerdictKind::CompileError &&
      how.verdict != VerdictKind::VerifierError) {
    error =
        "a PyTorchSim script shows what its code generation raises and what MLIR refuses of "
        "its kernels; this case's verdict, " +
        std::string(verdictName(how.verdict)) +
        ", is read from its kernels' DMAs by npufuzz's map and footprint oracles, or from their "
        "values on npufuzz's model of its NPU (docs/pytorchsim.md#the-npu-model), which "
        "PyTorchSim's checkout does not run without its simulator";
    return false;
  }
  std::string program, unsupported;
  if (!emitPyTorch(c, program, unsupported, PyTorchForm::Model)) {
    error = "the case has no PyTorch program: " + unsupported;
    return false;
  }
  std::string body;
  if (!scriptBody(program,
                  "\nimport base64\nimport io\nimport json\nimport re\nimport shutil\n"
                  "import subprocess\nimport tempfile\nimport traceback\n\n"
                  "# PyTorchSim v1.1.0's npu device (torch_openreg), which `import torch`\n"
                  "# loads, reads its environment then (and fails without TORCHSIM_DIR):\n"
                  "# the checkout and the scratch paths are set before it.\n"
                  "_CHECKOUT = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else\n"
                  "                             os.environ.get(\"TORCHSIM_DIR\", \"\"))\n"
                  "_SCRATCH = tempfile.mkdtemp(prefix=\"pytorchsim-repro-\")\n"
                  "os.environ.update({\n"
                  "    \"TORCHSIM_DIR\": _CHECKOUT,\n"
                  "    \"TORCHSIM_LLVM_PATH\": os.path.join(_SCRATCH, \"llvm\"),\n"
                  "    \"TORCHSIM_DUMP_PATH\": os.path.join(_SCRATCH, \"dump\"),\n"
                  "    \"TORCHSIM_DUMP_LOG_PATH\": os.path.join(_SCRATCH, \"log\"),\n"
                  "    \"TORCHSIM_LOG_PATH\": os.path.join(_SCRATCH, \"log\"),\n"
                  "    \"TORCHINDUCTOR_CACHE_DIR\": os.path.join(_SCRATCH, \"inductor\"),\n"
                  "    \"TORCHINDUCTOR_FORCE_DISABLE_CACHES\": \"1\"})\n",
                  "", body, error))
    return false;
  RefRun ref = runReference(c);
  if (!ref.ok()) {
    error = "the reference cannot run the case: " + ref.error;
    return false;
  }
  std::ostringstream os;
  os << "#!/usr/bin/env python3\n"
     << "\"\"\"A bug of PyTorchSim's code generation, as npufuzz found and reduced it.\n\n";
  if (!source.signature.empty())
    os << "npufuzz's signature: " << source.signature << "\n";
  os << "From: " << source.path << "\n\n"
     << "Run it with the Python PyTorchSim runs in (its pinned torch), naming\n"
     << "the checkout: python3 repro.py /path/to/PyTorchSim (or set TORCHSIM_DIR).\n"
     << "kernel() below is the case's program as a model writes it, on the\n"
     << "device in _DEV; its inputs are embedded. The script compiles kernel()\n"
     << "with torch.compile on PyTorchSim's npu device (its default config,\n"
     << "functional and timing simulation off: code generation alone) and\n"
     << "exits 1 when the code generation raises or when a kernel it wrote is\n"
     << "not valid MLIR (upstream mlir-opt: $MLIR_OPT, else mlir-opt-22 or\n"
     << "mlir-opt on PATH, on the kernel with its memref.dma_start ops in\n"
     << "MLIR's generic form), 0 when neither, 2 when PyTorchSim, torch or\n"
     << "mlir-opt is missing or PyTorchSim says it does not take the program.\n"
     << "No values are compared: no simulator runs.\n\"\"\"\n"
     << body << "\n\n"
     << "# (dtype, the .npy bytes; bf16 as f32, exact)\n_INPUTS = [\n";
  for (const RefTensor &t : ref.inputs)
    os << "    (" << pyString(std::string(torchDtypeName(t.type.dtype))) << ", "
       << pyString(base64Of(encodeNpy(t))) << "),\n";
  os << "]\n" << kPyTorchSimHarness;
  out = os.str();
  return true;
}
} // namespace

namespace {
/// Whether the case's weights are a module's frozen parameters.
bool weightsFrozen(const SwitchStates &states, const std::vector<size_t> &weights) {
  return switchOn(states, CompilerSwitch::InductorFreezing) && !weights.empty();
}
} // namespace

bool frozenOrAutotuned(const SwitchStates &states, const std::vector<size_t> &weights) {
  return weightsFrozen(states, weights) || switchOn(states, CompilerSwitch::InductorMaxAutotune);
}

std::string inductorCompileFunction(const SwitchStates &states, const std::vector<size_t> &weights,
                                    bool dynamic) {
  const bool frozen = weightsFrozen(states, weights);
  std::ostringstream os;
  if (frozen) {
    os << "# kernel()'s arguments a model holds as its weights.\n_WEIGHTS = [";
    for (size_t k = 0; k < weights.size(); ++k)
      os << (k ? ", " : "") << weights[k];
    os << "]\n_NAMES = [(k, \"w%d\" % k) for k in _WEIGHTS]\n\n\n";
  }
  os << "def _compile(kernel):\n"
        "    import torch._inductor.config as config\n";
  if (switchOn(states, CompilerSwitch::InductorMaxAutotune))
    os << "    from torch._inductor import select_algorithm\n\n"
          "    # One choice of max-autotune's, the C++ GEMM template when there is one:\n"
          "    # one choice is not timed, so what runs never depends on the machine.\n"
          "    select_algorithm.add_preprocessing_fn(lambda choices: ([\n"
          "        c for c in choices if not isinstance(c, select_algorithm.ExternKernelCaller)]\n"
          "        or choices)[:1])\n";
  if (!frozen) {
    os << "    compiled = torch.compile(kernel, backend=\"inductor\", fullgraph=True, dynamic="
       << (dynamic ? "True" : "False")
       << ")\n\n"
          "    def run(*args):\n"
          "        with config.patch(_CONFIG):\n"
          "            return compiled(*args)\n"
          "    return run\n";
    return os.str();
  }
  os << "\n"
        "    class Model(torch.nn.Module):\n"
        "        # The weights as a model's parameters (integers: buffers), which\n"
        "        # freezing folds in as constants under torch.no_grad().\n"
        "        def __init__(self, args):\n"
        "            super().__init__()\n"
        "            for k, name in _NAMES:\n"
        "                if args[k].is_floating_point():\n"
        "                    self.register_parameter(name, torch.nn.Parameter(args[k], "
        "requires_grad=False))\n"
        "                else:\n"
        "                    self.register_buffer(name, args[k])\n\n"
        "        def forward(self, *activations):\n"
        "            args = list(activations)\n"
        "            for k, name in _NAMES:\n"
        "                args.insert(k, getattr(self, name))\n"
        "            return kernel(*args)\n\n"
        "    def run(*args):\n"
        "        with config.patch(_CONFIG), torch.no_grad():\n"
        "            compiled = torch.compile(Model(args).eval(), backend=\"inductor\", "
        "fullgraph=True, dynamic="
     << (dynamic ? "True" : "False")
     << ")\n"
        "            return compiled(*[a for k, a in enumerate(args) if k not in _WEIGHTS])\n"
        "    return run\n";
  return os.str();
}

std::string inductorConfigChanges(const SwitchStates &states, bool &dynamic) {
  return "{" + inductorConfigEntries(states, /*changesOnly=*/true, dynamic) + "}";
}

std::string programBlocksInUse(const std::string &program) { return usedPart(program); }

bool ireeTensorKernel(const Case &c, const Expectation &how, MlirKernel &kernel,
                      std::string &error) {
  RunConfig config;
  config.backend = BackendKind::Iree;
  config.style = MlirStyle::Tensor;
  config.loweringSeed = how.loweringSeed;
  config.drawsModes = how.drawsModes;
  std::string unsupported;
  if (!emitMlir(c, emitOptionsOf(config), kernel, unsupported)) {
    error = "the case has no tensor kernel: " + unsupported;
    return false;
  }
  if (kernel.text.find("'''") != std::string::npos) {
    error = "the kernel's text cannot be a Python string";
    return false;
  }
  return true;
}

std::vector<std::string> ireeCompileFlags(const SwitchStates &states) {
  std::vector<std::string> flags = {"--iree-hal-target-device=local",
                                    "--iree-hal-local-target-device-backends=llvm-cpu"};
  for (const SwitchState &s : states)
    flags.push_back(switchSetting(s.id, s.on));
  return flags;
}

bool exactPyTorchProgram(const Case &c, std::string &program, std::string &error) {
  std::string unsupported;
  if (!emitPyTorch(c, program, unsupported)) {
    error = "the case has no PyTorch program: " + unsupported;
    return false;
  }
  // What torch cannot do exactly, the program raises when it runs
  // (backend/emit/PyTorchEmitter.h): the backend's `unsupported`, no
  // script that would fail for it.
  if (const size_t at = program.find("raise NotImplementedError(\""); at != std::string::npos) {
    const size_t from = at + std::string("raise NotImplementedError(\"").size();
    error =
        "the case has no PyTorch program: " + program.substr(from, program.find('"', from) - from);
    return false;
  }
  return true;
}

std::string tvmPassContextArguments(const SwitchStates &states) {
  std::string optLevel = "2", passes, config;
  for (const SwitchState &s : states) {
    std::istringstream words(switchSetting(s.id, s.on));
    for (std::string w; words >> w;) {
      if (w == "opt_level=0")
        optLevel = "0";
      else if (w.rfind("pass:", 0) == 0)
        passes += (passes.empty() ? "" : ", ") + pyString(w.substr(5));
      else if (w.rfind("config:", 0) == 0)
        config += (config.empty() ? "" : ", ") + pyString(w.substr(7)) + ": True";
    }
  }
  return "opt_level=" + optLevel + ", disabled_pass=[" + passes + "], config={" + config + "}";
}

bool exportCase(const Case &c, const Expectation &how, ExportForm form, const ExportSource &source,
                std::string &out, std::string &error) {
  switch (form) {
  case ExportForm::Torch:
  case ExportForm::Tvm: return briefScript(c, how, form, out, error);
  case ExportForm::TorchHarness:
  case ExportForm::TvmHarness: return pythonScript(c, how, form, source, out, error);
  case ExportForm::Iree: return briefIreeScript(c, how, out, error);
  case ExportForm::IreeHarness: return ireeScript(c, how, source, out, error);
  case ExportForm::Mlir: return mlirFile(c, how, source, out, error);
  case ExportForm::PyTorchSim: return pytorchsimScript(c, how, source, out, error);
  }
  return false;
}

} // namespace npufuzz
