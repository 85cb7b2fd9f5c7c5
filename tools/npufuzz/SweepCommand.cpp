//===- tools/npufuzz/SweepCommand.cpp - npufuzz sweep -----------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "backend/mlir/MlirJit.h"
#include "driver/Sweep.h"

#include <cstdint>
#include <iostream>

namespace npufuzz::tool {

cl::SubCommand &SweepCommand() {
  static cl::SubCommand c("sweep", "Generate, verify, round-trip and reference-run a range of "
                                   "seeds");
  return c;
}

namespace {
SeedOpt start("seed-start", cl::desc("First seed"), cl::init(0), cl::sub(SweepCommand()),
              cl::cat(category()));
cl::opt<unsigned long long, false, CountParser<unsigned long long, 1, 1000000000>>
    count("count", cl::desc("Number of seeds (1 to 1000000000)"), cl::init(1000),
          cl::sub(SweepCommand()), cl::cat(category()));
cl::opt<std::string> policyPath("policy", cl::desc("Policy file"), cl::value_desc("FILE"),
                                cl::sub(SweepCommand()), cl::cat(category()));
cl::opt<bool> backend("backend", cl::desc("Also run every case on the in-process MLIR backend"),
                      cl::sub(SweepCommand()), cl::cat(category()));
cl::opt<std::string> pipeline("pipeline",
                              cl::desc("Pipeline for --backend (O0, O2, random:N, passes)"),
                              cl::init("O0"), cl::sub(SweepCommand()), cl::cat(category()));
} // namespace

int runSweep() {
  SweepOptions options;
  options.seedStart = start;
  options.count = count;
  // Seeds never wrap past 2^64 - 1.
  if (options.count - 1 > UINT64_MAX - options.seedStart)
    return fail("--seed-start " + std::to_string(options.seedStart) + " with --count " +
                std::to_string(options.count) + ": its last seed would pass " +
                std::to_string(UINT64_MAX));
  options.runBackend = backend;
  options.config.pipeline = pipeline;
  if (!loadPolicy(policyPath, options.policy))
    return kExitError;
  // A pipeline that does not parse is the command's input, not a failure
  // of each case (fuzz and run refuse it alike).
  if (backend) {
    MlirJit jit;
    if (!checkPipeline(jit, options.config))
      return kExitError;
  }
  SweepResult r = npufuzz::runSweep(options);
  printSweepReport(r, std::cout);
  return r.failures.empty() ? kExitOk : kExitFinding;
}

} // namespace npufuzz::tool
