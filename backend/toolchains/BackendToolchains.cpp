//===- backend/toolchains/BackendToolchains.cpp - Each backend's toolchains, ready -===//
#include "backend/toolchains/BackendToolchains.h"

#include "backend/external/CommandProcess.h"
#include "backend/mlir/MlirTools.h"
#include "backend/pto/PtoBackend.h"
#include "backend/pto/PyptoBackend.h"
#include "backend/pto/SimplerBackend.h"
#include "backend/pytorchsim/PyTorchSimBackend.h"
#include "backend/toolchains/Canary.h"

#include <cstdlib>
#include <unistd.h>

namespace npufuzz {

namespace {
/// `value` (a flag's, or empty) replaced by the working toolchain found.
bool findInto(ToolchainKind kind, std::string &value, std::string &error) {
  LocatedToolchain found;
  if (!findWorkingToolchain(kind, value, found, error))
    return false;
  value = found.path;
  return true;
}
} // namespace

bool setUpPtoToolchain(PtoToolchain &t, std::string &error) {
  // pto-isa first: a look at its headers costs nothing, ptoas's canary a run.
  return findInto(ToolchainKind::PtoIsa, t.ptoIsa, error) &&
         findInto(ToolchainKind::Ptoas, t.ptoas, error) && checkPtoToolchain(t, error);
}

bool setUpPyptoToolchain(PtoToolchain &t, std::string &error) {
  if (t.pyptoAdapter.empty())
    t.pyptoAdapter = defaultPyptoAdapter();
  return findInto(ToolchainKind::Pypto, t.pyptoPython, error) &&
         findInto(ToolchainKind::PtoIsa, t.ptoIsa, error) &&
         findInto(ToolchainKind::Ptoas, t.ptoas, error) && checkPyptoToolchain(t, error);
}

bool setUpSimplerToolchain(PtoToolchain &t, std::string &error) {
  if (t.simplerAdapter.empty())
    t.simplerAdapter = defaultSimplerAdapter();
  return findInto(ToolchainKind::Simpler, t.simplerPython, error) &&
         findInto(ToolchainKind::Ptoas, t.ptoas, error) && checkSimplerToolchain(t, error);
}

bool setUpPyTorchSimToolchain(PyTorchSimToolchain &t, std::string &error, std::string *version) {
  if (t.adapter.empty())
    t.adapter = defaultPyTorchSimAdapter();
  std::string line;
  if (!findInto(ToolchainKind::PyTorchSim, t.checkout, error) ||
      !findInto(ToolchainKind::PyTorchSimPython, t.python, error) ||
      !checkPyTorchSimToolchain(t, line, error))
    return false;
  if (version)
    *version = line;
  return true;
}

bool setUpMlirTools(MlirTool &tool, const std::string &opt, const std::string &runner,
                    std::string &error) {
  std::string optPath = opt, runnerPath = runner;
  if (!findInto(ToolchainKind::MlirOpt, optPath, error) ||
      !findInto(ToolchainKind::MlirRunner, runnerPath, error))
    return false;
  tool.mlirOpt = optPath;
  tool.mlirRunner = runnerPath;
  return true;
}

bool findTorchPython(const std::string &given, std::string &python, std::string &error,
                     bool compile, std::string *versionOut) {
  LocatedToolchain found;
  std::string version; // "torch 2.15.0+cu132 numpy 2.4.6"
  if (!findWorkingToolchain(ToolchainKind::Torch, given, found, error, &version))
    return false;
  python = found.path;
  if (versionOut)
    *versionOut = version;
  if (!compile)
    return true;
  if (version.rfind("torch 0.", 0) == 0 || version.rfind("torch 1.", 0) == 0) {
    error = "--backend inductor needs torch.compile, which " +
            version.substr(0, version.find(' ', 6)) + " (" + python + ") does not have; " +
            toolchainHelp(ToolchainKind::Torch);
    return false;
  }
  const char *cxx = std::getenv("CXX");
  const std::string compiler = cxx && *cxx ? cxx : "g++";
  if (::access(resolveProgram(compiler).c_str(), X_OK) != 0) {
    error = "--backend inductor builds its kernels with " + compiler +
            ", and there is none (ci/install-deps.sh installs g++)";
    return false;
  }
  return true;
}

bool findTvmPython(const std::string &given, std::string &python, std::string &error,
                   std::string *version) {
  LocatedToolchain found;
  if (!findWorkingToolchain(ToolchainKind::Tvm, given, found, error, version))
    return false;
  python = found.path;
  return true;
}

bool findIreeTools(const std::string &compiler, const std::string &python,
                   std::string &compilerPath, std::string &pythonPath, std::string &error) {
  compilerPath = compiler;
  pythonPath = python;
  return findInto(ToolchainKind::IreeCompile, compilerPath, error) &&
         findInto(ToolchainKind::IreeRuntime, pythonPath, error);
}

} // namespace npufuzz
