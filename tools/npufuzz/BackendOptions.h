//===- tools/npufuzz/BackendOptions.h - Where a case runs, on the command line -*- C++ -*-===//
//
// One set of options for every subcommand that runs cases (run, fuzz,
// reduce, replay and the top level's --seed): the backend and its own
// flags, the pass stage and the lowering. Each subcommand holds its own
// instance, bound to it, so each file declares everything it accepts.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TOOLS_NPUFUZZ_BACKENDOPTIONS_H
#define NPUFUZZ_TOOLS_NPUFUZZ_BACKENDOPTIONS_H

#include "tools/npufuzz/ToolOptions.h"

#include <optional>
#include <string>
#include <utility>

namespace npufuzz {
struct RunConfig;
class MlirJit;
} // namespace npufuzz

namespace npufuzz::tool {

/// --backend and the flags of each backend.
struct BackendOptions {
  explicit BackendOptions(cl::SubCommand &sub);

  cl::opt<std::string> name, cmd, opt, runner;
  cl::opt<bool> persistent;
  /// --pto-harness-bug (hidden): a cache bug planted in a chain's harness.
  cl::opt<std::string> python, ptoas, ptoIsa, ptoArch, ptoMemcheck, ptoHarnessBug, ireeCompile,
      ireePython, tvmPython, simplerPython, pyptoPython, pytorchsim, pytorchsimPython;
  /// --switch-off NAME: an optimisation of inductor or iree turned off
  /// (backend/CompilerSwitches.def), as switch blame does.
  cl::list<std::string> switchOff;
  /// --known FILE: signatures op blame passes over when another op is wrong
  /// too (RunConfig::knownSignatures).
  cl::opt<std::string> known;
  cl::list<std::string> ptoasFlags;
  cl::opt<bool> ptoNoInsertSync;
  cl::opt<bool> ptoNoRaceOracle;

  /// The backend with its flags into `config`: --cmd and --persistent
  /// (external), --python (torch), --ptoas, --pto-isa, --pto-arch,
  /// --pto-memcheck and --ptoas-flag (pto), --simpler-python (simpler, with
  /// --ptoas, --pto-arch, --ptoas-flag and --pto-no-insert-sync). A flag of another backend, or
  /// a tool that is not there, is an error (printed; false).
  bool setUp(RunConfig &config) const;
  /// The flags besides --backend that a repro must repeat.
  std::vector<std::string> reproFlags() const;
};

/// The seconds a case may take: --timeout when given, else its default,
/// raised for a backend whose own per-case limit is longer (inductor
/// compiles each kernel to C++), so that a slow compile is the backend's
/// time-out, never a worker killed as a hang.
double caseSeconds(const SecondsOpt &timeout, const RunConfig &config);

/// --pass-stage.
struct PassStageOption {
  explicit PassStageOption(cl::SubCommand &sub);
  cl::opt<std::string> stage;
  /// Sets config.stage; false (with the error printed) for an unknown one.
  bool set(RunConfig &config) const;
};

/// --lowering-seed.
struct LoweringSeedOption {
  explicit LoweringSeedOption(cl::SubCommand &sub);
  SeedOpt seed;
  std::optional<uint64_t> given() const;
};

/// `program` as it will be started (given to `flag`): a path with a slash
/// must be an executable regular file; a bare name must be found on PATH.
/// Otherwise prints why and returns false: a tool that cannot start is an
/// error in what npufuzz was given, never a finding or a verdict.
bool checkProgram(const std::string &flag, const std::string &program);

/// False, with "PATH:LINE: damaged expect line: WHY" printed, when
/// `caseText` (read from `path`) has an `// expect:` line that does not
/// parse. The helpers below read the line quietly, since a case need not
/// have one; each command that uses them checks the line with this first,
/// so that a damaged one is never taken for none.
bool checkExpectLine(const std::string &path, const std::string &caseText);

/// The pipeline and style of `caseText`'s `// expect:` line, for each that
/// the command line does not give (`pipeline`, `style`); else theirs.
std::pair<std::string, std::string> pipelineAsRecorded(const std::string &caseText,
                                                       const llvm::cl::opt<std::string> &pipeline,
                                                       const llvm::cl::opt<std::string> &style);

/// How the case of `caseText` failed when a campaign recorded it: the
/// lowering seed and pass stage of its `// expect:` line, for each that the
/// command line does not give. A case without the line keeps `config`.
void lowerAsRecorded(const std::string &caseText, const LoweringSeedOption &seed,
                     const PassStageOption &stage, RunConfig &config);

/// "switches: ..." and a newline on stdout: those of `config`'s backend not
/// at the compiler's default (nothing for a backend without switches).
void printSwitches(const RunConfig &config);

/// `config` for running cases: `pipeline` in `style` at the stage of
/// `stage`, on the backend of `backend`, with `plugins` for the backend's
/// tools. False with the error printed. (Plugins are loaded into the JIT,
/// and the pipeline checked, by loadPlugins and checkPipeline, once the
/// lowering is settled.)
bool configureRun(const std::string &pipeline, const std::string &style,
                  const BackendOptions &backend, const PassStageOption &stage,
                  const std::vector<std::string> &plugins, RunConfig &config);

/// Checks that `plugins` load, in order, in a child process first: each a
/// regular file that is an MLIR pass plugin, registering no pass whose name
/// is taken (MLIR aborts the process that loads such a plugin). False with
/// the reason printed otherwise; npufuzz itself is never taken down.
bool checkPlugins(const std::vector<std::string> &plugins);

/// --load-pass-plugin: checkPlugins, then each one loaded into `jit`.
bool loadPlugins(MlirJit &jit, const std::vector<std::string> &plugins);

/// Checks a pipeline before any case runs: a pipeline that cannot be
/// resolved or parsed would otherwise make every case a pass-failure.
bool checkPipeline(MlirJit &jit, const RunConfig &config);

} // namespace npufuzz::tool

#endif // NPUFUZZ_TOOLS_NPUFUZZ_BACKENDOPTIONS_H
