//===- tools/npufuzz/main.cpp - The npufuzz command line ------------------===//
//
// A thin front end: each subcommand parses its options with llvm::cl and
// calls into the libraries.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/Pipelines.h"
#include "driver/CaseRunner.h"
#include "driver/Sweep.h"
#include "driver/VerifyPipeline.h"
#include "generators/CaseGenerator.h"
#include "generators/Policy.h"
#include "ir/Text.h"
#include "reference/Executor.h"
#include "reference/Npy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <iostream>

using namespace npufuzz;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("npufuzz options");

// --- gen -------------------------------------------------------------------
cl::SubCommand genCmd("gen", "Print the case generated from a seed");
cl::opt<uint64_t> genSeed("seed", cl::desc("Generator seed"), cl::init(0),
                          cl::sub(genCmd), cl::cat(category));
cl::opt<std::string> genPolicy("policy", cl::desc("Policy file (key = value lines)"),
                               cl::value_desc("FILE"), cl::sub(genCmd), cl::cat(category));
cl::opt<std::string> genOut("o", cl::desc("Write the case here instead of stdout"),
                            cl::value_desc("FILE"), cl::sub(genCmd), cl::cat(category));

// --- check -----------------------------------------------------------------
cl::SubCommand checkCmd("check", "Parse and verify case files");
cl::list<std::string> checkFiles(cl::Positional, cl::desc("<case.npf>..."), cl::OneOrMore,
                                 cl::sub(checkCmd), cl::cat(category));

// --- ref -------------------------------------------------------------------
cl::SubCommand refCmd("ref", "Run a case on the reference; write inputs and outputs as .npy");
cl::opt<std::string> refFile(cl::Positional, cl::desc("<case.npf>"), cl::Required,
                             cl::sub(refCmd), cl::cat(category));
cl::opt<std::string> refOut("o", cl::desc("Output directory"), cl::value_desc("DIR"),
                            cl::Required, cl::sub(refCmd), cl::cat(category));

// --- sweep -----------------------------------------------------------------
cl::SubCommand sweepCmd("sweep",
                        "Generate, verify, round-trip and reference-run a range of seeds");
cl::opt<uint64_t> sweepStart("seed-start", cl::desc("First seed"), cl::init(0),
                             cl::sub(sweepCmd), cl::cat(category));
cl::opt<uint64_t> sweepCount("count", cl::desc("Number of seeds"), cl::init(1000),
                             cl::sub(sweepCmd), cl::cat(category));
cl::opt<std::string> sweepPolicy("policy", cl::desc("Policy file"), cl::value_desc("FILE"),
                                 cl::sub(sweepCmd), cl::cat(category));

cl::opt<bool> sweepBackend("backend", cl::desc("Also run every case on the in-process MLIR backend"),
                            cl::sub(sweepCmd), cl::cat(category));
cl::opt<std::string> sweepPipeline("pipeline", cl::desc("Pipeline for --backend (O0, O2, random:N, passes)"),
                                   cl::init("O0"), cl::sub(sweepCmd), cl::cat(category));

// --- run -------------------------------------------------------------------
cl::SubCommand runCmd("run", "Run one case end to end and print the verdict");
cl::opt<std::string> runFile(cl::Positional, cl::desc("<case.npf>"), cl::Required,
                             cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> runPipeline("pipeline", cl::desc("O0, O2, random:SEED or a pass list"),
                                 cl::init("O0"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> runStyle("style", cl::desc("Lowering style (affine)"), cl::init("affine"),
                              cl::sub(runCmd), cl::cat(category));
cl::opt<bool> runEmit("emit-mlir", cl::desc("Print the emitted MLIR"), cl::sub(runCmd),
                      cl::cat(category));
cl::list<std::string> runPlugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                                 cl::sub(runCmd), cl::cat(category));

// --- verify-pipeline ---------------------------------------------------------
cl::SubCommand verifyCmd("verify-pipeline",
                         "Verify the IR after every pass of a pipeline and blame the pass "
                         "that breaks it (JSON report)");
cl::opt<std::string> verifyFile(cl::Positional, cl::desc("<file.mlir>"), cl::Required,
                                cl::sub(verifyCmd), cl::cat(category));
cl::opt<std::string> verifyPipelineText("pipeline", cl::desc("Pass elements, comma-separated"),
                                        cl::Required, cl::sub(verifyCmd), cl::cat(category));
cl::opt<std::string> verifyOpt("opt", cl::desc("Run passes through this mlir-opt binary"),
                               cl::value_desc("PATH"), cl::sub(verifyCmd), cl::cat(category));
cl::list<std::string> verifyPlugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                                    cl::sub(verifyCmd), cl::cat(category));
cl::opt<std::string> verifyEntry("entry", cl::desc("Function to execute for the differential"),
                                 cl::init("npf_kernel"), cl::sub(verifyCmd), cl::cat(category));
cl::opt<bool> verifyNoExec("no-exec", cl::desc("Only verify; do not execute"),
                           cl::sub(verifyCmd), cl::cat(category));
cl::opt<std::string> verifyJson("json", cl::desc("Also write the report here"),
                                cl::value_desc("FILE"), cl::sub(verifyCmd), cl::cat(category));

int fail(const std::string &msg) {
  llvm::errs() << "npufuzz: " << msg << "\n";
  return 1;
}

bool loadPolicy(const std::string &path, Policy &policy) {
  policy = Policy::defaults();
  if (path.empty())
    return true;
  std::string error;
  if (!parsePolicyFile(path, policy, error)) {
    llvm::errs() << "npufuzz: " << path << ": " << error << "\n";
    return false;
  }
  return true;
}

bool loadCase(const std::string &path, Case &c) {
  TextError error;
  if (parseCaseFile(path, c, error))
    return true;
  llvm::errs() << error.format(path) << "\n";
  return false;
}

/// Writes `text` to `path` through a temporary file and a rename, so a reader
/// never sees a partial file.
bool writeFileAtomically(const std::string &path, const std::string &text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!(out << text) || !out.flush())
      return false;
  }
  return !llvm::sys::fs::rename(tmp, path);
}

int runGen() {
  Policy policy;
  if (!loadPolicy(genPolicy, policy))
    return 1;
  const std::string text = printCase(generateCase(genSeed, policy));
  if (genOut.empty()) {
    std::cout << text;
    return 0;
  }
  return writeFileAtomically(genOut, text) ? 0 : fail("cannot write " + genOut);
}

int runCheck() {
  int status = 0;
  for (const std::string &path : checkFiles) {
    Case c;
    if (!loadCase(path, c)) {
      status = 1;
      continue;
    }
    llvm::outs() << path << ": ok (" << c.numComputeOps() << " ops, " << c.outputs.size()
                 << " outputs)\n";
  }
  return status;
}

int runRef() {
  Case c;
  if (!loadCase(refFile, c))
    return 1;
  RefRun run = runReference(c);
  if (!run.ok())
    return fail("reference run failed: " + run.error);
  if (std::error_code ec = llvm::sys::fs::create_directories(refOut))
    return fail("cannot create " + refOut + ": " + ec.message());
  auto write = [&](const std::string &name, const RefTensor &t, bool mask) {
    llvm::SmallString<256> path(refOut);
    llvm::sys::path::append(path, name);
    std::string error;
    bool ok = mask ? writeNpyMask(path.str().str(), t, error)
                   : writeNpy(path.str().str(), t, error);
    if (!ok)
      llvm::errs() << "npufuzz: " << path << ": " << error << "\n";
    return ok;
  };
  bool ok = true;
  for (size_t i = 0; i < run.inputs.size(); ++i)
    ok &= write("in" + std::to_string(i) + ".npy", run.inputs[i], false);
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    ok &= write("out" + std::to_string(i) + ".npy", run.outputs[i], false);
    ok &= write("out" + std::to_string(i) + ".defined.npy", run.outputs[i], true);
  }
  llvm::outs() << "wrote " << run.inputs.size() << " input(s) and " << run.outputs.size()
               << " output(s) to " << refOut << "\n";
  return ok ? 0 : 1;
}

int runRun() {
  Case c;
  if (!loadCase(runFile, c))
    return 1;
  RunConfig config;
  config.pipeline = runPipeline;
  if (!parseMlirStyle(runStyle, config.style))
    return fail("unknown style '" + runStyle + "'");
  MlirJit jit;
  for (const std::string &plugin : runPlugins) {
    std::string error;
    if (!jit.loadPassPlugin(plugin, error))
      return fail("cannot load pass plugin " + plugin + ": " + error);
  }
  const CaseOutcome out = runCase(c, jit, config);
  if (runEmit)
    llvm::outs() << out.run.mlir;
  llvm::outs() << verdictName(out.verdict);
  if (!out.summary.empty())
    llvm::outs() << ": " << out.summary;
  llvm::outs() << "\n";
  if (!out.run.message.empty() && out.verdict != VerdictKind::Ok)
    llvm::errs() << out.run.message;
  return out.verdict == VerdictKind::Ok ? 0 : 1;
}

int runVerifyPipeline() {
  VerifyPipelineOptions options;
  options.file = verifyFile;
  options.pipeline = verifyPipelineText;
  options.mlirOpt = verifyOpt;
  options.passPlugins = verifyPlugins;
  options.entry = verifyEntry;
  options.execute = !verifyNoExec;
  const VerifyPipelineReport report = verifyPipelineFile(options);
  const std::string json = report.json();
  llvm::outs() << json;
  if (!verifyJson.empty() && !writeFileAtomically(verifyJson, json))
    return fail("cannot write " + verifyJson);
  return report.exitCode();
}

int runSweepCmd() {
  SweepOptions options;
  options.seedStart = sweepStart;
  options.count = sweepCount;
  options.runBackend = sweepBackend;
  options.config.pipeline = sweepPipeline;
  if (!loadPolicy(sweepPolicy, options.policy))
    return 1;
  SweepResult r = runSweep(options);
  printSweepReport(r, std::cout);
  return r.failures.empty() ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "npufuzz: property-based differential fuzzing for NPU tile compilers\n\n"
      "  npufuzz gen --seed N           print the case generated from seed N\n"
      "  npufuzz check CASE.npf...      parse and verify case files\n"
      "  npufuzz ref CASE.npf -o DIR    run the reference, write .npy inputs/outputs\n"
      "  npufuzz sweep --count N        generate + verify + reference-run N seeds\n"
      "  npufuzz run CASE.npf           compile and run a case, compare with the reference\n"
      "  npufuzz verify-pipeline F.mlir --pipeline P   blame the pass that breaks the IR\n");
  if (genCmd)
    return runGen();
  if (checkCmd)
    return runCheck();
  if (refCmd)
    return runRef();
  if (sweepCmd)
    return runSweepCmd();
  if (runCmd)
    return runRun();
  if (verifyCmd)
    return runVerifyPipeline();
  cl::PrintHelpMessage();
  return 2;
}
