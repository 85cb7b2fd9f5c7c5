//===- driver/CaseTask.h - One case in an isolated worker -----*- C++ -*-===//
//
// What a worker child does with one case (run it, and judge it with every
// oracle of oracles/Oracle.h, blame in children of its own), the payload it
// hands back, and how the parent turns a child's end into a
// verdict and a signature, whether the child returned or died.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_CASETASK_H
#define NPUFUZZ_DRIVER_CASETASK_H

#include "driver/CompilerCoverage.h"
#include "driver/Isolation.h"
#include "oracles/CaseRunner.h"
#include "oracles/CaseVerdict.h"
#include "oracles/Signature.h"

#include <string>
#include <utility>
#include <vector>

namespace npufuzz {

/// The result a worker hands back: what the oracles decided (CaseVerdict,
/// whose fields keep their names here), with the run's diagnostics and
/// times.
/// How TaskResult::dmaMapsUnjudged marks a DMA whose map was not judged
/// in a run whose values the backend computed from its moves (PyTorchSim's
/// NPU model): its values judge it.
inline constexpr const char *kJudgedByValues = "judged by the model's values: ";

struct TaskResult : CaseVerdict {
  std::string message;      ///< full diagnostic
  std::string details;      ///< BackendRun::details, kept as the finding's details.txt
  std::string passWarnings; ///< what passes said while succeeding (BackendRun)
  std::string valuesWhyNot; ///< BackendRun::valuesWhyNot
  /// The run's DMAs whose map was judged (DmaTrace::judgedMaps), and why
  /// each other was not (DmaTrace::unjudgedMaps without the DMA's name, and
  /// each kernel or other part of the program not decoded).
  uint64_t dmaMapsJudged = 0;
  std::vector<std::string> dmaMapsUnjudged;
  /// IR coverage of the run (BackendRun::entryOps, passesThatChanged).
  std::vector<std::string> entryOps, passesThatChanged;
  /// The compiler's own coverage in the first run (driver/CompilerCoverage.h).
  CaseCoverage compilerCoverage;
  /// Feedback keys of the run for guided campaigns (driver/Feedback.h),
  /// sorted and distinct; empty unless RunConfig::jit.recordFeedback.
  std::vector<uint32_t> feedback;
  double referenceSeconds = 0, emitSeconds = 0, passSeconds = 0, codegenSeconds = 0,
         executeSeconds = 0;
  /// BackendRun::startSeconds of the first run: the start of the adapter
  /// the worker started for this case; negative: none.
  double startSeconds = -1;
  /// Where the task's own time went, for a profile (bench_phases): the
  /// first run whole (reference, emission, passes, code generation,
  /// execution and the comparison), then each oracle's check by name. Kept
  /// in the process that ran the task; a worker does not send them.
  double firstRunSeconds = 0;
  std::vector<std::pair<std::string, double>> oracleSeconds;

  std::string toJson() const;
  static bool fromJson(const std::string &text, TaskResult &out);
};

/// Runs in the worker: the case end to end against the reference, then, for
/// a run that agrees or gives a wrong result, every oracle of
/// defaultOracles() in order (metamorphic variants; for a wrong result, a
/// repeat run, a run with another poison fill, op and pass blame), each
/// blame in a child of its own.
TaskResult runCaseTask(const Case &c, MlirJit &jit, const RunConfig &config);

/// The limits of a child that runs a case task with blame, for a case
/// limited by `caseLimits`: the case, then its pass blame and its op blame,
/// each within the case's time (set in `config.blameSeconds`).
IsolationLimits limitsWithBlame(const IsolationLimits &caseLimits, RunConfig &config);

struct CaseReport;
/// When `report` is a crash in the compiled kernel (no pass to name: the
/// worker died before its oracles could run), names and blames it in
/// children of its own, each within `caseLimits`: as an out-of-bounds
/// access when a bounds-checked run stops at one (oracles/
/// MemoryErrorOracle.h), else on the first pass after which the kernel
/// crashes. Nothing for other reports, external backends, or without
/// blame.
void blameKernelFault(const Case &c, MlirJit &jit, const RunConfig &config,
                      const IsolationLimits &caseLimits, CaseReport &report);

/// Everything the parent knows about one finished case.
struct CaseReport {
  TaskResult result;
  Signature signature;
  std::string stderrText;
  double seconds = 0;

  /// Whether npufuzz could not run the case (a tool that cannot start, a
  /// refused fork): the run stops with exit 2 and records nothing.
  bool environmentError() const { return result.verdict == VerdictKind::EnvironmentError; }
};

/// The verdict and signature of a child's end: its payload when it returned;
/// crash (with top frames or assertion), hang, or oom when it died.
CaseReport reportOf(const ChildOutcome &outcome);

/// One case as a campaign confirms it: the task in an isolated child
/// within `caseLimits` (and its blame's time), then a kernel crash blamed
/// on a pass. What `npufuzz run` and `npufuzz --seed N` print.
CaseReport runCaseIsolated(const Case &c, MlirJit &jit, const RunConfig &config,
                           const IsolationLimits &caseLimits);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_CASETASK_H
