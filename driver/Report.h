//===- driver/Report.h - Nightly reports from campaign directories -*- C++ -*-===//
//
// Reads one or more campaign directories (summary.json, findings/) and
// writes what people and CI systems read: report.json, junit.xml (one test
// case per signature, failing when the signature is new) and a static
// index.html (findings by signature with the minimal repro inline,
// throughput, a feature-coverage chart, new vs known signatures).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_REPORT_H
#define NPUFUZZ_DRIVER_REPORT_H

#include "driver/CompilerCoverage.h"
#include "driver/IrCoverage.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace npufuzz {

struct ReportFinding {
  std::string id, signature, summary, repro, caseText, campaign;
  /// The backend that found it (Backends.def): what the known list's
  /// sections are read for. Two backends' findings of one id are two.
  std::string backend;
  uint64_t count = 0, firstSeed = 0;
  bool known = false;
  /// Blamed on a switch whose absence asks the compiler for stricter
  /// semantics (backend/CompilerSwitches.h, isCompilerFreedom): what its
  /// default documents as free, filed apart and never counted as new.
  bool freedom = false;
  /// A wrong value only in the sign of a zero (the signature's difference
  /// is `signed-zero`): listed as minor, apart from wrong values, and never
  /// counted as new. Triage may still find it a bug of a documented order
  /// (maximumf's -0 < +0), and list it.
  bool minor = false;
  /// Neither known, nor a documented freedom, nor minor: what fails a night.
  bool isNew() const { return !known && !freedom && !minor; }
  /// Its root-cause bucket (oracles/Bucket.h); its own id when not reduced.
  std::string bucket, bucketKey;
  /// The skeleton id of the IR its blamed pass was given, when reduced.
  std::string skeleton;
  /// When reduced: the failure of its reduced case with every value
  /// returned, when that is another of the same pass (the root the op of
  /// its signature only showed), and that signature's id.
  std::string exposedSignature, exposedId;
};

struct ReportCampaign {
  std::string name; ///< the directory's name (e.g. affine-O2)
  uint64_t cases = 0;
  double seconds = 0;
  std::map<std::string, uint64_t> verdicts;
  /// The compiler's own coverage, from its summary.json.
  CoverageSummary compilerCoverage;
};

struct NightlyReport {
  std::vector<ReportCampaign> campaigns;
  std::vector<ReportFinding> findings; ///< ordered: new first, then by id
  std::map<std::string, uint64_t> features;
  IrCoverage irCoverage; ///< summed over the campaigns
  uint64_t cases = 0;
  double seconds = 0;
  /// Findings neither known, nor a documented freedom, nor minor.
  size_t newSignatures() const;
  /// Minor findings not known (a sign of zero).
  size_t newMinor() const;
};

/// True for a signature id: a verdict name, '-', 16 lowercase hex digits.
bool isSignatureId(const std::string &text);

/// Whether a finding's signature text blames a switch whose absence asks
/// for stricter semantics (`inductor:default_pointwise_numerics`).
bool blamesCompilerFreedom(const std::string &signatureText);

/// Whether a finding's signature text is a wrong value only in the sign of
/// a zero: from an approximation, a documented flush or a fold, what a
/// maintainer calls minor.
bool isSignedZeroOnly(const std::string &signatureText);

/// A known list, by the backends its sections name. Every line sits under
/// a section line naming the backends (Backends.def) it holds for, e.g.
/// `[iree]` or `[mlir-jit mlir-tools]`: a coarse signature id is one hash
/// of a verdict, a pass and an op family, so two compilers' bugs can share
/// it, and one compiler's listed bug must never hide another's.
struct KnownList {
  std::map<std::string, std::set<std::string>> byBackend;
  /// What `backend`'s findings are known by (empty when it has no section).
  const std::set<std::string> &of(const std::string &backend) const;
};

/// What a list of known findings names, one per line (`#` comments) in
/// `path`, under section lines (`[BACKEND ...]`): a bucket id, a signature
/// id, a signature id and a skeleton id (`mismatch-... skeleton-...`), or a
/// signature id and the IR its bug needs (`mismatch-... contains
/// affine.for{affine.load(div)}`, a skeleton pattern:
/// oracles/SkeletonPattern.h), or a root of a pass under whatever op it
/// shows (`mismatch func.func(affine-loop-fusion) contains PATTERN`: a
/// verdict, a pass and the IR the root needs), or a root by the kernel ops
/// that computed its wrong value (`mismatch computed-by arith.extsi
/// i1>i8`: knownByComputation), kept as that line for each
/// backend of its section; false with FILE:LINE and the reason when a line
/// is none of these, a section names no backend or one that does not
/// exist, a line comes before any section, or the file cannot be read.
bool readKnownList(const std::string &path, KnownList &list, std::string &error);

/// The lines of the known list at `path` that hold for `backend`.
bool readKnownSignatures(const std::string &path, const std::string &backend,
                         std::set<std::string> &known, std::string &error);

/// Whether a finding is known to `known`: its bucket is listed; or, when
/// its signature is coarse (a wrong value named by its op family, a crash
/// named by a signal) and its reduction gave the skeleton of the IR its
/// blamed pass was given, its signature with that skeleton (a new bug of a
/// known pass needs other IR, so such a signature alone does not make it
/// known), or its signature with a pattern its reduced skeleton includes
/// (the IR the known bug needs, whatever else the reduction kept beside
/// it), or a root line of its verdict and pass with a pattern its reduced
/// skeleton includes; or else its signature. A finding whose reduced case
/// with every value returned fails otherwise in the same pass is also
/// known when that failure is, by the same rules and its own skeleton.
bool isKnownFinding(const ReportFinding &f, const std::set<std::string> &known);

/// Collects the campaigns in `dirs` (each with its totals over every resumed
/// run); a finding is known as isKnownFinding says of what `known` lists
/// for its backend. Sets `error` and stops at the first directory or
/// finding that cannot be read.
NightlyReport collectReport(const std::vector<std::string> &dirs, const KnownList &known,
                            std::string &error);

/// Writes report.json, junit.xml and index.html into `outDir`.
bool writeReport(const NightlyReport &report, const std::string &outDir, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_REPORT_H
