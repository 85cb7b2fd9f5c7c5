//===- backend/toolchains/Canary.cpp - Is it the tool, and does it work ---===//
#include "backend/toolchains/Canary.h"

#include "backend/emit/PtoEmitter.h"
#include "backend/external/ExternalBackend.h"
#include "ir/FileText.h"
#include "ir/Text.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace npufuzz {

namespace {
namespace fs = std::filesystem;

/// A scratch directory for one canary, removed with it.
class Scratch {
public:
  Scratch() {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "npufuzz-canary-XXXXXX").string();
    if (!ec && ::mkdtemp(pattern.data()))
      dir = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    if (!dir.empty())
      fs::remove_all(dir, ec);
  }
  bool made() const { return !dir.empty(); }
  std::string file(const std::string &name) const { return dir + "/" + name; }

private:
  std::string dir;
};

/// What a probe printed, and how it ended.
struct Probe {
  CommandEnd end;
  std::string out;
  bool ok() const { return end.kind == CommandEnd::Kind::Exited && end.exitCode == 0; }
  /// How it ended, for a message: its status, or its first line of stderr.
  std::string why() const {
    std::string message;
    if (end.kind == CommandEnd::Kind::Exited && end.exitCode != 0 && !end.stderrText.empty())
      return "exited with status " + std::to_string(end.exitCode) + ": " +
             end.stderrText.substr(0, end.stderrText.find('\n'));
    classifyEnd(end, message);
    return message.substr(0, message.find('\n'));
  }
};

Probe probe(const Scratch &scratch, const std::vector<std::string> &argv, unsigned seconds = 60) {
  ExternalToolchain limits;
  limits.timeoutSeconds = seconds;
  // A tool built with clang's coverage (a ptoas measured by
  // backend/pto/PtoasCoverage.h) writes its profile into the scratch
  // directory, not default.profraw where npufuzz runs.
  limits.environment.push_back({"LLVM_PROFILE_FILE", scratch.file("probe.profraw")});
  Probe p;
  p.end = runCommand(limits, argv, scratch.file("probe.out"), scratch.file("probe.err"));
  std::string error;
  readFileBytes(scratch.file("probe.out"), p.out, error, 1 << 20);
  return p;
}

std::string firstLine(const std::string &text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      return line.substr(line.find_first_not_of(" \t"));
  return "";
}

bool writeText(const std::string &path, const std::string &text) {
  std::string error;
  return writeFileAtomically(path, text, error);
}

void ptoasCanary(const Scratch &s, const std::string &path, CanaryResult &r) {
  const Probe version = probe(s, {path, "--version"});
  if (!version.ok() || firstLine(version.out).empty()) {
    r.error =
        "does not report a version (" + (version.ok() ? "it printed nothing" : version.why()) + ")";
    return;
  }
  r.version = firstLine(version.out);
  Case c;
  TextError parseError;
  std::string pto, unsupported;
  if (!parseCase(canaryCaseText(), c, parseError) || !emitPto(c, pto, unsupported) ||
      !writeText(s.file("kernel.pto"), pto)) {
    r.error = "the canary kernel could not be written under $TMPDIR";
    return;
  }
  const Probe run =
      probe(s, {path, "--pto-arch=a3", s.file("kernel.pto"), "-o", s.file("kernel.cpp")});
  std::string cpp, error;
  if (!run.ok()) {
    r.error = "rejects a one-op kernel (" + run.why() + ")";
    return;
  }
  if (!readFileBytes(s.file("kernel.cpp"), cpp, error, 16 << 20) ||
      cpp.find("TADD") == std::string::npos) {
    r.error = "exits 0 on a one-op kernel but writes no C++ calling TADD: it is not ptoas";
    return;
  }
  r.passed = true;
}

void ptoIsaCanary(const std::string &dir, CanaryResult &r) {
  std::error_code ec;
  for (const char *header : {"pto/pto-inst.hpp", "pto/common/type.hpp"})
    if (!fs::is_regular_file(fs::path(dir) / header, ec)) {
      r.error = std::string("no ") + header + " under " + dir;
      return;
    }
  // Header-only: its version is its package's (version.cmake beside
  // include/, as pto-isa's repository has it).
  r.version = "pto-isa (no version file)";
  std::ifstream in(fs::path(dir).parent_path() / "version.cmake");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch m;
  if (std::regex_search(text, m,
                        std::regex(R"(set_cann_package\(\s*([\w-]+)\s+VERSION\s+"([^"]+)\")")))
    r.version = m[1].str() + " " + m[2].str();
  r.passed = true;
}

/// A Python that runs `script`, which imports `what` and prints a line
/// starting with `name ` (its version): into r.version.
void pythonCanary(const Scratch &s, const std::string &python, const std::string &script,
                  const std::string &what, const std::string &name, unsigned seconds,
                  CanaryResult &r) {
  const Probe p = probe(s, {python, "-c", script}, seconds);
  const std::string line = firstLine(p.out);
  if (!p.ok()) {
    r.error = "cannot import " + what + " (" + p.why() + ")";
    return;
  }
  if (line.rfind(name + " ", 0) != 0) {
    r.error = "exits 0 but does not run Python (it printed no " + name + " version)";
    return;
  }
  r.version = line;
  r.passed = true;
}

void torchCanary(const Scratch &s, const std::string &python, CanaryResult &r) {
  // The first import of torch reads a few hundred MB on a cold disk.
  pythonCanary(s, python,
               "import numpy, torch; print('torch', torch.__version__, 'numpy', numpy.__version__)",
               "torch and numpy", "torch", 120, r);
}

/// The Python PyTorchSim runs in: its torch, as any torch's (the
/// checkout's canary case runs the rest). Without device autoloading: on
/// master v1.1.0's line, `import torch` loads PyTorchSim's torch_openreg,
/// which fails unless TORCHSIM_DIR names a checkout, and this canary has
/// none (the adapter sets it).
void pytorchsimPythonCanary(const Scratch &s, const std::string &python, CanaryResult &r) {
  pythonCanary(s, python,
               "import os\n"
               "os.environ['TORCH_DEVICE_BACKEND_AUTOLOAD'] = '0'\n"
               "import numpy, torch\n"
               "print('torch', torch.__version__, 'numpy', numpy.__version__)",
               "torch and numpy", "torch", 120, r);
}

/// TVM as --backend tvm drives it: its Relax frontend for torch's exported
/// programs imports, beside torch.
void tvmCanary(const Scratch &s, const std::string &python, CanaryResult &r) {
  pythonCanary(s, python,
               "import numpy, torch, tvm\n"
               "from tvm.relax.frontend.torch import from_exported_program\n"
               "print('tvm', tvm.__version__, 'torch', torch.__version__)",
               "torch and tvm's Relax frontend", "tvm", 120, r);
}

void ireeCompileCanary(const Scratch &s, const std::string &path, CanaryResult &r) {
  const Probe version = probe(s, {path, "--version"});
  const size_t at = version.out.find("IREE compiler version");
  if (!version.ok() || at == std::string::npos) {
    r.error = "does not report an IREE compiler version (" +
              (version.ok() ? std::string("it printed none") : version.why()) + ")";
    return;
  }
  r.version = firstLine(version.out.substr(at));
  if (!writeText(s.file("canary.mlir"),
                 "func.func @npufuzz_canary(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                 "  %b = arith.addf %a, %a : tensor<4xf32>\n  return %b : tensor<4xf32>\n}\n")) {
    r.error = "the canary module could not be written under $TMPDIR";
    return;
  }
  const Probe run = probe(s,
                          {path, "--iree-hal-target-device=local",
                           "--iree-hal-local-target-device-backends=llvm-cpu",
                           s.file("canary.mlir"), "-o", s.file("canary.vmfb")},
                          120);
  if (!run.ok()) {
    r.error = "does not compile a one-op function for llvm-cpu (" + run.why() + ")";
    return;
  }
  std::error_code ec;
  if (fs::file_size(s.file("canary.vmfb"), ec) == 0 || ec) {
    r.error = "exits 0 on a one-op function but writes no module: it is not iree-compile";
    return;
  }
  r.passed = true;
}

void ireeRuntimeCanary(const Scratch &s, const std::string &python, CanaryResult &r) {
  pythonCanary(s, python,
               "import numpy, iree.runtime, importlib.metadata as m\n"
               "try: v = m.version('iree-base-runtime')\n"
               "except Exception: v = '(built from source)'\n"
               "print('iree.runtime', v, 'numpy', numpy.__version__)",
               "iree.runtime and numpy", "iree.runtime", 60, r);
}

/// simpler as --backend simpler drives it (tools/adapters/simpler_run.py):
/// its Worker and KernelCompiler import, its a2a3sim runtime is built, and
/// its pinned pto-isa is checked out beside it (simpler clones it from
/// GitHub on first use, which a machine without that network cannot).
void simplerCanary(const Scratch &s, const std::string &python, CanaryResult &r) {
  pythonCanary(s, python,
               "import os, importlib.metadata as m\n"
               "os.environ.setdefault('KMP_DUPLICATE_LIB_OK', 'TRUE')\n"
               "import numpy, simpler.worker, simpler_setup.kernel_compiler as kc\n"
               "from simpler_setup.environment import PROJECT_ROOT\n"
               "from simpler_setup.pto_isa import read_pto_isa_pin\n"
               "isa = PROJECT_ROOT / 'build' / 'pto-isa' / 'include' / 'pto' / 'pto-inst.hpp'\n"
               "assert isa.is_file(), 'no pto-isa checkout at build/pto-isa: run simpler once "
               "online, or check its pin out there'\n"
               "import shutil\n"
               "assert shutil.which('g++-15'), 'simpler builds sim kernels with g++-15, and PATH "
               "has none'\n"
               "kc.KernelCompiler(platform='a2a3sim')\n"
               "print('simpler', m.version('simpler'), 'pto-isa', read_pto_isa_pin()[:7], "
               "'numpy', numpy.__version__)",
               "simpler with its a2a3sim runtime", "simpler", 120, r);
}

/// PyPTO: its language parses a program, its passes run for A2/A3 and its
/// PTO code generation writes the kernel, as the adapter asks of it.
void pyptoCanary(const Scratch &s, const std::string &python, CanaryResult &r) {
  pythonCanary(s, python,
               "import os\n"
               "os.environ.setdefault('TORCH_DEVICE_BACKEND_AUTOLOAD', '0')\n"
               "import pypto, pypto.language as pl\n"
               "from pypto import backend, ir\n"
               "from pypto.backend import BackendType\n"
               "from pypto.ir.pass_manager import OptimizationStrategy, PassManager\n"
               "from pypto.pypto_core import codegen\n"
               "backend.reset_for_testing()\n"
               "backend.set_backend_type(BackendType.Ascend910B)\n"
               "p = pl.parse(\"\"\"\n"
               "@pl.program\n"
               "class C:\n"
               "    @pl.function(type=pl.FunctionType.InCore)\n"
               "    def k(self, a: pl.Tensor[[8, 32], pl.FP32],\n"
               "          o: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:\n"
               "        t: pl.Tile[[8, 32], pl.FP32] = pl.load(a, [0, 0], [8, 32])\n"
               "        u: pl.Tile[[8, 32], pl.FP32] = pl.exp(t)\n"
               "        s: pl.Tensor[[8, 32], pl.FP32] = pl.store(u, [0, 0], o)\n"
               "        return s\n"
               "\"\"\")\n"
               "q = PassManager.get_strategy(OptimizationStrategy.Default).run_passes(p)\n"
               "f = next(iter(q.functions.values()))\n"
               "text = codegen.PTOCodegen().generate(ir.Program([f], f.name, q.span))\n"
               "assert 'pto.texp' in text, text\n"
               "print('pypto', getattr(pypto, '__version__', '?'))",
               "PyPTO", "pypto", 120, r);
}

/// A PyTorchSim checkout: its frontend's code generation is there, with
/// the `npu` device of one of the two lines the adapter drives
/// (tools/adapters/pytorchsim_releases.py); its version is that line, its
/// commit and where it was cloned from (a fork's name).
void pytorchsimCanary(const Scratch &s, const std::string &dir, CanaryResult &r) {
  std::error_code ec;
  for (const char *file : {"PyTorchSimFrontend/extension_codecache.py",
                           "PyTorchSimFrontend/mlir/mlir_codegen_backend.py"})
    if (!fs::is_regular_file(fs::path(dir) / file, ec)) {
      r.error = std::string("no ") + file + " under " + dir;
      return;
    }
  const char *line = nullptr;
  if (fs::is_regular_file(fs::path(dir) / "PyTorchSimDevice/torch_openreg/__init__.py", ec))
    line = "the openreg device (master v1.1.0's line, torch 2.8)";
  else if (fs::is_regular_file(fs::path(dir) / "PyTorchSimFrontend/extension_device.cpp", ec) &&
           fs::is_regular_file(fs::path(dir) / "Scheduler/scheduler.py", ec))
    line = "the C++ extension device (the torch 2.2 line)";
  if (!line) {
    r.error = "neither PyTorchSimDevice/torch_openreg (master v1.1.0) nor "
              "PyTorchSimFrontend/extension_device.cpp (the torch 2.2 line) under " +
              dir;
    return;
  }
  const Probe commit = probe(s, {"git", "-C", dir, "rev-parse", "--short=12", "HEAD"});
  const Probe origin = probe(s, {"git", "-C", dir, "config", "--get", "remote.origin.url"});
  // An archive's tree has no commit: say so, and how to get one, since the
  // version is what a finding against it names.
  r.version = "PyTorchSim " + (commit.ok() ? firstLine(commit.out)
                                           : std::string("(not a git checkout, so no commit to "
                                                         "name: clone it with git to have one)"));
  if (origin.ok() && !firstLine(origin.out).empty())
    r.version += " from " + firstLine(origin.out);
  r.version += std::string(", ") + line;
  r.passed = true;
}

/// An MLIR tool's `--version` names the LLVM it is built on: into
/// r.version, or false with r.error.
bool llvmVersion(const Scratch &s, const std::string &path, CanaryResult &r) {
  const Probe version = probe(s, {path, "--version"});
  const size_t at = version.out.find("LLVM version");
  if (!version.ok() || at == std::string::npos) {
    r.error = "does not report an LLVM version (" +
              (version.ok() ? std::string("it printed none") : version.why()) + ")";
    return false;
  }
  r.version = firstLine(version.out.substr(at));
  return true;
}

void mlirOptCanary(const Scratch &s, const std::string &path, CanaryResult &r) {
  if (!llvmVersion(s, path, r))
    return;
  if (!writeText(s.file("canary.mlir"), "func.func @npufuzz_canary() {\n  return\n}\n")) {
    r.error = "the canary module could not be written under $TMPDIR";
    return;
  }
  const Probe run = probe(s, {path, s.file("canary.mlir")});
  if (!run.ok()) {
    r.error = "rejects an empty function (" + run.why() + ")";
    return;
  }
  if (run.out.find("func.func @npufuzz_canary") == std::string::npos) {
    r.error = "exits 0 on an empty function but does not print it back: it is not mlir-opt";
    return;
  }
  r.passed = true;
}

void mlirRunnerCanary(const Scratch &s, const std::string &path, CanaryResult &r) {
  if (!llvmVersion(s, path, r))
    return;
  if (!writeText(s.file("canary.mlir"), "llvm.func @main() {\n  llvm.return\n}\n")) {
    r.error = "the canary module could not be written under $TMPDIR";
    return;
  }
  const Probe run =
      probe(s, {path, s.file("canary.mlir"), "-e", "main", "-entry-point-result=void"});
  if (!run.ok())
    r.error = "does not run an empty main (" + run.why() + ")";
  else
    r.passed = true;
}
} // namespace

const char *canaryCaseText() {
  return R"(npufuzz-case 1
data seed=1 edge_rate=0
%0 = input : f32[8,64]
%1 = input : f32[8,64]
%2 = add %0, %1 : f32[8,64]
return %2
)";
}

CanaryResult runCanary(ToolchainKind kind, const std::string &path) {
  CanaryResult r;
  Scratch scratch;
  if (!scratch.made()) {
    r.error = "no scratch directory for its canary (set TMPDIR to a writable directory)";
  } else {
    switch (kind) {
    case ToolchainKind::Ptoas: ptoasCanary(scratch, path, r); break;
    case ToolchainKind::PtoIsa: ptoIsaCanary(path, r); break;
    case ToolchainKind::Torch: torchCanary(scratch, path, r); break;
    case ToolchainKind::IreeCompile: ireeCompileCanary(scratch, path, r); break;
    case ToolchainKind::IreeRuntime: ireeRuntimeCanary(scratch, path, r); break;
    case ToolchainKind::Tvm: tvmCanary(scratch, path, r); break;
    case ToolchainKind::MlirOpt: mlirOptCanary(scratch, path, r); break;
    case ToolchainKind::MlirRunner: mlirRunnerCanary(scratch, path, r); break;
    case ToolchainKind::Simpler: simplerCanary(scratch, path, r); break;
    case ToolchainKind::Pypto: pyptoCanary(scratch, path, r); break;
    case ToolchainKind::PyTorchSim: pytorchsimCanary(scratch, path, r); break;
    case ToolchainKind::PyTorchSimPython: pytorchsimPythonCanary(scratch, path, r); break;
    }
  }
  if (!r.passed)
    r.error = std::string(toolchainInfo(kind).name) + " " + path +
              " failed its canary: " + r.error + "; " + toolchainHelp(kind);
  return r;
}

bool findWorkingToolchain(ToolchainKind kind, const std::string &given, LocatedToolchain &out,
                          std::string &error, std::string *version) {
  ToolchainConfig config;
  if (!loadToolchainConfig(config, error) || !locateToolchain(kind, given, config, out, error))
    return false;
  const CanaryResult r = runCanary(kind, out.path);
  if (!r.passed) {
    error = r.error + " (found through " + out.source + ")";
    return false;
  }
  if (version)
    *version = r.version;
  return true;
}

} // namespace npufuzz
