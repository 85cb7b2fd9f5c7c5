//===- tools/npufuzz/FuzzCommand.cpp - npufuzz fuzz -------------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "driver/Campaign.h"
#include "generators/Policy.h"

#include <cstdint>
#include <iostream>
#include <thread>

namespace npufuzz::tool {

cl::SubCommand &FuzzCommand() {
  static cl::SubCommand c("fuzz", "Run a fuzz campaign with isolated workers");
  return c;
}

namespace {
cl::SubCommand &sub() { return FuzzCommand(); }
cl::opt<std::string> outDir("o", cl::desc("Campaign directory (findings, state, summary)"),
                            cl::value_desc("DIR"), cl::Required, cl::sub(sub()),
                            cl::cat(category()));
cl::opt<double, false, RealParser<CampaignSeconds>>
    maxTime("max-time", cl::desc("Stop after this many seconds (0: no limit; to 10000000)"),
            cl::init(0), cl::sub(sub()), cl::cat(category()));
cl::opt<unsigned long long, false, CountParser<unsigned long long, 0, 1000000000000ull>>
    maxCases("max-cases",
             cl::desc("Stop once the campaign has this many cases, counting those of earlier "
                      "runs in the directory (0: no limit; to 10^12)"),
             cl::init(0), cl::sub(sub()), cl::cat(category()));
cl::opt<unsigned, false, CountParser<unsigned, 0, 256>>
    jobs("jobs", cl::desc("Concurrent workers (0 to 256; 0: one per core)"), cl::init(0),
         cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> pipeline("pipeline", cl::desc("O0, O2, random:SEED or passes"), cl::init("O0"),
                              cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> style("style", cl::desc("Lowering style: affine, tensor or npu"),
                           cl::init("affine"), cl::sub(sub()), cl::cat(category()));
SeedOpt seedStart("seed-start", cl::desc("First seed"), cl::init(0), cl::sub(sub()),
                  cl::cat(category()));
cl::opt<std::string> shard("shard", cl::desc("Take seeds I, I+N, ... (I/N, N up to 65536)"),
                           cl::init("0/1"), cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> policyPath("policy", cl::desc("Policy file"), cl::value_desc("FILE"),
                                cl::sub(sub()), cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::sub(sub()), cl::cat(category()));
SecondsOpt timeout("timeout", cl::desc("Seconds per case before it is a hang (1 to 86400)"),
                   cl::init(30), cl::sub(sub()), cl::cat(category()));
MemoryMbOpt memory("memory-mb", cl::desc("Address-space limit per worker (MiB, 512 to 1048576)"),
                   cl::init(8192), cl::sub(sub()), cl::cat(category()));
cl::opt<bool> quiet("quiet", cl::desc("No progress line"), cl::sub(sub()), cl::cat(category()));
cl::opt<bool> noReduce("no-reduce", cl::desc("Do not reduce new signatures"), cl::sub(sub()),
                       cl::cat(category()));
cl::opt<bool> reduceKnown("reduce-known",
                          cl::desc("Reduce also the signatures --known lists by their id alone "
                                   "(by default they are left unreduced: already triaged)"),
                          cl::sub(sub()), cl::cat(category()));
cl::opt<bool> confirmEvery(
    "confirm-every-failure",
    cl::desc("Confirm and blame every failing case in a fresh process, also those whose worker saw "
             "them fail as cases already traced to one root (which are otherwise filed under it "
             "unconfirmed, but one in four)"),
    cl::sub(sub()), cl::cat(category()));
cl::opt<double, false, RealParser<Share>>
    metamorphic("metamorphic-share",
                cl::desc("Share of cases that also run the view and lane metamorphic variants "
                         "(0 to 1)"),
                cl::init(0.25), cl::sub(sub()), cl::cat(category()));
cl::opt<unsigned, false, CountParser<unsigned, 1, 1000000>> casesPerWorker(
    "cases-per-worker",
    cl::desc("Cases a worker process serves before a fresh fork replaces it (1 to 1000000; 1: "
             "a fork per case)"),
    cl::init(500), cl::sub(sub()), cl::cat(category()));
SeedOpt maxFindings("max-findings",
                    cl::desc("Stop once this many failing cases are recorded in this run (1: "
                             "at the first; the exit status is then 1; 0, the default: no "
                             "limit); with --known, failing cases of signatures listed by id "
                             "alone do not count"),
                    cl::init(0), cl::sub(sub()), cl::cat(category()));
cl::opt<double, false, RealParser<ReduceSeconds>>
    reduceTime("reduce-time", cl::desc("Seconds to reduce each new signature (1 to 604800)"),
               cl::init(60), cl::sub(sub()), cl::cat(category()));
cl::opt<bool> canonical("canonical-lowering",
                        cl::desc("Lower every case with the canonical plan instead of the one "
                                 "its seed draws"),
                        cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> guidance(
    "guidance",
    cl::desc("How cases are chosen: feedback (a share are mutants of cases that reached new "
             "feedback: IR forms each pass was given, passes that changed it, diagnostics, case "
             "features) or none (every case generated from its seed; the default)"),
    cl::value_desc("feedback|none"), cl::init("none"), cl::sub(sub()), cl::cat(category()));
cl::opt<unsigned, false, CountParser<unsigned, 1, 4096>> guidanceEpoch(
    "guidance-epoch",
    cl::desc("With --guidance feedback, case indices per epoch (1 to 4096; 128 by default): "
             "the first mutants come at twice it, so a backend whose cases take seconds wants "
             "a small one (docs/guidance.md)"),
    cl::init(unsigned(kDefaultGuidanceEpoch)), cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> compilerCoverage(
    "compiler-coverage",
    cl::desc("Measure the lines and branches of the compiler under test each case reaches "
             "(inductor, tvm and pytorchsim, with SlipCover in the adapter; "
             "docs/compiler-coverage.md): on (the default) or off"),
    cl::value_desc("on|off"), cl::init("on"), cl::sub(sub()), cl::cat(category()));
BackendOptions backend(sub());
PassStageOption stage(sub());
} // namespace

int runFuzz() {
  CampaignOptions options;
  options.outDir = outDir;
  options.seedStart = seedStart;
  options.maxCases = maxCases;
  options.maxSeconds = maxTime;
  options.jobs = jobs ? jobs.getValue() : std::max(1u, std::thread::hardware_concurrency());
  options.config.pipeline = pipeline;
  options.seededLowering = !canonical;
  if (!stage.set(options.config))
    return kExitError;
  if (!parseMlirStyle(style, options.config.style))
    return fail("unknown style '" + style + "'");
  if (!parseShard(shard, options.shardIndex, options.shardCount))
    return kExitError;
  // A campaign whose seeds would pass kMaxCampaignSeed is refused, not run
  // on wrapped or unresumable seeds.
  if (options.seedStart > kMaxCampaignSeed)
    return fail("--seed-start " + std::to_string(options.seedStart) + ": at most " +
                std::to_string(kMaxCampaignSeed) +
                " (seeds are recorded as 64-bit signed integers)");
  if (const uint64_t limit = seedIndexLimit(options);
      limit == 0 || (options.maxCases && options.maxCases > limit))
    return fail("--seed-start " + std::to_string(options.seedStart) + " with --max-cases " +
                std::to_string(options.maxCases) + ": its last seed would pass " +
                std::to_string(kMaxCampaignSeed));
  if (!policyPath.empty() && !checkPath("--policy", policyPath, PathKind::RegularFile))
    return kExitError;
  if (!loadPolicy(policyPath, options.policy))
    return kExitError;
  if (policyPath.empty())
    options.policy = defaultPolicyFor(backend.name.getValue());
  options.policyPath = policyPath;
  if (!checkMemoryLimit("--memory-mb", memory))
    return kExitError;
  options.limits.addressSpaceBytes = static_cast<uint64_t>(memory) << 20;
  options.progress = !quiet;
  if (!backend.setUp(options.config))
    return kExitError;
  options.limits.wallSeconds = caseSeconds(timeout, options.config);
  options.reduce = !noReduce;
  options.reduceKnown = reduceKnown;
  options.config.metamorphicShare = metamorphic;
  options.reduceSeconds = reduceTime;
  options.casesPerWorker = casesPerWorker;
  options.maxFindings = maxFindings;
  options.classifyKnownRoots = !confirmEvery;
  options.passPlugins = plugins;
  if (!parseGuidance(guidance, options.guidance))
    return fail("--guidance " + guidance + ": give feedback or none");
  if (guidanceEpoch.getNumOccurrences() && options.guidance != Guidance::Feedback)
    return fail("--guidance-epoch is for guided campaigns: give --guidance feedback with it");
  options.guidanceEpoch = guidanceEpoch;
  if (compilerCoverage != "on" && compilerCoverage != "off")
    return fail("--compiler-coverage " + compilerCoverage + ": give on or off");
  options.compilerCoverage = compilerCoverage == "on";
  options.backendFlags = backend.reproFlags();
  MlirJit jit;
  if (!loadPlugins(jit, plugins) || !checkPipeline(jit, options.config))
    return kExitError;
  const CampaignResult r = runCampaign(options, jit);
  if (!r.error.empty())
    return fail(r.error);
  printCampaignSummary(r, std::cout);
  return r.stoppedAtMaxFindings ? kExitFinding : kExitOk;
}

} // namespace npufuzz::tool
