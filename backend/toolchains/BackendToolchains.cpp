//===- backend/toolchains/BackendToolchains.cpp - Each backend's toolchains, ready -===//
#include "backend/toolchains/BackendToolchains.h"

#include "backend/mlir/MlirTools.h"
#include "backend/pto/PtoBackend.h"
#include "backend/toolchains/Canary.h"

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

bool findTorchPython(const std::string &given, std::string &python, std::string &error) {
  python = given;
  return findInto(ToolchainKind::Torch, python, error);
}

} // namespace npufuzz
