//===- tools/npufuzz/RunCommand.cpp - npufuzz run ---------------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "backend/mlir/MlirEmitter.h"
#include "driver/CaseTask.h"
#include "ir/Case.h"
#include "oracles/CaseRunner.h"

#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &RunCommand() {
  static cl::SubCommand c("run", "Run one case end to end and print the verdict");
  return c;
}

namespace {
cl::opt<std::string> file(cl::Positional, cl::desc("<case.npf>"), cl::Required,
                          cl::sub(RunCommand()), cl::cat(category()));
cl::opt<std::string> pipeline("pipeline", cl::desc("O0, O2, random:SEED or a pass list"),
                              cl::init("O0"), cl::sub(RunCommand()), cl::cat(category()));
cl::opt<std::string> style("style", cl::desc("Lowering style: affine, tensor or npu"),
                           cl::init("affine"), cl::sub(RunCommand()), cl::cat(category()));
cl::opt<bool> emit("emit-mlir", cl::desc("Print the emitted MLIR"), cl::sub(RunCommand()),
                   cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::sub(RunCommand()), cl::cat(category()));
SecondsOpt timeout("timeout", cl::desc("Seconds before the case is a hang (1 to 86400)"),
                   cl::init(30), cl::sub(RunCommand()), cl::cat(category()));
BackendOptions backend(RunCommand());
PassStageOption stage(RunCommand());
LoweringSeedOption loweringSeed(RunCommand());
} // namespace

int runRun() {
  Case c;
  std::string text;
  if (!loadCase(file, c, &text) || !checkExpectLine(file, text))
    return kExitError;
  RunConfig config;
  const auto [recordedPipeline, recordedStyle] = pipelineAsRecorded(text, pipeline, style);
  if (!configureRun(recordedPipeline, recordedStyle, backend, stage, plugins, config))
    return kExitError;
  config.loweringSeed = loweringSeed.given();
  lowerAsRecorded(text, loweringSeed, stage, config);
  MlirJit jit;
  if (!loadPlugins(jit, plugins) || !checkPipeline(jit, config))
    return kExitError;
  if (emit && !runsExternally(config.backend)) {
    MlirKernel kernel;
    std::string unsupported;
    if (emitMlir(c, emitOptionsOf(config), kernel, unsupported))
      llvm::outs() << kernel.text;
  }
  // In an isolated child, with the oracles and blame of a campaign's
  // confirmation: a compiler that crashes is a verdict, and the signature
  // printed is the one a campaign would record.
  IsolationLimits limits;
  limits.wallSeconds = caseSeconds(timeout, config);
  const CaseReport report = runCaseIsolated(c, jit, config, limits);
  if (report.environmentError())
    return fail(report.result.message);
  const TaskResult &r = report.result;
  llvm::outs() << verdictName(r.verdict);
  if (!r.summary.empty())
    llvm::outs() << ": " << r.summary;
  llvm::outs() << "\n";
  // A verdict reached without the backend's values (PyTorchSim's model
  // could not run a kernel) says less than one that compared them.
  if (!r.valuesWhyNot.empty())
    llvm::outs() << "values not computed: " << r.valuesWhyNot << "\n";
  if (config.loweringSeed)
    llvm::outs() << "lowering: " << emitOptionsOf(config).plan.str(config.style) << "\n";
  printSwitches(config);
  if (r.verdict == VerdictKind::Ok)
    return kExitOk;
  llvm::outs() << "signature: " << report.signature.text() << " (" << report.signature.id()
               << ")\n";
  if (!r.message.empty())
    llvm::errs() << r.message;
  else if (!report.stderrText.empty())
    llvm::errs() << report.stderrText;
  return kExitFinding;
}

} // namespace npufuzz::tool
