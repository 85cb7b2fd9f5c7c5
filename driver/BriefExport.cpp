//===- driver/BriefExport.cpp - A finding in the few lines a maintainer reads ===//
#include "driver/BriefExport.h"

#include "backend/CompilerSwitches.h"
#include "backend/emit/PyTorchEmitter.h"
#include "backend/mlir/MlirEmitter.h"
#include "ir/Npy.h"
#include "ir/NumberText.h"
#include "oracles/Exactness.h"
#include "oracles/RunConfig.h"
#include "oracles/UndecidedElements.h"
#include "reference/Executor.h"

#include "llvm/Support/Base64.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace npufuzz {

namespace {
/// Inputs of at most this many elements are written as literals; a larger
/// one is one embedded .npy line.
constexpr size_t kLiteralElements = 64;

/// A Python float literal that reads back as `v` (f16 and bf16 values are
/// exact in f32): the sign of a zero, infinities and NaN kept.
std::string pyFloat(float v) {
  if (std::isnan(v))
    return "float(\"nan\")";
  if (std::isinf(v))
    return v > 0 ? "float(\"inf\")" : "-float(\"inf\")";
  std::string text = floatToText(v);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

/// torch.testing.assert_close's default (rtol, atol) for a float dtype: the
/// tolerance of a value the compiler need not give exactly.
const char *assertCloseDefault(DType t) {
  return t == DType::BF16 ? "(1.6e-2, 1e-5)" : t == DType::F16 ? "(1e-3, 1e-5)" : "(1.3e-6, 1e-5)";
}

/// `t` as a Python expression that builds it in torch.
std::string tensorText(const RefTensor &t) {
  const std::string dtype = "torch." + std::string(torchDtypeName(t.type.dtype));
  std::string shape;
  for (int64_t d : t.type.shape)
    shape += (shape.empty() ? "" : ", ") + std::to_string(d);
  const size_t n = t.isFloat() ? t.f.size() : t.i.size();
  if (n > kLiteralElements) {
    // bf16 has no numpy dtype: its values travel as f32, exact.
    RefTensor wide = t;
    if (t.type.dtype == DType::BF16)
      wide.type.dtype = DType::F32;
    return "torch.from_numpy(np.load(io.BytesIO(base64.b64decode(\"" +
           llvm::encodeBase64(encodeNpy(wide)) + "\")))).to(" + dtype + ")";
  }
  std::string values;
  for (size_t k = 0; k < n; ++k)
    values +=
        (k ? ", " : "") + (t.isFloat()                 ? pyFloat(t.f[k])
                           : t.type.dtype == DType::I1 ? std::string(t.i[k] ? "True" : "False")
                                                       : std::to_string(t.i[k]));
  return "torch.tensor([" + values + "], dtype=" + dtype + ").reshape(" + shape +
         (t.type.shape.size() == 1 ? ",)" : ")");
}

/// `t` as a numpy array literal in the kernel's ABI: bf16 as its bits
/// (uint16), i1 as int8; or, with `asValues`, bf16 as its f32 values and i1
/// as bool (what a result is compared as).
std::string numpyText(const RefTensor &t, bool asValues) {
  const DType d = t.type.dtype;
  const char *dtype = d == DType::F32    ? "np.float32"
                      : d == DType::F16  ? "np.float16"
                      : d == DType::BF16 ? (asValues ? "np.float32" : "np.uint16")
                      : d == DType::I1   ? (asValues ? "bool" : "np.int8")
                      : d == DType::I8   ? "np.int8"
                      : d == DType::I32  ? "np.int32"
                                         : "np.int64";
  std::string shape, values;
  for (int64_t n : t.type.shape)
    shape += (shape.empty() ? "" : ", ") + std::to_string(n);
  const size_t n = t.isFloat() ? t.f.size() : t.i.size();
  for (size_t k = 0; k < n; ++k) {
    std::string v;
    if (d == DType::BF16 && !asValues) {
      uint32_t bits;
      std::memcpy(&bits, &t.f[k], sizeof bits);
      v = std::to_string(bits >> 16);
    } else if (t.isFloat()) {
      v = pyFloat(t.f[k]);
    } else if (d == DType::I1 && asValues) {
      v = t.i[k] ? "True" : "False";
    } else {
      v = std::to_string(t.i[k]);
    }
    values += (k ? ", " : "") + v;
  }
  return "np.array([" + values + "], dtype=" + dtype + ").reshape(" + shape +
         (t.type.shape.size() == 1 ? ",)" : ")");
}

/// `text` without its lines that are only a comment (the emitter's op
/// names): a maintainer reads the ops themselves.
std::string withoutCommentLines(const std::string &text) {
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || line.compare(at, 2, "//") != 0)
      kept += line + "\n";
  }
  return kept;
}

/// The program's helpers and kernel, without its loading and saving: the
/// part between its imports and its main().
bool programPart(const Case &c, std::string &part, std::string &error) {
  std::string program;
  if (!exactPyTorchProgram(c, program, error))
    return false;
  const size_t importsEnd = program.find("import torch\n");
  const size_t mainAt = program.find("\n\ndef main():");
  if (importsEnd == std::string::npos || mainAt == std::string::npos) {
    error = "the PyTorch program has no imports or no main() where expected";
    return false;
  }
  size_t from = importsEnd + std::string("import torch\n").size();
  while (from < mainAt && program[from] == '\n')
    ++from;
  // Without the helpers the kernel does not call (_load, _save, ...).
  part = programBlocksInUse(program.substr(from, mainAt - from)) + "\n";
  // One blank line between its blocks: a maintainer's lines are few.
  for (size_t at; (at = part.find("\n\n\n")) != std::string::npos;)
    part.erase(at, 1);
  return true;
}
} // namespace

bool briefScript(const Case &c, const Expectation &how, ExportForm form, std::string &out,
                 std::string &error, const OmittedSwitches &omitted) {
  const bool tvm = form == ExportForm::Tvm;
  const BackendKind backend = tvm ? BackendKind::Tvm : BackendKind::Inductor;
  std::string part;
  if (!programPart(c, part, error))
    return false;
  const RefRun ref = runReference(c);
  if (!ref.ok()) {
    error = "the reference cannot make the case's inputs: " + ref.error;
    return false;
  }
  // An omitted switch is the compiler's default.
  SwitchStates states = switchStatesOf(backend, how);
  for (SwitchState &s : states)
    if (std::find(omitted.begin(), omitted.end(), s.id) != omitted.end())
      s.on = onByDefault(s.id);
  const std::vector<Exactness> exactness = classifyValues(c, freedomsOf(backend, states));

  std::ostringstream os;
  const char *compiler = tvm ? "Apache TVM (torch.export, Relax)" : "torch.compile (Inductor)";
  os << "\"\"\"" << compiler
     << " and torch eager disagree on kernel(): exits 1 when they do.\"\"\"\n";
  bool large = false;
  for (const RefTensor &t : ref.inputs)
    large |= (t.isFloat() ? t.f.size() : t.i.size()) > kLiteralElements;
  if (large)
    os << "import base64\nimport io\n";
  // A module missing is the machine's fault, not the bug's: exit 2.
  os << "import sys\n\ntry:\n";
  if (large || part.find("np.") != std::string::npos)
    os << "    import numpy as np\n";
  os << "    import torch\n"
     << (tvm ? "    import tvm\n    from tvm import relax\n"
               "    from tvm.relax.frontend.torch import from_exported_program\n"
             : "")
     << "except ImportError as e:  # the machine's fault, not the bug's\n"
        "    sys.exit(print(\"a module it needs is not installed (%s)\" % e) or 2)\n\n";
  os << part << "\n";
  // A tensor prints its corners, where a tail or a border goes wrong, not
  // pages of it.
  os << "print(\"torch\", torch.__version__" << (tvm ? ", \"tvm\", tvm.__version__" : "")
     << ")\ntorch.set_printoptions(threshold=64, edgeitems=4)\n";
  os << "x = [";
  for (size_t k = 0; k < ref.inputs.size(); ++k)
    os << (k ? ",\n     " : "") << tensorText(ref.inputs[k]);
  os << "]\n";
  if (tvm) {
    os << "Kernel = type(\"Kernel\", (torch.nn.Module,), {\"forward\": lambda self, *a: "
          "kernel(*a)})\n"
          "module = from_exported_program(torch.export.export(Kernel(), tuple(x)))\n"
          "with tvm.transform.PassContext("
       << tvmPassContextArguments(states)
       << "):\n"
          "    vm = relax.VirtualMachine(tvm.compile(relax.get_pipeline(\"zero\")(module), "
          "\"llvm\"), tvm.cpu())\n"
          "got = [torch.from_dlpack(r).clone() for r in vm[\"main\"](*[tvm.runtime.from_dlpack("
          "a.clone()) for a in x])]\n";
  } else {
    bool dynamic = false;
    const std::string changes = inductorConfigChanges(states, dynamic);
    const std::vector<size_t> weights = weightInputs(c);
    if (frozenOrAutotuned(states, weights)) {
      // Weights as a model's parameters, or max-autotune's one choice.
      os << "_CONFIG = " << changes << "\n\n\n"
         << inductorCompileFunction(states, weights, dynamic) << "\n\n"
         << "got = _compile(kernel)(*x)\n";
    } else {
      os << "compiled = torch.compile(kernel, fullgraph=True, dynamic="
         << (dynamic ? "True" : "False") << ")\n";
      if (changes == "{}")
        os << "got = compiled(*x)\n";
      else
        os << "with torch._inductor.config.patch(" << changes << "):\n    got = compiled(*x)\n";
    }
  }
  os << "want = kernel(*x)\n";
  // One comparison: bit for bit where the compiler promises the exact
  // result, else torch.testing.assert_close's default tolerance of the
  // dtype; two zeros of other signs differ either way.
  os << "tolerance = [";
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const DType t = c.typeOf(c.outputs[k]).dtype;
    const bool exact = exactness[c.outputs[k]] == Exactness::Exact || !isFloat(t);
    os << (k ? ", " : "") << (exact ? "(0, 0)" : assertCloseDefault(t));
  }
  os << "]\n"
        "bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))\n"
        "       if not torch.allclose(g.double(), w.double(), rtol, atol, equal_nan=True)\n"
        "       or (w.is_floating_point() and bool(((g == 0) & (w == 0) & (g.signbit() != "
        "w.signbit())).any()))]\n"
        "for k in bad:\n"
        "    print(\"output %d differs\\n  compiled: %s\\n  eager:    %s\" % (k, got[k], "
        "want[k]))\n"
        "sys.exit(1 if bad else 0)\n";
  out = os.str();
  return true;
}

bool briefIreeScript(const Case &c, const Expectation &how, std::string &out, std::string &error,
                     const OmittedSwitches &omitted) {
  const ReferenceFlushScope ireeRuntime(true); // IREE's runtime flushes subnormals
  MlirKernel kernel;
  if (!ireeTensorKernel(c, how, kernel, error))
    return false;
  const SwitchStates states = switchStatesOf(BackendKind::Iree, how);
  const ExactnessModel freedoms = freedomsOf(BackendKind::Iree, states);
  RefRun ref = runReference(c);
  if (!ref.ok()) {
    error = "the reference cannot run the case: " + ref.error;
    return false;
  }
  undefineWhatFreedomsDecide(c, ref, freedoms);
  const std::vector<Exactness> exactness = classifyValues(c, freedoms);

  std::ostringstream os;
  // The entry is @kernel, as a maintainer would name it.
  std::string text = withoutCommentLines(kernel.text);
  for (size_t at = 0; (at = text.find("@" + kernel.entry + "(", at)) != std::string::npos;
       at += 1 + std::string("kernel").size())
    text.replace(at + 1, kernel.entry.size(), "kernel");
  os << "\"\"\"IREE (llvm-cpu) and the program's semantics disagree on @kernel"
     << ": exits 1 when they do.\"\"\"\n"
     << "import sys\n\ntry:\n    import numpy as np\n    from iree import compiler, runtime\n"
     << "    from iree.compiler.version import VERSION\n"
     << "except ImportError as e:  # the machine's fault, not the bug's\n"
        "    sys.exit(print(\"a module it needs is not installed (%s)\" % e) or 2)\n\n"
     << "MLIR = r'''" << text << "'''\n";
  // An omitted switch writes no flag: iree-compile's own default.
  SwitchStates written;
  for (const SwitchState &s : states)
    if (std::find(omitted.begin(), omitted.end(), s.id) == omitted.end())
      written.push_back(s);
  const std::vector<std::string> flags = ireeCompileFlags(written);
  os << "FLAGS = [";
  for (size_t k = 0; k < flags.size(); ++k)
    os << (k ? ", " : "") << "\"" << flags[k] << "\"";
  os << "]\nprint(\"iree\", VERSION)\nnp.set_printoptions(threshold=64, edgeitems=4)\n";
  // The entry's arguments: inputs in the kernel's ABI, valid extents.
  os << "x = [";
  bool first = true;
  for (const KernelArg &a : kernel.args) {
    os << (first ? "" : ",\n     ");
    first = false;
    switch (a.kind) {
    case KernelArg::Kind::Input:
      os << numpyText(ref.inputs.at(static_cast<size_t>(a.index)), /*asValues=*/false);
      break;
    case KernelArg::Kind::ValidDim: os << a.value; break;
    case KernelArg::Kind::Output:
      error = "the tensor kernel takes an output as an argument";
      return false;
    }
  }
  os << "]\n# The program's semantics (bf16 as f32 values): what IREE must give.\nwant = [";
  std::string skip, tolerance, bf16, bools;
  bool skips = false;
  for (size_t k = 0; k < ref.outputs.size(); ++k) {
    const RefTensor &t = ref.outputs[k];
    os << (k ? ",\n        " : "") << numpyText(t, /*asValues=*/true);
    // Elements outside a valid region, or that a freedom decides.
    std::string undefined;
    for (size_t i = 0; i < t.defined.size(); ++i)
      if (!t.defined[i])
        undefined += (undefined.empty() ? "" : ", ") + std::to_string(i);
    skips |= !undefined.empty();
    skip += std::string(k ? ", " : "") + "[" + undefined + "]";
    const DType d = t.type.dtype;
    if (d == DType::BF16)
      bf16 += (bf16.empty() ? "" : ", ") + std::to_string(k);
    if (d == DType::I1)
      bools += (bools.empty() ? "" : ", ") + std::to_string(k);
    // Exact: bit for bit, a subnormal and the zero of its sign one value
    // (the runtime flushes); else assert_close's default for the dtype.
    const bool exact = exactness[c.outputs[k]] == Exactness::Exact;
    tolerance += std::string(k ? ", " : "") +
                 (!isFloat(d) ? "(0, 0)"
                  : exact     ? (d == DType::F16 ? "(0, 2.0 ** -14)" : "(0, 2.0 ** -126)")
                              : assertCloseDefault(d));
  }
  os << "]\n"
     << "vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), "
        "driver=\"local-sync\")\n"
     << "got = vm.kernel(*x)\n"
     << "got = [np.asarray(g.to_host()) for g in (got if isinstance(got, (list, tuple)) else "
        "[got])]\n";
  if (!bf16.empty())
    os << "got = [(g.astype(np.uint32) << 16).view(np.float32) if k in (" << bf16
       << ",) else g for k, g in enumerate(got)]  # bf16's bits\n";
  if (!bools.empty())
    os << "got = [g != 0 if k in (" << bools << ",) else g for k, g in enumerate(got)]  # i1\n";
  os << "tolerance = [" << tolerance << "]\n";
  if (skips)
    os << "skip = [" << skip << "]  # not compared: outside a valid region, or left free\n"
       << "got = [np.delete(g.ravel(), s) for g, s in zip(got, skip)]\n"
       << "want = [np.delete(w.ravel(), s) for w, s in zip(want, skip)]\n";
  os << "bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))\n"
        "       if not np.allclose(g.astype(float), w.astype(float), rtol, atol, equal_nan=True)\n"
        "       or (w.dtype.kind == \"f\" and ((np.abs(g) <= atol * (rtol == 0)) & (np.abs(w) "
        "<= atol * (rtol == 0))\n"
        "                                   & (np.signbit(g) != np.signbit(w))).any())]\n"
        "for k in bad:\n"
        "    print(\"output %d differs\\n  IREE:     %s\\n  expected: %s\" % (k, got[k], "
        "want[k]))\n"
        "sys.exit(1 if bad else 0)\n";
  out = os.str();
  return true;
}

} // namespace npufuzz
