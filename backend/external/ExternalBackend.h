//===- backend/external/ExternalBackend.h - Any toolchain via files -*- C++ -*-===//
//
// Runs a case on a toolchain npufuzz does not link: a torch-based NPU
// simulator, a tile assembler plus its simulator, a fork of mlir-opt. The
// protocol is files in a case directory plus a user command given as argv
// (no shell); docs/external-backends.md is its specification:
//
//   case.npf       the case (ir/Text.h)
//   kernel.mlir    emitMlir's module, when the style can express the case
//   program.py     emitPyTorch's program, when torch can express it
//   kernel.pto     emitPto's tile text, when PTO can express it
//   inK.npy        input K (reference/Npy.h encodings)
//   manifest.json  inputs, outputs, kernel ABI, which programs exist
//
// The command writes outK.npy for each output K and exits 0. Its end
// (status, signal, time, memory, stderr) maps to a BackendRun status so that
// judgeRun and the signatures treat it like any built-in backend.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EXTERNAL_EXTERNALBACKEND_H
#define NPUFUZZ_BACKEND_EXTERNAL_EXTERNALBACKEND_H

#include "backend/BackendRun.h"
#include "backend/emit/PyTorchEmitter.h"
#include "backend/mlir/MlirEmitter.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace npufuzz {

/// Exit codes a command may use to say more than "failed".
constexpr int kExternalExitUnsupported = 77;    ///< cannot express the case
constexpr int kExternalExitCompileError = 78;   ///< the toolchain rejected the program
constexpr int kExternalExitSimulatorFault = 79; ///< the simulator rejected an operation
/// The adapter could not run the case at all (a tool of its own that cannot
/// start, a full disk): npufuzz's environment, never a finding.
constexpr int kExternalExitEnvironment = 80;
/// The kernel wrote (81) or read (82) outside its buffers; the first line
/// of stderr says where.
constexpr int kExternalExitOutOfBoundsWrite = 81;
constexpr int kExternalExitOutOfBoundsRead = 82;
/// A file the command may create in the case directory when it has compiled
/// the program and starts running it: a crash after it is the compiled
/// program's (BackendRun::failedRunning), not the compiler's.
constexpr const char *kExternalRunningMarker = "running";

struct ExternalToolchain {
  /// The command. `{dir}` inside any element is replaced by the case
  /// directory; nothing else from the case enters argv. argv[0] without a
  /// '/' is looked up on PATH.
  std::vector<std::string> argv;
  unsigned timeoutSeconds = 20;            ///< below a campaign worker's 30 s limit
  uint64_t addressSpaceBytes = 8ull << 30; ///< RLIMIT_AS; 0: none
  size_t maxStderrBytes = 64 << 10;        ///< the tail kept in messages
  /// Parent of the case directories (the system temporary directory when
  /// empty); each run gets a fresh one.
  std::string workDir;
  bool keepCaseDir = false; ///< leave it for inspection
  /// Start the command once and send it case directories on stdin
  /// (PersistentCommand.h); argv then has no {dir}.
  bool persistent = false;
  unsigned casesPerProcess = 500; ///< a persistent command is replaced after these
  /// More time for the case that starts a persistent command, which pays
  /// for its start: importing a compiler, and instrumenting it as it is
  /// imported when its coverage is measured (driver/CompilerCoverage.h).
  unsigned startSeconds = 0;
  /// The compiler's optimisations and whether each is on for this run
  /// (backend/CompilerSwitches.h), for manifest.json's "switches".
  std::vector<std::pair<std::string, bool>> switches;
  /// What the compiler's canary said of its version ("torch 2.15.0+cu132
  /// numpy 2.4.6"; empty: not asked), for a regression fixed in a release.
  std::string version;
  /// Variables set in the command's environment on top of npufuzz's own
  /// (runCommand): ptoas's profile file when its coverage is measured.
  std::vector<std::pair<std::string, std::string>> environment;
};

/// Python seeds its string hashing per process, and the order in which a
/// set of sympy expressions is walked follows it: Inductor's and
/// PyTorchSim's code generation then compile one program differently from
/// run to run (another tile, another exception). Their adapters run with
/// this seed, so that a case compiles the same way in its campaign and
/// under `npufuzz --seed N`.
inline const std::pair<std::string, std::string> kFixedPythonHashSeed{"PYTHONHASHSEED", "0"};

/// The line a persistent command may print once its start-up is done,
/// before its first answer (PersistentCommand.h).
inline constexpr const char *kPersistentReadyLine = "ready";

/// How a command ended.
struct CommandEnd {
  /// ProtocolError: a persistent command answered something other than
  /// `done N` (the adapter, not the compiler under test, is out of step).
  enum class Kind : uint8_t { Exited, Signalled, TimedOut, SpawnFailed, ProtocolError };
  Kind kind = Kind::Exited;
  int exitCode = 0;
  int signal = 0;
  std::string stderrText;
  double seconds = 0;
  /// How long a persistent command started for this case took to say
  /// `ready` (PersistentCommand.h); negative: no start was measured.
  double startSeconds = -1;
};

/// Runs `argv` with the limits of `cmd`: its own process group (killed as a
/// whole on timeout and afterwards), stdin from /dev/null, stdout and stderr
/// to `stdoutPath`/`stderrPath`.
CommandEnd runCommand(const ExternalToolchain &cmd, const std::vector<std::string> &argv,
                      const std::string &stdoutPath, const std::string &stderrPath);

/// The status of a failed end (anything but exit 0), and its message: a
/// headline (the assertion, sanitizer, MLIR error or Python exception line,
/// or how it died) followed by the stderr tail.
BackendRun::Status classifyEnd(const CommandEnd &end, std::string &message);

/// Whether a failed end is a memory error (backend/MemoryError.h): a
/// signal, or a shell's or Python wrapper's exit 128 + N for a child's.
bool endedInMemoryError(const CommandEnd &end);

/// Writes the protocol files for one run into the existing directory `dir`.
/// `kernel.text` may be empty (no kernel.mlir); `pipeline` is recorded for
/// adapters that run kernel.mlir.
bool writeCaseDirectory(const std::string &dir, const Case &c, const MlirKernel &kernel,
                        const std::vector<std::string> &pipeline,
                        const std::vector<TensorData> &inputs, std::string &error,
                        const std::vector<std::pair<std::string, bool>> &switches = {},
                        PyTorchForm form = PyTorchForm::Exact);

/// The environment variable that asks for the compiler's own coverage
/// (driver/CompilerCoverage.h), set to "on" by `npufuzz fuzz` in the
/// processes that run its cases: adapters read it, and so does the pto
/// backend for ptoas (backend/pto/PtoasCoverage.h).
constexpr const char *kCompilerCoverageVariable = "NPUFUZZ_COMPILER_COVERAGE";
bool compilerCoverageAsked();

/// Reads what an adapter asked for the compiler's coverage wrote to the
/// case directory `dir` (compiler-coverage.json) into
/// `r.compilerCoverage`; nothing when it wrote none.
void readCompilerCoverage(const std::string &dir, BackendRun &r);

/// Writes a case directory, runs the command on it and reads the outputs.
BackendRun runExternal(const ExternalToolchain &cmd, const Case &c, const MlirKernel &kernel,
                       const std::vector<std::string> &pipeline,
                       const std::vector<TensorData> &inputs);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EXTERNAL_EXTERNALBACKEND_H
