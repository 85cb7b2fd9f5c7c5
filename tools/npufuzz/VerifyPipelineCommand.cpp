//===- tools/npufuzz/VerifyPipelineCommand.cpp - npufuzz verify-pipeline ----===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "driver/Isolation.h"
#include "driver/VerifyPipeline.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace npufuzz::tool {

cl::SubCommand &VerifyPipelineCommand() {
  static cl::SubCommand c("verify-pipeline",
                          "Verify the IR after every pass of a pipeline and blame the pass "
                          "that breaks it (JSON report)");
  return c;
}

namespace {
cl::SubCommand &sub() { return VerifyPipelineCommand(); }
cl::opt<std::string> file(cl::Positional, cl::desc("<file.mlir>"), cl::Required, cl::sub(sub()),
                          cl::cat(category()));
cl::opt<std::string> pipeline("pipeline", cl::desc("Pass elements, comma-separated"), cl::Required,
                              cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> opt("opt", cl::desc("Run passes through this mlir-opt binary"),
                         cl::value_desc("PATH"), cl::sub(sub()), cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::sub(sub()), cl::cat(category()));
cl::opt<std::string>
    entry("entry",
          cl::desc("Function to execute for the differential (default: every public function)"),
          cl::sub(sub()), cl::cat(category()));
cl::opt<bool> noExec("no-exec", cl::desc("Only verify; do not execute"), cl::sub(sub()),
                     cl::cat(category()));
SecondsOpt timeout("timeout",
                   cl::desc("Seconds for the whole run before it is timed-out (1 to 86400)"),
                   cl::init(600), cl::sub(sub()), cl::cat(category()));
MemoryMbOpt memory("memory-mb", cl::desc("Address-space limit of the run (MiB, 512 to 1048576)"),
                   cl::init(8192), cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> json("json", cl::desc("Also write the report here"), cl::value_desc("FILE"),
                          cl::sub(sub()), cl::cat(category()));
} // namespace

int runVerifyPipeline() {
  if (!checkPath("<file.mlir>", file, PathKind::RegularFile))
    return kExitError;
  if (!opt.empty() && !checkPath("--opt", opt, PathKind::Executable))
    return kExitError;
  if (!checkPlugins(plugins))
    return kExitError;
  if (!checkMemoryLimit("--memory-mb", memory))
    return kExitError;
  VerifyPipelineOptions options;
  options.file = file;
  options.pipeline = pipeline;
  options.mlirOpt = opt;
  options.passPlugins = plugins;
  options.entry = entry;
  options.execute = !noExec;
  IsolationLimits limits;
  limits.wallSeconds = timeout;
  limits.addressSpaceBytes = static_cast<uint64_t>(memory) << 20;
  // Passes run in a forked child: a crash of the compiler under test is a
  // verdict, not the end of npufuzz.
  const VerifyPipelineReport report = verifyPipelineIsolated(options, limits);
  const std::string text = report.json();
  llvm::outs() << text;
  // Exit 2 names its cause on stderr too, not only in the report.
  if (report.exitCode() == kExitError) {
    std::string why =
        (report.diagnostic.empty() ? report.detail : report.diagnostic).substr(0, 300);
    std::replace(why.begin(), why.end(), '\n', ' ');
    llvm::errs() << "npufuzz: verify-pipeline: " << why << "\n";
  }
  if (!json.empty() && !writeOutputFile(json, text))
    return kExitError;
  return report.exitCode();
}

} // namespace npufuzz::tool
