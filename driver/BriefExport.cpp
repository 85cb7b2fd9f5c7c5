//===- driver/BriefExport.cpp - A finding in the few lines a maintainer reads ===//
#include "driver/BriefExport.h"

#include "backend/CompilerSwitches.h"
#include "backend/emit/PyTorchEmitter.h"
#include "ir/Npy.h"
#include "ir/NumberText.h"
#include "oracles/Exactness.h"
#include "reference/Executor.h"

#include "llvm/Support/Base64.h"

#include <cmath>
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

bool briefScript(const Case &c, const Expectation &how, ExportForm form, const ExportSource &source,
                 std::string &out, std::string &error) {
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
  const SwitchStates states = switchStates(backend, how.loweringSeed, {});
  const std::vector<Exactness> exactness = classifyValues(c, freedomsOf(backend, states));

  std::ostringstream os;
  const char *compiler = tvm ? "Apache TVM (torch.export, Relax)" : "torch.compile (Inductor)";
  os << "\"\"\"" << compiler << " and torch eager disagree on kernel().\n"
     << "npufuzz's reduced case " << source.path
     << (source.signature.empty() ? "" : " (" + source.signature + ")")
     << ". Exits 1 when they do.\"\"\"\n";
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
  os << "print(\"torch\", torch.__version__" << (tvm ? ", \"tvm\", tvm.__version__" : "") << ")\n";
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
    os << "compiled = torch.compile(kernel, fullgraph=True, dynamic="
       << (dynamic ? "True" : "False") << ")\n";
    if (changes == "{}")
      os << "got = compiled(*x)\n";
    else
      os << "with torch._inductor.config.patch(" << changes << "):\n    got = compiled(*x)\n";
  }
  os << "want = kernel(*x)\n";
  // One comparison: bit for bit (the sign of a zero too) where the
  // compiler promises the exact result, else torch.testing.assert_close's
  // default tolerance of the dtype.
  os << "tolerance = [";
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const DType t = c.typeOf(c.outputs[k]).dtype;
    const bool exact = exactness[c.outputs[k]] == Exactness::Exact || !isFloat(t);
    os << (k ? ", " : "")
       << (exact              ? "(0, 0)"
           : t == DType::BF16 ? "(1.6e-2, 1e-5)"
           : t == DType::F16  ? "(1e-3, 1e-5)"
                              : "(1.3e-6, 1e-5)");
  }
  os << "]\n"
        "bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))\n"
        "       if not torch.allclose(g.double(), w.double(), rtol, atol, equal_nan=True)\n"
        "       or (rtol == 0 and w.is_floating_point() and not torch.equal(g.signbit(), "
        "w.signbit()))]\n"
        "for k in bad:\n"
        "    print(\"output %d differs\\n  compiled: %s\\n  eager:    %s\" % (k, got[k], "
        "want[k]))\n"
        "sys.exit(1 if bad else 0)\n";
  out = os.str();
  return true;
}

} // namespace npufuzz
