//===- tools/npufuzz/ExternalMlirCommand.cpp - npufuzz external-mlir --------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "backend/external/CaseDirMlirTools.h"
#include "oracles/RunConfig.h"

#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &ExternalMlirCommand() {
  static cl::SubCommand c("external-mlir",
                          "Run an external-backend case directory through mlir-opt + "
                          "mlir-runner and write its outK.npy (the adapter of "
                          "docs/external-backends.md)");
  return c;
}

namespace {
cl::opt<std::string> dir(cl::Positional, cl::desc("<case dir>"), cl::Required,
                         cl::sub(ExternalMlirCommand()), cl::cat(category()));
cl::opt<std::string> opt("opt", cl::desc("mlir-opt binary"), cl::init("mlir-opt-22"),
                         cl::sub(ExternalMlirCommand()), cl::cat(category()));
cl::opt<std::string> runner("runner", cl::desc("mlir-runner binary"), cl::init("mlir-runner-22"),
                            cl::sub(ExternalMlirCommand()), cl::cat(category()));
} // namespace

int runExternalMlir() {
  if (!checkPath("<case dir>", dir, PathKind::Directory))
    return kExitError;
  MlirTool tool;
  tool.mlirOpt = opt;
  tool.mlirRunner = runner;
  tool.runtimeLibrary = defaultRuntimeLibrary();
  const BackendRun r = runCaseDirectoryWithMlirTools(dir, tool);
  if (!r.ok())
    llvm::errs() << r.message << "\n";
  return adapterExitCode(r);
}

} // namespace npufuzz::tool
