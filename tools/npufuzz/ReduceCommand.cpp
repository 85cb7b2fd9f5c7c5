//===- tools/npufuzz/ReduceCommand.cpp - npufuzz reduce ---------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "driver/ReduceCommand.h"
#include "ir/FileText.h"
#include "oracles/RunConfig.h"

#include <iostream>
#include <tuple>

namespace npufuzz::tool {

cl::SubCommand &ReduceCommand() {
  static cl::SubCommand c("reduce", "Reduce a failing case and its pipeline");
  return c;
}

namespace {
cl::SubCommand &sub() { return ReduceCommand(); }
cl::opt<std::string> file(cl::Positional, cl::desc("<case.npf>"), cl::Required, cl::sub(sub()),
                          cl::cat(category()));
cl::opt<std::string> outDir("o", cl::desc("Output directory (case.npf, kernel.mlir, report.json)"),
                            cl::value_desc("DIR"), cl::Required, cl::sub(sub()),
                            cl::cat(category()));
cl::opt<std::string> pipeline("pipeline", cl::desc("O0, O2, random:SEED or passes"), cl::init("O0"),
                              cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> style("style", cl::desc("Lowering style: affine, tensor or npu"),
                           cl::init("affine"), cl::sub(sub()), cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::sub(sub()), cl::cat(category()));
cl::opt<double, false, RealParser<ReduceSeconds>>
    maxTime("max-time", cl::desc("Stop reducing after this many seconds (1 to 604800)"),
            cl::init(300), cl::sub(sub()), cl::cat(category()));
cl::opt<unsigned, false, CountParser<unsigned, 1, 64>>
    jobs("jobs", cl::desc("Candidates tested at once (1 to 64)"), cl::init(1), cl::sub(sub()),
         cl::cat(category()));
SecondsOpt timeout("timeout", cl::desc("Seconds per candidate before it is a hang (1 to 86400)"),
                   cl::init(30), cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> interestingness(
    "interestingness-cmd",
    cl::desc("Command (one quoted string, split like a shell would, but run without one) "
             "given the candidate .npf as its last argument; exit 0 = interesting"),
    cl::value_desc("ARGV"), cl::sub(sub()), cl::cat(category()));
cl::opt<bool> quiet("quiet", cl::desc("No progress lines"), cl::sub(sub()), cl::cat(category()));
BackendOptions backend(sub());
PassStageOption stage(sub());
LoweringSeedOption loweringSeed(sub());
} // namespace

int runReduce() {
  if (!checkPath("<case.npf>", file, PathKind::RegularFile))
    return kExitError;
  if (!checkPlugins(plugins))
    return kExitError;
  ReduceCommandOptions o;
  o.casePath = file;
  o.outDir = outDir;
  o.pipeline = pipeline;
  o.style = style;
  RunConfig staged;
  staged.loweringSeed = loweringSeed.given();
  if (!stage.set(staged))
    return kExitError;
  // The reducer reads the case itself; its expect line is read here.
  std::string text, error;
  if (readFileBytes(file, text, error, 64u << 20)) {
    lowerAsRecorded(text, loweringSeed, stage, staged);
    std::tie(o.pipeline, o.style) = pipelineAsRecorded(text, pipeline, style);
  }
  o.loweringSeed = staged.loweringSeed;
  o.stage = staged.stage;
  o.plugins = plugins;
  o.maxSeconds = maxTime;
  o.jobs = jobs;
  o.candidateTimeout = timeout;
  o.progress = !quiet;
  if (!interestingness.empty() &&
      !splitCommand("interestingness-cmd", interestingness, o.interestingnessCmd))
    return kExitError;
  RunConfig config;
  if (!backend.setUp(config))
    return kExitError;
  o.backend = config.backend;
  o.external = config.external;
  o.pto = config.pto;
  o.knownSignatures = config.knownSignatures;
  return runReduceCommand(o, std::cout);
}

} // namespace npufuzz::tool
