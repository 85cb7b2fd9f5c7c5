//===- driver/ReduceCommand.h - npufuzz reduce, npufuzz replay -*- C++ -*-===//
//
// `npufuzz reduce CASE.npf -o OUT` reduces a failing case (and its pipeline)
// with the shrink/ reducer, running candidates in isolated workers, and
// writes OUT/case.npf, OUT/kernel.mlir and OUT/report.json.
//
// `npufuzz replay DIR` re-runs every DIR/*.npf regression and fails when a
// verdict changed. A regression states what it expects in a comment line,
// which the .npf parser ignores:
//
//   // expect: crash signature=crash-0123456789abcdef pipeline=P style=affine
//
// (pipeline and style default to O0 and affine, and a `lowering=SEED` field
// gives the lowering seed when there is one, `stage=S` the pass stage when
// it is not the entry; the signature is compared
// but only a changed verdict fails, since crash signatures hold stack
// frames that vary between builds). `npufuzz reduce` writes this line at the
// top of OUT/case.npf, so a reduced case can go to corpus/regressions as is.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_REDUCECOMMAND_H
#define NPUFUZZ_DRIVER_REDUCECOMMAND_H

#include "driver/Isolation.h"
#include "oracles/CaseRunner.h"
#include "shrink/Interestingness.h"

#include <atomic>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace npufuzz {

/// Runs each candidate of a batch in its own forked worker (all at once),
/// with `base`'s configuration and the candidate's pipeline. `jit` has been
/// initialised and given its plugins by the parent. With a `deadline` set
/// (seconds since the steady clock's epoch), no candidate runs past it: one
/// cut short is a timeout, which a reducer counts as not interesting. Once
/// `stop` is true, candidates still running are killed and, like those
/// not started, are observed as not run (`ran` false): never a verdict.
CandidateRunner isolatedRunner(MlirJit &jit, const RunConfig &base, const IsolationLimits &limits,
                               std::shared_ptr<const double> deadline = nullptr,
                               const std::atomic<bool> *stop = nullptr);

/// isolatedRunner with every limit, the isolation's and the backend's own
/// (withMoreTime), four times as long: a second run for one that ran out of
/// time on a busy machine.
CandidateRunner longerRunner(MlirJit &jit, const RunConfig &base, const IsolationLimits &limits,
                             std::shared_ptr<const double> deadline = nullptr,
                             const std::atomic<bool> *stop = nullptr);

/// `run`, except that a candidate it observes out of time runs once more,
/// alone, through `patient` (longerRunner), whose observation stands. On a
/// busy machine a timeout says more of the machine than of the candidate,
/// and a reduction must not call its input, or a candidate, "not
/// interesting" for it. Not for a hang's reduction, where running out of
/// time is the failure. `retries`, when given, counts the second runs.
CandidateRunner patientRunner(CandidateRunner run, CandidateRunner patient,
                              std::shared_ptr<unsigned> retries = nullptr);

/// What a regression case expects.
struct Expectation {
  VerdictKind verdict = VerdictKind::Ok;
  std::string signatureId; ///< empty: not recorded
  std::string pipeline = "O0";
  std::string style = "affine";
  std::optional<uint64_t> loweringSeed; ///< none: the canonical plan
  /// Whether the lowering seed draws the compiler's OptIn modes too
  /// (RunConfig::drawsModes): `modes=drawn` on the line; a line without it
  /// was written before they existed.
  bool drawsModes = true;
  PassStage stage = PassStage::Entry;
  /// The release that fixed the bug ("torch-2.10.0"; empty: not fixed):
  /// replayed against that release or a later one, the case expects ok.
  std::string fixedIn;
  /// The releases the expectation holds for: from `from` on (empty: any
  /// before `until`), and before `until` (empty: any from `from` on). A
  /// case whose verdict changed in a release without its bug being fixed
  /// (another bug now shows first) is kept twice: the old expectation
  /// `until=` that release, a copy `from=` it. Replayed elsewhere, it is
  /// not run, and says so.
  std::string from, until;
};
/// The compiler switches of `backend` the case ran with, as `how` recorded
/// them (its lowering seed, and whether it draws the modes).
SwitchStates switchStatesOf(BackendKind backend, const Expectation &how);
/// `// expect: <verdict> signature=<id> style=<S> [lowering=<seed> [modes=drawn]] [stage=<stage>]
/// [fixed=<name>-<version>] [from=<name>-<version>] [until=<name>-<version>] pipeline=<P>`.
std::string expectationLine(const Expectation &e);
/// Finds and parses the expect line of a case text: the first line holding
/// `// expect:`. With `line`, sets it to that line's number (from 1), or 0
/// when there is none, so that a caller can tell a case without the line
/// from one whose line is damaged.
bool parseExpectation(const std::string &caseText, Expectation &out, std::string &error,
                      unsigned *line = nullptr);
/// "PATH:LINE: damaged expect line: WHY", the one wording of an expect line
/// that is there but does not parse.
std::string damagedExpectLine(const std::string &path, unsigned line, const std::string &why);

struct ReduceCommandOptions {
  std::string casePath;
  std::string outDir;
  std::string pipeline = "O0";
  std::string style = "affine";
  /// The lowering seed the case failed with; it stays fixed while the case
  /// is reduced (none: the canonical plan).
  std::optional<uint64_t> loweringSeed;
  bool drawsModes = true; ///< Expectation::drawsModes
  PassStage stage = PassStage::Entry;
  /// Pass plugins: loaded into the command's own JIT when it makes one, and
  /// into the runs that reduce the MLIR given to a blamed pass.
  std::vector<std::string> plugins;
  /// Where candidates run: the in-process JIT, or a backend outside npufuzz
  /// (external, torch) with its toolchain.
  BackendKind backend = BackendKind::MlirJit;
  ExternalToolchain external;
  PtoToolchain pto;
  PyTorchSimToolchain pytorchsim;
  /// The flags that set the backend up as the run had it (the toolchains
  /// named on its command line): the reduced case's repro line carries them.
  std::vector<std::string> backendFlags;
  /// Signatures op blame passes over (RunConfig::knownSignatures).
  std::set<std::string> knownSignatures;
  double maxSeconds = 300;
  unsigned jobs = 1;
  double candidateTimeout = 30; ///< seconds per candidate run
  uint64_t memoryBytes = 8ull << 30;
  /// Non-empty: C-Reduce style interestingness (exit 0 = interesting).
  std::vector<std::string> interestingnessCmd;
  bool progress = true; ///< a line per accepted step on stderr
  /// A JIT already set up (plugins loaded), e.g. a campaign's; when null the
  /// command makes its own and loads `plugins` into it.
  MlirJit *jit = nullptr;
  /// The root cause to keep (a campaign's finding, already generalised);
  /// none: the input's own signature, generalised (shrink/Generalize.h).
  std::optional<Signature> target;
  /// Set by the command's SIGINT handler: the reduction stops, and the best
  /// case so far is written (report.json's "interrupted"). Null (a
  /// campaign, which stops in its own way): never.
  const std::atomic<bool> *stop = nullptr;
};

/// Runs `npufuzz reduce`; returns the process exit code (0: reduced and
/// re-checked, also when interrupted; 1: nothing reduced, or the re-check
/// failed; 2: what it was given is wrong, or OUT cannot be written).
int runReduceCommand(const ReduceCommandOptions &options, std::ostream &out);

struct ReplayOptions {
  std::string dir;
  std::vector<std::string> plugins;
  /// The backend and its set-up; each case's expect line gives its style
  /// and pipeline.
  RunConfig backend;
  double candidateTimeout = 30;
  uint64_t memoryBytes = 8ull << 30;
};

/// Runs `npufuzz replay`; returns 0 when every regression kept its verdict.
int runReplayCommand(const ReplayOptions &options, std::ostream &out);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_REDUCECOMMAND_H
