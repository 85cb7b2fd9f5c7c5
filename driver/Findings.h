//===- driver/Findings.h - Finding directories, written atomically -*- C++ -*-===//
//
// DIR/findings/<signature id>/ (the id of its root cause) holds one failure: case.npf, kernel.mlir,
// stderr.txt, report.json, repro.sh (one line that reproduces it) and
// seeds.txt (every seed seen with this signature, each confirmed by a fresh
// run), for a root found by op blame or a pass's bad access symptoms.txt (how
// each seed showed it), and classified.txt (failing cases a campaign filed
// under the root by how its worker saw them, unconfirmed). A new directory is built
// under a temporary name and renamed into place, so a campaign killed at any
// moment leaves either the whole finding or none; later seeds are appended
// to seeds.txt with one small O_APPEND write each.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_FINDINGS_H
#define NPUFUZZ_DRIVER_FINDINGS_H

#include "driver/CaseTask.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace npufuzz {

struct Finding {
  uint64_t seed = 0;
  /// A guided campaign's mutant (generators/Mutate.h): `npufuzz --seed`
  /// does not rebuild it, its case.npf does. `how` says what it was
  /// mutated from.
  bool mutant = false;
  std::string how;
  std::string caseText;
  std::string mlir;
  CaseReport report;
  /// The root cause the case's signature generalises to
  /// (shrink/Generalize.h): the finding's identity and directory name. None:
  /// the case's own signature.
  std::optional<Signature> root;
  /// The finding's signature: its root cause, or the case's own.
  const Signature &signature() const { return root ? *root : report.signature; }
  std::string pipeline = "O0";
  std::string style = "affine";
  /// The case's lowering seed (none: the canonical plan), and whether the
  /// campaign lowered every case canonically (repro lines then say so).
  std::optional<uint64_t> loweringSeed;
  std::string stage = "entry"; ///< where the pipeline's passes ran (PassStage)
  bool canonicalLowering = false;
  std::string policyPath; ///< empty: the default policy
  std::string backend = "mlir-jit";
  /// The flags besides --backend that select and set up the backend (e.g.
  /// --cmd ARGV, --python PATH, --ptoas PATH), as given: repro lines repeat
  /// them.
  std::vector<std::string> backendFlags;
  std::vector<std::string> passPlugins;
  /// Further files of the finding by name, e.g. the program an external
  /// backend was given (program.py, kernel.pto).
  std::map<std::string, std::string> extraFiles;
};

/// `text` as one word for a POSIX shell.
std::string shellQuote(const std::string &text);

/// The command line that reproduces a generated case's verdict.
std::string reproCommand(const Finding &f);

/// The seeds listed in each finding's seeds.txt and classified.txt, read once per finding and
/// then kept in memory: a campaign records many cases of one signature, and
/// must not re-read a growing seeds.txt for every one of them.
class SeedLedger {
public:
  /// Whether `seed` was already listed for the finding in `findingDir`;
  /// either way it counts as listed from now on (the caller lists it).
  bool listed(const std::string &findingDir, uint64_t seed);
  void add(const std::string &findingDir, uint64_t seed);

private:
  std::set<uint64_t> &seedsOf(const std::string &findingDir);
  std::map<std::string, std::set<uint64_t>> seeds_;
};

/// Records `f` under outDir/findings. Returns true when its signature is new;
/// a seed already listed for an existing signature is not listed again (a
/// campaign resumed after a kill re-runs cases it may have recorded). With a
/// `ledger`, what is listed is looked up there instead of in seeds.txt.
bool recordFinding(const std::string &outDir, const Finding &f, std::string &error,
                   SeedLedger *ledger = nullptr);

/// Lists `seed` in findingDir/classified.txt with `seen`, how its worker
/// saw it fail: a failing case filed under the finding's root without a
/// confirming run (driver/RootClassifier.h). False, with `error`, when the
/// line cannot be written. A seed `ledger` has listed under the finding
/// already (a case a kill cut off, run again) is not listed twice.
bool listClassified(const std::string &findingDir, uint64_t seed, const std::string &seen,
                    SeedLedger &ledger, std::string &error);

/// Number of failing cases filed under a finding directory: its seeds, and
/// the cases classified under it unconfirmed.
uint64_t findingCount(const std::string &findingDir);

/// Writes `text` to `path` via a temporary file and rename.
bool writeFileAtomic(const std::string &path, const std::string &text);

/// False, with the reason, unless `dir` is a campaign directory: it exists
/// and holds a readable summary.json or a findings/ directory.
bool checkCampaignDir(const std::string &dir, std::string &error);

/// What a finding's report.json says about it.
struct FindingReport {
  std::string signatureId, signature, summary, repro;
  /// The backend that found it; mlir-jit for a report older than the field.
  std::string backend = "mlir-jit";
  uint64_t firstSeed = 0;
};

/// Reads findingDir/report.json; false when it is missing, not JSON, has no
/// signature, or names another signature than its directory.
bool readFindingReport(const std::string &findingDir, FindingReport &out, std::string &error);

/// What a finding's reduction says beside its bucket (reduced/report.json),
/// each empty without it: the skeleton id of the IR its blamed pass was
/// given, and the failure of the reduced case with every value returned
/// when that is another of the same pass (its signature text and id).
struct ReducedFacts {
  std::string skeleton, exposedSignature, exposedId;
};

/// The root-cause bucket of a finding (oracles/Bucket.h), read from its
/// reduced/report.json: its id and key, and with `facts` what else the
/// reduction says; the finding's own id (directory name), an empty key and
/// empty facts while it is not reduced.
void readFindingBucket(const std::string &findingDir, std::string &bucket, std::string &key,
                       ReducedFacts *facts = nullptr);

/// Copies every finding of `inputs` into outDir/findings, combining seeds of
/// the same signature. Returns the number of distinct signatures. Every
/// input must be a campaign directory and every finding's report readable;
/// otherwise `error` names the first that is not, and that input or finding
/// is left out.
size_t mergeFindings(const std::string &outDir, const std::vector<std::string> &inputs,
                     std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_FINDINGS_H
