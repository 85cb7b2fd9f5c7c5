//===- tools/npufuzz/SeedCommand.cpp - npufuzz --seed N ---------------------===//
//
// At the top level, not a subcommand: `npufuzz --seed N` is the one line a
// finding's repro gives.
//
//===----------------------------------------------------------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "backend/mlir/LoweringPlan.h"
#include "backend/mlir/MlirEmitter.h"
#include "driver/CaseTask.h"
#include "driver/Findings.h"
#include "generators/CaseGenerator.h"
#include "generators/Policy.h"
#include "ir/Text.h"
#include "oracles/Backend.h"
#include "oracles/CaseRunner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

namespace {
cl::SubCommand &top() { return cl::SubCommand::getTopLevel(); }
SeedOpt seed("seed", cl::desc("Regenerate case N, run it, print the verdict and write its repro"),
             cl::cat(category()));
cl::opt<std::string> pipeline("pipeline", cl::desc("Pipeline for --seed"), cl::init("O0"),
                              cl::cat(category()));
cl::opt<std::string> style("style", cl::desc("Lowering style for --seed: affine, tensor or npu"),
                           cl::init("affine"), cl::cat(category()));
cl::opt<std::string> policyPath("policy", cl::desc("Policy file for --seed"),
                                cl::value_desc("FILE"), cl::cat(category()));
cl::opt<std::string> outDir("o", cl::desc("Where --seed writes its repro"), cl::value_desc("DIR"),
                            cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::cat(category()));
SecondsOpt timeout("timeout", cl::desc("Seconds for --seed before it is a hang (1 to 86400)"),
                   cl::init(30), cl::cat(category()));
cl::opt<bool> canonical("canonical-lowering",
                        cl::desc("Lower the case with the canonical plan instead of the one its "
                                 "seed draws"),
                        cl::cat(category()));
BackendOptions backend(top());
PassStageOption stage(top());
} // namespace

bool seedRequested() { return seed.getNumOccurrences() > 0; }

int runSeed() {
  Policy policy;
  if (!policyPath.empty() && !checkPath("--policy", policyPath, PathKind::RegularFile))
    return kExitError;
  if (!loadPolicy(policyPath, policy))
    return kExitError;
  if (policyPath.empty())
    policy = defaultPolicyFor(backend.name.getValue());
  RunConfig config;
  if (!configureRun(pipeline, style, backend, stage, plugins, config))
    return kExitError;
  if (!canonical)
    config.loweringSeed = loweringSeedOf(seed);
  MlirJit jit;
  if (!loadPlugins(jit, plugins) || !checkPipeline(jit, config))
    return kExitError;
  const std::string dir =
      outDir.empty() ? "npufuzz-repro-" + std::to_string(seed.getValue()) : outDir.getValue();
  if (llvm::sys::fs::exists(dir) && !llvm::sys::fs::is_directory(dir))
    return fail("-o " + dir + ": exists and is not a directory");
  const Case c = generateCase(seed, policy);
  IsolationLimits limits;
  limits.wallSeconds = caseSeconds(timeout, config);
  // The same isolated worker a campaign uses, so the verdict and signature
  // are those the campaign recorded.
  const CaseReport report = runCaseIsolated(c, jit, config, limits);
  if (report.environmentError())
    return fail(report.result.message);
  llvm::outs() << "seed " << seed << ": " << verdictName(report.result.verdict);
  if (!report.result.summary.empty())
    llvm::outs() << ": " << report.result.summary;
  llvm::outs() << "\nsignature: " << report.signature.text() << "\n";
  if (!report.result.valuesWhyNot.empty())
    llvm::outs() << "values not computed: " << report.result.valuesWhyNot << "\n";
  llvm::outs() << "lowering: " << emitOptionsOf(config).plan.str(config.style);
  // What `run CASE.npf --lowering-seed K` takes to lower the case the same way.
  if (config.loweringSeed)
    llvm::outs() << " (--lowering-seed " << *config.loweringSeed << ")";
  llvm::outs() << "\n";
  printSwitches(config);
  if (report.result.verdict == VerdictKind::Ok)
    return kExitOk; // nothing to reproduce
  Finding f;
  f.seed = seed;
  f.caseText = printCase(c);
  MlirKernel kernel;
  std::string unsupported;
  if (emitMlir(c, emitOptionsOf(config), kernel, unsupported))
    f.mlir = kernel.text;
  // Everything a campaign's finding has: the backend's own programs too
  // (on pto, kernel.pto and ptoas's kernel.cpp).
  f.extraFiles = makeBackend(config)->programs(c);
  f.loweringSeed = config.loweringSeed;
  f.stage = std::string(passStageName(config.stage));
  f.canonicalLowering = canonical;
  f.report = report;
  f.pipeline = config.pipeline;
  f.style = style;
  f.policyPath = policyPath;
  f.backend = backend.name;
  f.backendFlags = backend.reproFlags();
  f.passPlugins = plugins;
  std::string error;
  recordFinding(dir, f, error);
  if (!error.empty())
    return fail("cannot write the repro: " + error);
  llvm::outs() << "repro: " << dir << "/findings/" << report.signature.id() << "/\n";
  return kExitFinding;
}

} // namespace npufuzz::tool
