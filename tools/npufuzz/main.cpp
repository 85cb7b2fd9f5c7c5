//===- tools/npufuzz/main.cpp - The npufuzz command line ------------------===//
//
// A thin front end: each subcommand, in a file of its own (Commands.h),
// parses its options with llvm::cl and calls into the libraries. An error
// on the command line exits 2 like every other error in what npufuzz was
// given (llvm::cl's own exit status would be 1, a finding's).
//
//===----------------------------------------------------------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "backend/mlir/RunningStage.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>

using namespace npufuzz::tool;

int main(int argc, char **argv) {
  // First, so that a dying worker's mark precedes LLVM's stack dump.
  npufuzz::installRunningStageReporter();
  llvm::InitLLVM init(argc, argv);
  // A file-size limit makes a write fail (EFBIG), as a full disk does
  // (ENOSPC): every write is checked and stops the run with exit 2 naming
  // the file, so the signal that would kill npufuzz first is ignored
  // (LLVM's crash handler took it over above).
  std::signal(SIGXFSZ, SIG_IGN);
  const Command commands[] = {
      {GenCommand, runGen},
      {CheckCommand, runCheck},
      {RefCommand, runRef},
      {SweepCommand, runSweep},
      {RunCommand, runRun},
      {VerifyPipelineCommand, runVerifyPipeline},
      {FuzzCommand, runFuzz},
      {MergeCommand, runMerge},
      {ReduceCommand, runReduce},
      {ReplayCommand, runReplay},
      {ExternalMlirCommand, runExternalMlir},
      {ReportCommand, runReport},
      {StatsCommand, runStats},
      {FromBytesCommand, runFromBytes},
      {ToolchainsCommand, runToolchains},
      {ExportCommand, runExport},
  };
  cl::HideUnrelatedOptions(category());
  // A first word that names no subcommand is refused before llvm::cl sees
  // it: with --help after it, llvm::cl would print the overview and exit 0.
  if (argc > 1 && argv[1][0] != '-') {
    const llvm::StringRef word(argv[1]);
    bool known = false;
    for (const Command &command : commands)
      known |= command.sub().getName() == word;
    if (!known) {
      llvm::errs() << "npufuzz: Unknown subcommand '" << word << "'.  Try: 'npufuzz --help'\n";
      return kExitError;
    }
  }
  if (!cl::ParseCommandLineOptions(
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
          "  npufuzz external-mlir DIR      run an external-backend case dir on mlir-opt/runner\n"
          "  npufuzz toolchains             the toolchains found, their versions and canaries\n"
          "  npufuzz export F --as FORM     a finding as a standalone torch, tvm, iree, mlir or "
          "pytorchsim repro\n"
          "\nExit status: 0 nothing failed, 1 a finding, 2 an error in what npufuzz was given\n"
          "or a machine that refused (a tool that cannot start, a write that failed).\n",
          &llvm::errs()))
    return kExitError;
  for (const Command &command : commands)
    if (command.sub())
      return command.run();
  if (seedRequested())
    return runSeed();
  cl::PrintHelpMessage();
  // Exit 2 says why on stderr, as every other refusal does.
  llvm::errs() << "npufuzz: no subcommand and no --seed: nothing to do (the commands are above)\n";
  return kExitError;
}
