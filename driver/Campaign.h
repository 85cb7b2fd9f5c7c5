//===- driver/Campaign.h - Fuzz campaigns -----------------------*- C++ -*-===//
//
// `npufuzz fuzz -o DIR`: seeds are generated in the parent and each case runs
// in a persistent forked worker (up to --jobs at once) under per-case time
// and memory limits; every failure is re-run in a fresh child, and only that
// result is recorded, so `npufuzz --seed N` reproduces it.
// Findings go to DIR/findings/<signature>/; DIR/state.json lets a stopped or
// killed campaign resume where it stopped, without counting or listing a
// case twice; DIR/campaign.json says what campaign the directory holds, and
// a resume that asks for another one is refused. DIR/summary.json and a
// table summarise it. --shard I/N takes every N-th seed so that N machines cover
// disjoint seeds.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_CAMPAIGN_H
#define NPUFUZZ_DRIVER_CAMPAIGN_H

#include "driver/CompilerCoverage.h"
#include "driver/GuidedCorpus.h"
#include "driver/IrCoverage.h"
#include "driver/Isolation.h"
#include "generators/Mutate.h"
#include "generators/Policy.h"
#include "oracles/CaseRunner.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace npufuzz {

/// The format of campaign.json and state.json: a directory written in
/// another format is refused, never resumed into a mix of two campaigns.
/// 2: the format field itself, every state field required.
constexpr int kCampaignFormat = 2;

/// How much more time a failing case whose confirmation or blame ran out
/// of time gets when a campaign runs it again at its end.
constexpr double kRetryTimeFactor = 8;
/// How much more of every limit (time, the adapter's start, memory) a case
/// that hung or ran out of memory in a campaign gets when it is confirmed
/// alone, at the campaign's end, before it is filed: one that then runs
/// through was the machine (a busy machine, a slow start), never a finding.
constexpr double kConfirmAloneFactor = 4;
/// The key of CampaignResult::dmaMaps that counts the DMAs judged.
inline constexpr const char *kJudgedDmaMaps = "judged";
/// Blame's own budget: each blame child of a failing case may take this
/// many times what the case took in its worker (and at least the case's
/// time limit), so that a case slowed by load is blamed as on an idle
/// machine instead of losing its pass.
constexpr double kBlameTimeFactor = 4;

/// How a campaign chooses its cases: every one generated from its seed, or
/// a share of them mutants of cases that reached new feedback
/// (driver/GuidedCorpus.h).
enum class Guidance { None, Feedback };
const char *guidanceName(Guidance g);
bool parseGuidance(const std::string &name, Guidance &out);

struct CampaignOptions;
/// The lowering seed a campaign gives the case of `caseSeed`: none with
/// canonical lowering.
std::optional<uint64_t> loweringSeedFor(const CampaignOptions &options, uint64_t caseSeed);

struct CampaignOptions {
  std::string outDir;
  uint64_t seedStart = 0;
  uint64_t maxCases = 0; ///< 0: no limit
  double maxSeconds = 0; ///< 0: no limit
  unsigned jobs = 1;
  unsigned shardIndex = 0, shardCount = 1;
  RunConfig config;
  /// Whether each case is lowered with the plan its seed draws
  /// (loweringSeedOf; backend/mlir/LoweringPlan.h), or every case with the
  /// canonical one.
  bool seededLowering = true;
  /// The default backend's (mlir-jit) policy unless a campaign sets its own.
  Policy policy = mlirPolicy();
  std::string policyPath; ///< recorded in repro lines
  IsolationLimits limits;
  /// Cases one worker process serves before a fresh fork replaces it; 1
  /// forks per case.
  unsigned casesPerWorker = 500;
  bool progress = true; ///< live progress line on stderr
  Guidance guidance = Guidance::None;
  /// With guidance, the share of cases that are mutants once the corpus
  /// has a case old enough to be a parent.
  double mutationShare = 0.5;
  /// With guidance, case indices per epoch (driver/GuidedCorpus.h): the
  /// first mutants come at twice this index.
  uint64_t guidanceEpoch = kDefaultGuidanceEpoch;
  MutationPolicy mutation;
  /// Ask the adapters that can (inductor, tvm, pytorchsim) to measure the
  /// compiler's own coverage (driver/CompilerCoverage.h).
  bool compilerCoverage = true;
  /// Reduce every signature that is new in this run, after the campaign,
  /// into findings/<id>/reduced/ (case.npf, kernel.mlir, report.json).
  bool reduce = true;
  /// Reduce also the signatures the known list names by their id alone
  /// (--known): their triage is done, and a reduction costs minutes of some
  /// backends. A line qualified by a skeleton needs the reduced case to
  /// decide, so those are reduced either way.
  bool reduceKnown = false;
  double reduceSeconds = 60; ///< per signature
  /// File a failing case whose worker saw it fail as earlier cases traced
  /// to one root under that root without confirming it (driver/RootClassifier.h).
  bool classifyKnownRoots = true;
  /// Stop once this many failing cases are recorded in this run; 0: never.
  uint64_t maxFindings = 0;
  /// How the campaign was asked for, for repro lines and for refusing to
  /// resume a directory with another campaign.
  std::vector<std::string> passPlugins;
  /// The flags besides --backend that set up the backend (Finding).
  std::vector<std::string> backendFlags;
};

/// The starts of the persistent adapters a run's workers started (a torch
/// import, PyTorchSim's set-up), as the adapters said `ready`
/// (backend/external/PersistentCommand.h).
struct AdapterStarts {
  uint64_t count = 0;
  double maxSeconds = 0, totalSeconds = 0;
  void add(double seconds);
};

/// One signature's line in the summary.
struct FindingSummary {
  std::string id, text, summary;
  uint64_t firstSeed = 0, count = 0;
  /// What report.json says the first case was lowered with: its lowering
  /// seed (none: the canonical lowering) and pass stage.
  std::optional<uint64_t> loweringSeed;
  std::string stage = "entry";
  /// The root-cause bucket of its reduced repro (oracles/Bucket.h); its
  /// own id while it is not reduced.
  std::string bucket, bucketKey;
};

/// Signatures grouped by bucket, in order of bucket id.
struct BucketSummary {
  std::string id, key;
  std::vector<std::string> signatures;
  uint64_t count = 0; ///< failing cases over its signatures
};
std::vector<BucketSummary> bucketsOf(const std::vector<FindingSummary> &findings);

/// The findings of campaign directory `outDir`, ordered by id.
std::vector<FindingSummary> scanFindings(const std::string &outDir);

struct CampaignResult {
  uint64_t cases = 0;      ///< in this run (not counting resumed ones)
  uint64_t totalCases = 0; ///< including earlier runs of the same directory
  double seconds = 0;
  double totalSeconds = 0;                     ///< including earlier runs of the same directory
  std::map<std::string, uint64_t> runVerdicts; ///< this run's
  std::map<std::string, uint64_t> verdicts;    ///< the directory's, every run
  std::map<std::string, uint64_t> features;
  /// Why the unsupported cases were (the backend's reason, numbers
  /// dropped), with how many cases each: the whole campaign's.
  std::map<std::string, uint64_t> unsupportedReasons;
  /// Cases a backend that computes values judged without them (PyTorchSim's
  /// model cannot run one of its kernels), by why, numbers dropped.
  std::map<std::string, uint64_t> valuesNotComputed;
  /// The DMAs of the cases' kernels the map oracle judged (kJudgedDmaMaps),
  /// and those it did not, by why (numbers dropped); a kernel not decoded
  /// (or a part of the program not traced) counts once, under its reason.
  std::map<std::string, uint64_t> dmaMaps;
  /// Hangs and out-of-memory ends that ran through when confirmed alone
  /// with kConfirmAloneFactor times every limit: the machine, not the
  /// compiler, by reason; the directory's. Never findings.
  std::map<std::string, uint64_t> environmentEvents;
  /// This run's workers' adapter starts.
  AdapterStarts adapterStarts;
  IrCoverage irCoverage; ///< the directory's, every run
  /// The compiler's own coverage, the directory's (driver/CompilerCoverage.h).
  CoverageSummary compilerCoverage;
  std::vector<FindingSummary> findings; ///< ordered by id
  /// Signatures this run filed first (the directory had none of them).
  uint64_t firstFiled = 0;
  /// With a known list (--known): the directory's signatures that list does
  /// not name, as `report --known` counts them. Without one, nothing is
  /// known and no count is given.
  std::optional<uint64_t> newToKnownList;
  /// Guided campaigns: this run's mutants, and the corpus at the end (its
  /// cases and the feedback keys they reached).
  uint64_t mutants = 0, corpusCases = 0, corpusKeys = 0;
  uint64_t reduced = 0; ///< new signatures reduced in this run
  /// Signatures left unreduced because the known list names them by id.
  uint64_t knownNotReduced = 0;
  /// Failures of a used worker whose fresh re-run gave another verdict.
  uint64_t historyDependent = 0;
  /// Failures of a fresh worker that its fresh re-run did not repeat (an
  /// outside kill, a flaky toolchain); the re-run's verdict was recorded.
  uint64_t unconfirmed = 0;
  /// Failing cases filed under a known root without a confirming run.
  uint64_t classified = 0;
  /// Failures whose confirmation or blame ran out of time, run again at
  /// the end with kRetryTimeFactor times the time.
  uint64_t retried = 0;
  /// Case signatures generalised to their root cause in this run, and what
  /// it cost (shrink/Generalize.h).
  uint64_t generalized = 0;
  unsigned generalizeTests = 0;
  double generalizeSeconds = 0;
  bool interrupted = false;
  bool stoppedAtMaxFindings = false;
  std::string error;
};

/// The largest seed a campaign runs: seeds are recorded as JSON integers
/// (int64), and never wrap.
constexpr uint64_t kMaxCampaignSeed = 9223372036854775807ull;
/// How many of the shard's case indices have seeds at most
/// kMaxCampaignSeed (0: not even its first).
uint64_t seedIndexLimit(const CampaignOptions &o);

/// Runs a campaign; `jit` has been initialised (and plugins loaded) by the
/// parent so workers inherit it.
CampaignResult runCampaign(const CampaignOptions &options, MlirJit &jit);

/// The human summary table.
void printCampaignSummary(const CampaignResult &r, std::ostream &os);

/// Asks a running campaign to stop (what SIGINT does).
void requestCampaignStop();

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_CAMPAIGN_H
