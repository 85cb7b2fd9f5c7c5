//===- tools/npufuzz/RefCommand.cpp - npufuzz ref ---------------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "ir/Case.h"
#include "ir/Npy.h"
#include "reference/Executor.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &RefCommand() {
  static cl::SubCommand c("ref", "Run a case on the reference; write inputs and outputs as .npy");
  return c;
}

namespace {
cl::opt<std::string> file(cl::Positional, cl::desc("<case.npf>"), cl::Required,
                          cl::sub(RefCommand()), cl::cat(category()));
cl::opt<std::string> outDir("o", cl::desc("Output directory"), cl::value_desc("DIR"), cl::Required,
                            cl::sub(RefCommand()), cl::cat(category()));
} // namespace

int runRef() {
  Case c;
  if (!loadCase(file, c))
    return kExitError;
  RefRun run = runReference(c);
  if (!run.ok())
    return fail("reference run failed: " + run.error);
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return fail("cannot create " + outDir + ": " + ec.message());
  auto write = [&](const std::string &name, const RefTensor &t, bool mask) {
    llvm::SmallString<256> path(outDir.getValue());
    llvm::sys::path::append(path, name);
    std::string error;
    bool ok =
        mask ? writeNpyMask(path.str().str(), t, error) : writeNpy(path.str().str(), t, error);
    if (!ok)
      fail(error);
    return ok;
  };
  bool ok = true;
  for (size_t i = 0; i < run.inputs.size(); ++i)
    ok &= write("in" + std::to_string(i) + ".npy", run.inputs[i], false);
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    ok &= write("out" + std::to_string(i) + ".npy", run.outputs[i], false);
    ok &= write("out" + std::to_string(i) + ".defined.npy", run.outputs[i], true);
  }
  if (!ok)
    return kExitError; // a write that failed is the machine's, not a finding
  llvm::outs() << "wrote " << run.inputs.size() << " input(s) and " << run.outputs.size()
               << " output(s) to " << outDir << "\n";
  return kExitOk;
}

} // namespace npufuzz::tool
