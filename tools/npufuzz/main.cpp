//===- tools/npufuzz/main.cpp - The npufuzz command line ------------------===//
//
// A thin front end: each subcommand parses its options with llvm::cl and
// calls into the libraries.
//
//===----------------------------------------------------------------------===//
#include "backend/external/CaseDirMlirTools.h"
#include "backend/mlir/Pipelines.h"
#include "backend/mlir/RunningStage.h"
#include "driver/Campaign.h"
#include "driver/CaseTask.h"
#include "driver/Findings.h"
#include "driver/IrCoverage.h"
#include "driver/ReduceCommand.h"
#include "driver/Report.h"
#include "driver/Sweep.h"
#include "driver/VerifyPipeline.h"
#include "generators/CaseGenerator.h"
#include "generators/FuzzInput.h"
#include "generators/Policy.h"
#include "ir/FileText.h"
#include "ir/Npy.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "reference/Executor.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

using namespace npufuzz;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("npufuzz options");

// --- gen -------------------------------------------------------------------
cl::SubCommand genCmd("gen", "Print the case generated from a seed");
cl::opt<uint64_t> genSeed("seed", cl::desc("Generator seed"), cl::init(0), cl::sub(genCmd),
                          cl::cat(category));
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
cl::opt<std::string> refFile(cl::Positional, cl::desc("<case.npf>"), cl::Required, cl::sub(refCmd),
                             cl::cat(category));
cl::opt<std::string> refOut("o", cl::desc("Output directory"), cl::value_desc("DIR"), cl::Required,
                            cl::sub(refCmd), cl::cat(category));

// --- sweep -----------------------------------------------------------------
cl::SubCommand sweepCmd("sweep", "Generate, verify, round-trip and reference-run a range of seeds");
cl::opt<uint64_t> sweepStart("seed-start", cl::desc("First seed"), cl::init(0), cl::sub(sweepCmd),
                             cl::cat(category));
cl::opt<uint64_t> sweepCount("count", cl::desc("Number of seeds"), cl::init(1000),
                             cl::sub(sweepCmd), cl::cat(category));
cl::opt<std::string> sweepPolicy("policy", cl::desc("Policy file"), cl::value_desc("FILE"),
                                 cl::sub(sweepCmd), cl::cat(category));

cl::opt<bool> sweepBackend("backend",
                           cl::desc("Also run every case on the in-process MLIR backend"),
                           cl::sub(sweepCmd), cl::cat(category));
cl::opt<std::string> sweepPipeline("pipeline",
                                   cl::desc("Pipeline for --backend (O0, O2, random:N, passes)"),
                                   cl::init("O0"), cl::sub(sweepCmd), cl::cat(category));

// --- run -------------------------------------------------------------------
cl::SubCommand runCmd("run", "Run one case end to end and print the verdict");
cl::opt<std::string> runFile(cl::Positional, cl::desc("<case.npf>"), cl::Required, cl::sub(runCmd),
                             cl::cat(category));
cl::opt<std::string> runPipeline("pipeline", cl::desc("O0, O2, random:SEED or a pass list"),
                                 cl::init("O0"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> runStyle("style", cl::desc("Lowering style: affine, tensor or npu"),
                              cl::init("affine"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> runOpt("opt", cl::desc("mlir-opt for --backend mlir-tools"),
                            cl::init("mlir-opt-22"), cl::sub(runCmd), cl::cat(category));
cl::opt<std::string> runRunner("runner", cl::desc("mlir-runner for --backend mlir-tools"),
                               cl::init("mlir-runner-22"), cl::sub(runCmd), cl::cat(category));
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
cl::opt<std::string> verifyEntry(
    "entry", cl::desc("Function to execute for the differential (default: every public function)"),
    cl::sub(verifyCmd), cl::cat(category));
cl::opt<bool> verifyNoExec("no-exec", cl::desc("Only verify; do not execute"), cl::sub(verifyCmd),
                           cl::cat(category));
cl::opt<double> verifyTimeout("timeout",
                              cl::desc("Seconds for the whole run before it is timed-out"),
                              cl::init(600), cl::sub(verifyCmd), cl::cat(category));
cl::opt<uint64_t> verifyMemory("memory-mb", cl::desc("Address-space limit of the run (MiB)"),
                               cl::init(8192), cl::sub(verifyCmd), cl::cat(category));
cl::opt<std::string> verifyJson("json", cl::desc("Also write the report here"),
                                cl::value_desc("FILE"), cl::sub(verifyCmd), cl::cat(category));

// --- fuzz ------------------------------------------------------------------
cl::SubCommand fuzzCmd("fuzz", "Run a fuzz campaign with isolated workers");
cl::opt<std::string> fuzzOut("o", cl::desc("Campaign directory (findings, state, summary)"),
                             cl::value_desc("DIR"), cl::Required, cl::sub(fuzzCmd),
                             cl::cat(category));
cl::opt<double> fuzzMaxTime("max-time", cl::desc("Stop after this many seconds"), cl::init(0),
                            cl::sub(fuzzCmd), cl::cat(category));
cl::opt<uint64_t> fuzzMaxCases("max-cases", cl::desc("Stop after this many cases"), cl::init(0),
                               cl::sub(fuzzCmd), cl::cat(category));
cl::opt<unsigned> fuzzJobs("jobs", cl::desc("Concurrent workers (default: cores)"), cl::init(0),
                           cl::sub(fuzzCmd), cl::cat(category));
cl::opt<std::string> fuzzPipeline("pipeline", cl::desc("O0, O2, random:SEED or passes"),
                                  cl::init("O0"), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<std::string> fuzzStyle("style", cl::desc("Lowering style: affine, tensor or npu"),
                               cl::init("affine"), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<uint64_t> fuzzSeedStart("seed-start", cl::desc("First seed"), cl::init(0), cl::sub(fuzzCmd),
                                cl::cat(category));
cl::opt<std::string> fuzzShard("shard", cl::desc("Take seeds I, I+N, ... (I/N)"), cl::init("0/1"),
                               cl::sub(fuzzCmd), cl::cat(category));
cl::opt<std::string> fuzzPolicy("policy", cl::desc("Policy file"), cl::value_desc("FILE"),
                                cl::sub(fuzzCmd), cl::cat(category));
cl::list<std::string> fuzzPlugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                                  cl::sub(fuzzCmd), cl::cat(category));
cl::opt<double> fuzzTimeout("timeout", cl::desc("Seconds per case before it is a hang"),
                            cl::init(30), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<uint64_t> fuzzMemory("memory-mb", cl::desc("Address-space limit per worker (MiB)"),
                             cl::init(8192), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<bool> fuzzQuiet("quiet", cl::desc("No progress line"), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<bool> fuzzNoReduce("no-reduce", cl::desc("Do not reduce new signatures"), cl::sub(fuzzCmd),
                           cl::cat(category));
cl::opt<double> fuzzMetamorphic("metamorphic-share",
                                cl::desc("Share of cases that also run the view and lane "
                                         "metamorphic variants (0..1)"),
                                cl::init(0.25), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<unsigned> fuzzCasesPerWorker(
    "cases-per-worker",
    cl::desc("Cases a worker process serves before a fresh fork replaces it (1: a fork "
             "per case)"),
    cl::init(500), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<uint64_t> fuzzMaxFindings(
    "max-findings",
    cl::desc("Stop once this many failing cases are recorded in this run (1: at the first; "
             "the exit status is then 1)"),
    cl::init(0), cl::sub(fuzzCmd), cl::cat(category));
cl::opt<double> fuzzReduceTime("reduce-time", cl::desc("Seconds to reduce each new signature"),
                               cl::init(60), cl::sub(fuzzCmd), cl::cat(category));

// --- merge -----------------------------------------------------------------
cl::SubCommand mergeCmd("merge", "Combine campaign directories (e.g. of shards)");
cl::opt<std::string> mergeOut("o", cl::desc("Merged directory"), cl::value_desc("DIR"),
                              cl::Required, cl::sub(mergeCmd), cl::cat(category));
cl::list<std::string> mergeInputs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                                  cl::sub(mergeCmd), cl::cat(category));

// --- reduce / replay ---------------------------------------------------------
cl::SubCommand reduceCmd("reduce", "Reduce a failing case and its pipeline");
cl::opt<std::string> reduceFile(cl::Positional, cl::desc("<case.npf>"), cl::Required,
                                cl::sub(reduceCmd), cl::cat(category));
cl::opt<std::string> reduceOut("o",
                               cl::desc("Output directory (case.npf, kernel.mlir, "
                                        "report.json)"),
                               cl::value_desc("DIR"), cl::Required, cl::sub(reduceCmd),
                               cl::cat(category));
cl::opt<std::string> reducePipeline("pipeline", cl::desc("O0, O2, random:SEED or passes"),
                                    cl::init("O0"), cl::sub(reduceCmd), cl::cat(category));
cl::opt<std::string> reduceStyle("style", cl::desc("Lowering style: affine, tensor or npu"),
                                 cl::init("affine"), cl::sub(reduceCmd), cl::cat(category));
cl::list<std::string> reducePlugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                                    cl::sub(reduceCmd), cl::cat(category));
cl::opt<double> reduceMaxTime("max-time", cl::desc("Stop reducing after this many seconds"),
                              cl::init(300), cl::sub(reduceCmd), cl::cat(category));
cl::opt<unsigned> reduceJobs("jobs", cl::desc("Candidates tested at once"), cl::init(1),
                             cl::sub(reduceCmd), cl::cat(category));
cl::opt<double> reduceTimeout("timeout", cl::desc("Seconds per candidate before it is a hang"),
                              cl::init(30), cl::sub(reduceCmd), cl::cat(category));
cl::opt<std::string> reduceInterestingness(
    "interestingness-cmd",
    cl::desc("Command (one quoted string, split like a shell would, but run without one) "
             "given the candidate .npf as its last argument; exit 0 = interesting"),
    cl::value_desc("ARGV"), cl::sub(reduceCmd), cl::cat(category));
cl::opt<bool> reduceQuiet("quiet", cl::desc("No progress lines"), cl::sub(reduceCmd),
                          cl::cat(category));

cl::SubCommand
    externalMlirCmd("external-mlir",
                    "Run an external-backend case directory through mlir-opt + mlir-runner "
                    "and write its outK.npy (the adapter of docs/external-backends.md)");
cl::opt<std::string> externalMlirDir(cl::Positional, cl::desc("<case dir>"), cl::Required,
                                     cl::sub(externalMlirCmd), cl::cat(category));
cl::opt<std::string> externalMlirOpt("opt", cl::desc("mlir-opt binary"), cl::init("mlir-opt-22"),
                                     cl::sub(externalMlirCmd), cl::cat(category));
cl::opt<std::string> externalMlirRunner("runner", cl::desc("mlir-runner binary"),
                                        cl::init("mlir-runner-22"), cl::sub(externalMlirCmd),
                                        cl::cat(category));

cl::SubCommand replayCmd("replay", "Re-run regression cases; fail if a verdict changed");
cl::opt<std::string> replayDir(cl::Positional, cl::desc("<dir of .npf regressions>"), cl::Required,
                               cl::sub(replayCmd), cl::cat(category));
cl::list<std::string> replayPlugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                                    cl::sub(replayCmd), cl::cat(category));

// --- npufuzz --seed N (top level) --------------------------------------------
cl::opt<uint64_t> topSeed("seed",
                          cl::desc("Regenerate case N, run it, print the verdict and "
                                   "write its repro"),
                          cl::cat(category));
cl::opt<std::string> topPipeline("pipeline", cl::desc("Pipeline for --seed"), cl::init("O0"),
                                 cl::cat(category));
cl::opt<std::string> topStyle("style", cl::desc("Lowering style for --seed: affine, tensor or npu"),
                              cl::init("affine"), cl::cat(category));
cl::opt<std::string> topPolicy("policy", cl::desc("Policy file for --seed"), cl::value_desc("FILE"),
                               cl::cat(category));
cl::opt<std::string> topOut("o", cl::desc("Where --seed writes its repro"), cl::value_desc("DIR"),
                            cl::cat(category));
cl::list<std::string> topPlugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                                 cl::cat(category));
cl::opt<double> topTimeout("timeout", cl::desc("Seconds for --seed before it is a hang"),
                           cl::init(30), cl::cat(category));

// --- where a case runs: one set of options for run, fuzz, reduce and --seed
cl::opt<std::string>
    backendName("backend", cl::desc("mlir-jit (in process), mlir-tools, external, torch or pto"),
                cl::init("mlir-jit"), cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
                cl::sub(replayCmd), cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::opt<std::string>
    externalCmd("cmd",
                cl::desc("Command for --backend external (one quoted string, split like a shell "
                         "would, run without one; {dir} is the case directory)"),
                cl::value_desc("ARGV"), cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
                cl::sub(replayCmd), cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::opt<bool> externalPersistent(
    "persistent",
    cl::desc("With --backend external: start the command once and send it case directories on "
             "stdin (docs/external-backends.md)"),
    cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd), cl::sub(replayCmd),
    cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::opt<std::string> torchPythonPath(
    "python",
    cl::desc("Python for --backend torch (default: $NPUFUZZ_PYTHON, else /usr/bin/python3)"),
    cl::value_desc("PATH"), cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
    cl::sub(replayCmd), cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::opt<std::string> ptoasPath("ptoas",
                               cl::desc("ptoas for --backend pto (default: $NPUFUZZ_PTOAS)"),
                               cl::value_desc("PATH"), cl::sub(runCmd), cl::sub(fuzzCmd),
                               cl::sub(reduceCmd), cl::sub(replayCmd),
                               cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::opt<std::string> ptoIsaDir("pto-isa",
                               cl::desc("pto-isa's include directory for --backend pto (default: "
                                        "$NPUFUZZ_PTO_ISA)"),
                               cl::value_desc("DIR"), cl::sub(runCmd), cl::sub(fuzzCmd),
                               cl::sub(reduceCmd), cl::sub(replayCmd),
                               cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::opt<std::string> ptoArch("pto-arch", cl::desc("ptoas --pto-arch: a3 (default) or a5"),
                             cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
                             cl::sub(replayCmd), cl::sub(cl::SubCommand::getTopLevel()),
                             cl::cat(category));
cl::opt<std::string>
    ptoMemcheck("pto-memcheck",
                cl::desc("Share of pto kernels run under valgrind memcheck, 0 to 1 (default 0.02)"),
                cl::value_desc("SHARE"), cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
                cl::sub(replayCmd), cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));
cl::list<std::string> ptoasFlags("ptoas-flag", cl::desc("One more ptoas option (repeatable)"),
                                 cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
                                 cl::sub(replayCmd), cl::sub(cl::SubCommand::getTopLevel()),
                                 cl::cat(category));

// --- lowering plans (backend/mlir/LoweringPlan.h) ------------------------------
cl::opt<uint64_t> loweringSeed("lowering-seed",
                               cl::desc("Lower the case with the plan this seed draws (default: "
                                        "the canonical plan); findings give it"),
                               cl::value_desc("SEED"), cl::sub(runCmd), cl::sub(reduceCmd),
                               cl::cat(category));
cl::opt<bool> canonicalLowering(
    "canonical-lowering",
    cl::desc("Lower every case with the canonical plan instead of the one its seed draws"),
    cl::sub(fuzzCmd), cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));

cl::opt<std::string> passStage(
    "pass-stage",
    cl::desc("Where the pipeline's passes run: entry (on the emitted IR), bufferized (after the "
             "tensor style's bufferization) or loops (after the lowering to loops and vectors)"),
    cl::init("entry"), cl::sub(runCmd), cl::sub(fuzzCmd), cl::sub(reduceCmd),
    cl::sub(cl::SubCommand::getTopLevel()), cl::cat(category));

/// Sets config.stage from --pass-stage; false (with the error printed) for
/// an unknown stage.
bool setPassStage(RunConfig &config) {
  if (parsePassStage(passStage, config.stage))
    return true;
  llvm::errs() << "npufuzz: unknown --pass-stage '" << passStage
               << "' (entry, bufferized or loops)\n";
  return false;
}

/// --lowering-seed when given.
std::optional<uint64_t> givenLoweringSeed() {
  if (!loweringSeed.getNumOccurrences())
    return std::nullopt;
  return loweringSeed.getValue();
}

// --- report ------------------------------------------------------------------
cl::SubCommand reportCmd("report", "JSON, JUnit XML and HTML reports of campaign directories");
cl::list<std::string> reportDirs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                                 cl::sub(reportCmd), cl::cat(category));
cl::opt<std::string> reportOut("o", cl::desc("Report directory"), cl::value_desc("DIR"),
                               cl::Required, cl::sub(reportCmd), cl::cat(category));
cl::opt<std::string> reportKnown("known", cl::desc("Known signature ids, one per line"),
                                 cl::value_desc("FILE"), cl::sub(reportCmd), cl::cat(category));

// --- stats -------------------------------------------------------------------
cl::SubCommand statsCmd("stats", "IR coverage of campaign directories: the ops the user's passes "
                                 "were given, and which passes changed the IR");
cl::list<std::string> statsDirs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                                cl::sub(statsCmd), cl::cat(category));

// --- from-bytes ----------------------------------------------------------------
cl::SubCommand fromBytesCmd("from-bytes",
                            "Decode a fuzzer input (libFuzzer, AFL++) into its .npf case");
cl::opt<std::string> fromBytesFile(cl::Positional, cl::desc("<input>"), cl::Required,
                                   cl::sub(fromBytesCmd), cl::cat(category));
cl::opt<std::string> fromBytesOut("o", cl::desc("Write the case here instead of stdout"),
                                  cl::value_desc("FILE"), cl::sub(fromBytesCmd), cl::cat(category));

/// Exit statuses: 0 ok, 1 a finding (a failing verdict, new signatures),
/// 2 an error in what npufuzz was given.
int fail(const std::string &msg) {
  llvm::errs() << "npufuzz: " << msg << "\n";
  return 2;
}

bool loadPolicy(const std::string &path, Policy &policy) {
  policy = Policy::defaults();
  if (path.empty())
    return true;
  std::string error;
  if (!parsePolicyFile(path, policy, error)) {
    llvm::errs() << "npufuzz: " << error << "\n";
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
    return 2;
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
    return 2;
  RefRun run = runReference(c);
  if (!run.ok())
    return fail("reference run failed: " + run.error);
  if (std::error_code ec = llvm::sys::fs::create_directories(refOut))
    return fail("cannot create " + refOut + ": " + ec.message());
  auto write = [&](const std::string &name, const RefTensor &t, bool mask) {
    llvm::SmallString<256> path(refOut);
    llvm::sys::path::append(path, name);
    std::string error;
    bool ok =
        mask ? writeNpyMask(path.str().str(), t, error) : writeNpy(path.str().str(), t, error);
    if (!ok)
      llvm::errs() << "npufuzz: " << error << "\n";
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

/// Splits a command given as one string the way a POSIX shell splits words
/// (quotes and backslashes), without running a shell. An unterminated quote
/// or a trailing backslash is an error rather than a guess.
bool splitCommand(const std::string &option, const std::string &text,
                  std::vector<std::string> &argv) {
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quote == '\'') {
      if (ch == '\'')
        quote = 0;
    } else if (ch == '\\') {
      if (++i == text.size()) {
        fail("--" + option + " ends with a lone backslash: " + text);
        return false;
      }
    } else if (quote == '"') {
      if (ch == '"')
        quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    }
  }
  if (quote) {
    fail(std::string("--") + option + " has an unterminated " +
         (quote == '"' ? "double" : "single") + " quote: " + text);
    return false;
  }
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *, 8> words;
  cl::TokenizeGNUCommandLine(text, saver, words);
  argv.assign(words.begin(), words.end());
  if (argv.empty() || argv[0].empty()) {
    fail("--" + option + " names no program");
    return false;
  }
  return true;
}

/// Splits `--cmd` into the external backend's argv (no shell involved).
bool externalArgv(const std::string &text, RunConfig &config) {
  if (config.backend != BackendKind::External) {
    if (!text.empty()) {
      fail("--cmd is for --backend external");
      return false;
    }
    return true;
  }
  if (text.empty()) {
    fail("--backend external needs --cmd");
    return false;
  }
  return splitCommand("cmd", text, config.external.argv);
}

/// What selects and sets up a backend on the command line.
struct BackendChoice {
  std::string name, cmd, python, ptoas, ptoIsa, ptoArch, ptoMemcheck;
  bool persistent = false;
  std::vector<std::string> ptoasFlags;
};

/// What the command line asked for.
BackendChoice backendChoice() {
  return BackendChoice{backendName, externalCmd, torchPythonPath,    ptoasPath, ptoIsaDir,
                       ptoArch,     ptoMemcheck, externalPersistent, ptoasFlags};
}

/// --backend with its own flags into `config`: --cmd and --persistent
/// (external), --python (torch), --ptoas, --pto-isa, --pto-arch and
/// --ptoas-flag (pto). A flag of another backend is an error.
bool setUpBackend(const BackendChoice &b, RunConfig &config) {
  if (!parseBackendKind(b.name, config.backend)) {
    fail("unknown backend '" + b.name + "' (" + backendNames() + ")");
    return false;
  }
  if (!externalArgv(b.cmd, config))
    return false;
  if (b.persistent) {
    if (config.backend != BackendKind::External) {
      fail("--persistent is for --backend external (torch is always persistent)");
      return false;
    }
    if (b.cmd.find("{dir}") != std::string::npos) {
      fail("--persistent commands read case directories on stdin: remove {dir} from --cmd");
      return false;
    }
    config.external.persistent = true;
  }
  if (config.backend != BackendKind::Torch && !b.python.empty()) {
    fail("--python is for --backend torch");
    return false;
  }
  const bool ptoFlags = !b.ptoas.empty() || !b.ptoIsa.empty() || !b.ptoArch.empty() ||
                        !b.ptoMemcheck.empty() || !b.ptoasFlags.empty();
  if (config.backend != BackendKind::Pto && ptoFlags) {
    fail("--ptoas, --pto-isa, --pto-arch, --pto-memcheck and --ptoas-flag are for --backend pto");
    return false;
  }
  std::string error;
  if (config.backend == BackendKind::Torch && !configureTorchBackend(config, b.python, error)) {
    fail(error);
    return false;
  }
  if (config.backend == BackendKind::Pto) {
    config.pto.ptoas = b.ptoas;
    config.pto.ptoIsa = b.ptoIsa;
    if (!b.ptoArch.empty())
      config.pto.arch = b.ptoArch;
    config.pto.ptoasFlags = b.ptoasFlags;
    if (!b.ptoMemcheck.empty()) {
      char *end = nullptr;
      const double share = std::strtod(b.ptoMemcheck.c_str(), &end);
      if (end == b.ptoMemcheck.c_str() || *end || !(share >= 0 && share <= 1)) {
        fail("--pto-memcheck takes a share from 0 to 1, not '" + b.ptoMemcheck + "'");
        return false;
      }
      config.pto.memcheckShare = share;
    }
    if (!resolvePtoToolchain(config.pto, error)) {
      fail(error);
      return false;
    }
  }
  return true;
}

/// The flags besides --backend that a repro must repeat.
std::vector<std::string> backendFlags(const BackendChoice &b) {
  std::vector<std::string> flags;
  if (!b.cmd.empty())
    flags.insert(flags.end(), {"--cmd", b.cmd});
  if (b.persistent)
    flags.push_back("--persistent");
  if (!b.python.empty())
    flags.insert(flags.end(), {"--python", b.python});
  if (!b.ptoas.empty())
    flags.insert(flags.end(), {"--ptoas", b.ptoas});
  if (!b.ptoIsa.empty())
    flags.insert(flags.end(), {"--pto-isa", b.ptoIsa});
  if (!b.ptoArch.empty())
    flags.insert(flags.end(), {"--pto-arch", b.ptoArch});
  if (!b.ptoMemcheck.empty())
    flags.insert(flags.end(), {"--pto-memcheck", b.ptoMemcheck});
  for (const std::string &f : b.ptoasFlags)
    flags.insert(flags.end(), {"--ptoas-flag", f});
  return flags;
}

/// Checks a pipeline before any case runs: a pipeline that cannot be
/// resolved or parsed would otherwise make every case a pass-failure.
bool checkPipeline(MlirJit &jit, const RunConfig &config) {
  if (runsExternally(config.backend))
    return true;
  Pipeline pipeline;
  std::string error;
  if (!resolvePipeline(config.pipeline, config.style, pipeline, error, config.stage) ||
      !jit.checkPipeline(pipeline.passes, error)) {
    fail("--pipeline: " + error);
    return false;
  }
  return true;
}

int runExternalMlir() {
  MlirTool tool;
  tool.mlirOpt = externalMlirOpt;
  tool.mlirRunner = externalMlirRunner;
  tool.runtimeLibrary = defaultRuntimeLibrary();
  const BackendRun r = runCaseDirectoryWithMlirTools(externalMlirDir, tool);
  if (!r.ok())
    llvm::errs() << r.message << "\n";
  return adapterExitCode(r);
}

int runRun() {
  Case c;
  if (!loadCase(runFile, c))
    return 2;
  RunConfig config;
  config.pipeline = runPipeline;
  if (!parseMlirStyle(runStyle, config.style))
    return fail("unknown style '" + runStyle + "'");
  if (!setUpBackend(backendChoice(), config))
    return 2;
  config.tools.mlirOpt = runOpt;
  config.tools.mlirRunner = runRunner;
  config.tools.passPlugins = runPlugins;
  config.loweringSeed = givenLoweringSeed();
  if (!setPassStage(config))
    return 2;
  MlirJit jit;
  for (const std::string &plugin : runPlugins) {
    std::string error;
    if (!jit.loadPassPlugin(plugin, error))
      return fail("cannot load pass plugin " + plugin + ": " + error);
  }
  if (!checkPipeline(jit, config))
    return 2;
  if (runEmit && !runsExternally(config.backend)) {
    MlirKernel kernel;
    std::string unsupported;
    if (emitMlir(c, emitOptionsOf(config), kernel, unsupported))
      llvm::outs() << kernel.text;
  }
  // In an isolated child, with the oracles and blame of a campaign's
  // confirmation: a compiler that crashes is a verdict, and the signature
  // printed is the one a campaign would record.
  IsolationLimits limits;
  limits.wallSeconds = topTimeout;
  const IsolationLimits caseLimits = limits;
  limits = limitsWithBlame(limits, config);
  CaseReport report =
      reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, limits));
  blameKernelCrash(c, jit, config, caseLimits, report);
  const TaskResult &r = report.result;
  llvm::outs() << verdictName(r.verdict);
  if (!r.summary.empty())
    llvm::outs() << ": " << r.summary;
  llvm::outs() << "\n";
  if (config.loweringSeed)
    llvm::outs() << "lowering: " << emitOptionsOf(config).plan.str(config.style) << "\n";
  if (r.verdict == VerdictKind::Ok)
    return 0;
  llvm::outs() << "signature: " << report.signature.text() << " (" << report.signature.id()
               << ")\n";
  if (!r.message.empty())
    llvm::errs() << r.message;
  else if (!report.stderrText.empty())
    llvm::errs() << report.stderrText;
  return 1;
}

int runVerifyPipeline() {
  VerifyPipelineOptions options;
  options.file = verifyFile;
  options.pipeline = verifyPipelineText;
  options.mlirOpt = verifyOpt;
  options.passPlugins = verifyPlugins;
  options.entry = verifyEntry;
  options.execute = !verifyNoExec;
  IsolationLimits limits;
  limits.wallSeconds = verifyTimeout;
  limits.addressSpaceBytes = verifyMemory << 20;
  // Passes run in a forked child: a crash of the compiler under test is a
  // verdict, not the end of npufuzz.
  const VerifyPipelineReport report = verifyPipelineIsolated(options, limits);
  const std::string json = report.json();
  llvm::outs() << json;
  if (!verifyJson.empty() && !writeFileAtomically(verifyJson, json))
    return fail("cannot write " + verifyJson);
  return report.exitCode();
}

bool loadPlugins(MlirJit &jit, const std::vector<std::string> &plugins) {
  for (const std::string &plugin : plugins) {
    std::string error;
    if (!jit.loadPassPlugin(plugin, error)) {
      fail("cannot load pass plugin " + plugin + ": " + error);
      return false;
    }
  }
  return true;
}

int runFuzz() {
  CampaignOptions options;
  options.outDir = fuzzOut;
  options.seedStart = fuzzSeedStart;
  options.maxCases = fuzzMaxCases;
  options.maxSeconds = fuzzMaxTime;
  options.jobs = fuzzJobs ? fuzzJobs : std::max(1u, std::thread::hardware_concurrency());
  options.config.pipeline = fuzzPipeline;
  options.seededLowering = !canonicalLowering;
  if (!setPassStage(options.config))
    return 2;
  if (!parseMlirStyle(fuzzStyle, options.config.style))
    return fail("unknown style '" + fuzzStyle + "'");
  unsigned index = 0, count = 0;
  if (std::sscanf(fuzzShard.c_str(), "%u/%u", &index, &count) != 2 || count == 0 || index >= count)
    return fail("--shard takes I/N with 0 <= I < N, got '" + fuzzShard + "'");
  options.shardIndex = index;
  options.shardCount = count;
  if (!loadPolicy(fuzzPolicy, options.policy))
    return 2;
  if (fuzzPolicy.empty() && backendName == "pto")
    options.policy = ptoPolicy();
  options.policyPath = fuzzPolicy;
  options.limits.wallSeconds = fuzzTimeout;
  options.limits.addressSpaceBytes = fuzzMemory << 20;
  options.progress = !fuzzQuiet;
  if (!setUpBackend(backendChoice(), options.config))
    return 2;
  options.reduce = !fuzzNoReduce;
  options.config.metamorphicShare = fuzzMetamorphic;
  options.reduceSeconds = fuzzReduceTime;
  options.casesPerWorker = std::max(1u, fuzzCasesPerWorker.getValue());
  options.maxFindings = fuzzMaxFindings;
  options.passPlugins = fuzzPlugins;
  options.backendFlags = backendFlags(backendChoice());
  MlirJit jit;
  if (!loadPlugins(jit, fuzzPlugins))
    return 2;
  if (!checkPipeline(jit, options.config))
    return 2;
  const CampaignResult r = runCampaign(options, jit);
  if (!r.error.empty())
    return fail(r.error);
  printCampaignSummary(r, std::cout);
  return r.stoppedAtMaxFindings ? 1 : 0;
}

int runMerge() {
  std::string error;
  const size_t n = mergeFindings(mergeOut, mergeInputs, error);
  if (!error.empty())
    llvm::errs() << "npufuzz: " << error << "\n";
  const std::vector<BucketSummary> buckets = bucketsOf(scanFindings(mergeOut));
  llvm::outs() << n << " distinct signatures in " << buckets.size() << " root-cause buckets in "
               << mergeOut << "\n";
  for (const BucketSummary &b : buckets) {
    llvm::outs() << "  " << b.id << "  " << (b.key.empty() ? "(not reduced)" : b.key) << ":";
    for (const std::string &sig : b.signatures)
      llvm::outs() << " " << sig;
    llvm::outs() << "\n";
  }
  return error.empty() ? 0 : 2;
}

int runSeed() {
  Policy policy;
  if (!loadPolicy(topPolicy, policy))
    return 2;
  if (topPolicy.empty() && backendName == "pto")
    policy = ptoPolicy();
  RunConfig config;
  config.pipeline = topPipeline;
  if (!parseMlirStyle(topStyle, config.style))
    return fail("unknown style '" + topStyle + "'");
  if (!setUpBackend(backendChoice(), config))
    return 2;
  config.tools.passPlugins = topPlugins;
  if (!canonicalLowering)
    config.loweringSeed = loweringSeedOf(topSeed);
  if (!setPassStage(config))
    return 2;
  MlirJit jit;
  if (!loadPlugins(jit, topPlugins))
    return 2;
  if (!checkPipeline(jit, config))
    return 2;
  const std::string dir = topOut.empty() ? "npufuzz-repro-" + std::to_string(topSeed) : topOut;
  std::error_code ec;
  if (llvm::sys::fs::exists(dir) && !llvm::sys::fs::is_directory(dir))
    return fail("-o " + dir + ": exists and is not a directory");
  const Case c = generateCase(topSeed, policy);
  IsolationLimits limits;
  limits.wallSeconds = topTimeout;
  // The same isolated worker a campaign uses, so the verdict and signature
  // are those the campaign recorded.
  const IsolationLimits caseLimits = limits;
  limits = limitsWithBlame(limits, config);
  CaseReport report =
      reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, limits));
  blameKernelCrash(c, jit, config, caseLimits, report);
  llvm::outs() << "seed " << topSeed << ": " << verdictName(report.result.verdict);
  if (!report.result.summary.empty())
    llvm::outs() << ": " << report.result.summary;
  llvm::outs() << "\nsignature: " << report.signature.text() << "\n";
  llvm::outs() << "lowering: " << emitOptionsOf(config).plan.str(config.style) << "\n";
  Finding f;
  f.seed = topSeed;
  f.caseText = printCase(c);
  MlirKernel kernel;
  std::string unsupported;
  if (emitMlir(c, emitOptionsOf(config), kernel, unsupported))
    f.mlir = kernel.text;
  f.loweringSeed = config.loweringSeed;
  f.stage = std::string(passStageName(config.stage));
  f.canonicalLowering = canonicalLowering;
  f.report = report;
  f.pipeline = config.pipeline;
  f.style = topStyle;
  f.policyPath = topPolicy;
  f.backend = backendName;
  f.backendFlags = backendFlags(backendChoice());
  f.passPlugins = topPlugins;
  if (report.result.verdict == VerdictKind::Ok)
    return 0; // nothing to reproduce
  std::string error;
  recordFinding(dir, f, error);
  if (!error.empty())
    return fail("cannot write the repro: " + error);
  llvm::outs() << "repro: " << dir << "/findings/" << report.signature.id() << "/\n";
  return 1;
}

int runStats() {
  IrCoverage total;
  for (const std::string &dir : statsDirs) {
    IrCoverage c;
    std::string error;
    if (!readIrCoverage(dir, c, error))
      return fail(error);
    total.add(c);
  }
  llvm::outs() << formatIrCoverage(total);
  return 0;
}

int runReport() {
  std::set<std::string> known;
  std::string error;
  if (!reportKnown.empty() && !readKnownSignatures(reportKnown, known, error))
    return fail("--known: " + error);
  const NightlyReport r = collectReport(reportDirs, known, error);
  if (!error.empty())
    return fail(error);
  if (!writeReport(r, reportOut, error))
    return fail(error);
  llvm::outs() << r.cases << " cases, " << r.findings.size() << " signatures, " << r.newSignatures()
               << " new; report in " << reportOut << "\n";
  // Exit 1 only for new signatures: known ones do not fail a nightly.
  return r.newSignatures() ? 1 : 0;
}

int runFromBytes() {
  std::string bytes, error;
  if (!readFileBytes(fromBytesFile, bytes, error, 64u << 20))
    return fail("cannot read " + error);
  const std::string text =
      printCase(caseFromBytes(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  if (fromBytesOut.empty()) {
    std::cout << text;
    return 0;
  }
  return writeFileAtomically(fromBytesOut, text) ? 0 : fail("cannot write " + fromBytesOut);
}

int runSweepCmd() {
  SweepOptions options;
  options.seedStart = sweepStart;
  options.count = sweepCount;
  options.runBackend = sweepBackend;
  options.config.pipeline = sweepPipeline;
  if (!loadPolicy(sweepPolicy, options.policy))
    return 2;
  SweepResult r = runSweep(options);
  printSweepReport(r, std::cout);
  return r.failures.empty() ? 0 : 1;
}

int runReduceCmd() {
  ReduceCommandOptions o;
  o.casePath = reduceFile;
  o.outDir = reduceOut;
  o.pipeline = reducePipeline;
  o.style = reduceStyle;
  o.loweringSeed = givenLoweringSeed();
  if (RunConfig staged; setPassStage(staged))
    o.stage = staged.stage;
  else
    return 2;
  o.plugins = reducePlugins;
  o.maxSeconds = reduceMaxTime;
  o.jobs = reduceJobs;
  o.candidateTimeout = reduceTimeout;
  o.progress = !reduceQuiet;
  if (!reduceInterestingness.empty() &&
      !splitCommand("interestingness-cmd", reduceInterestingness, o.interestingnessCmd))
    return 2;
  RunConfig backend;
  if (!setUpBackend(backendChoice(), backend))
    return 2;
  o.backend = backend.backend;
  o.external = backend.external;
  o.pto = backend.pto;
  return runReduceCommand(o, std::cout);
}

int runReplayCmd() {
  ReplayOptions o;
  o.dir = replayDir;
  o.plugins = replayPlugins;
  if (!setUpBackend(backendChoice(), o.backend))
    return 2;
  return runReplayCommand(o, std::cout);
}

} // namespace

int main(int argc, char **argv) {
  // First, so that a dying worker's mark precedes LLVM's stack dump.
  installRunningStageReporter();
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
      "  npufuzz verify-pipeline F.mlir --pipeline P   blame the pass that breaks the IR\n"
      "  npufuzz fuzz -o DIR            a campaign with isolated workers\n"
      "  npufuzz --seed N               reproduce case N (verdict, signature, repro)\n"
      "  npufuzz merge -o DIR D1 D2...  combine campaign directories\n"
      "  npufuzz from-bytes INPUT       decode a libFuzzer/AFL++ input into its case\n"
      "  npufuzz report DIR... -o OUT   JSON, JUnit XML and HTML report of campaigns\n"
      "  npufuzz reduce CASE.npf -o DIR reduce a failing case and its pipeline\n"
      "  npufuzz replay DIR             re-run DIR/*.npf regressions, check verdicts\n"
      "  npufuzz external-mlir DIR      run an external-backend case dir on mlir-opt/runner\n");
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
  if (fuzzCmd)
    return runFuzz();
  if (fromBytesCmd)
    return runFromBytes();
  if (reportCmd)
    return runReport();
  if (statsCmd)
    return runStats();
  if (mergeCmd)
    return runMerge();
  if (reduceCmd)
    return runReduceCmd();
  if (replayCmd)
    return runReplayCmd();
  if (externalMlirCmd)
    return runExternalMlir();
  if (topSeed.getNumOccurrences())
    return runSeed();
  cl::PrintHelpMessage();
  return 2;
}
