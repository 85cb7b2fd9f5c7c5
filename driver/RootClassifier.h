//===- driver/RootClassifier.h - Failing cases filed under a known root -*- C++ -*-===//
//
// In a bad night most cases fail, and each failing case is confirmed in a
// fresh process and blamed (pass prefixes, op cuts, generalisation): several
// compiles and runs where a passing case had one. Most of them are more
// cases of a root already found. The worker that ran a case saw how it
// failed (its verdict and where, without blame: the case's fingerprint); a
// fingerprint that its confirmed cases always traced to one root is decided,
// and a later case with it is filed under that root without a confirming
// run. Fingerprints come in two grains: the worker's signature (its
// verdict, the op of the first wrong output, the class of difference) and
// its verdict alone, which a bug that shows in whichever op comes first
// decides after a few cases, where the fine grain needs two confirmations
// of every op. One failing case in kSampleEvery (by its seed) is confirmed
// anyway, so that a second root behind a decided fingerprint is still
// found; when a confirmation names another root, or does not fail, the
// fingerprint is undecided for the rest of the run (a resumed run learns
// afresh). (The verdict a root's cases show may vary: a pass's bad access
// is read past one buffer here, written past another there. A classified
// case is counted with the verdict of the first confirmed case of its
// fingerprint.) Classification never makes a finding: a case is only filed
// under one that a fresh, blamed run made. A worker signature never
// confirmed may still be filed by its verdict alone, once four
// confirmations of that verdict agreed: a new root whose cases fail with
// that verdict is then found through the confirmed quarter, the first of
// whose cases undecides the verdict.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_ROOTCLASSIFIER_H
#define NPUFUZZ_DRIVER_ROOTCLASSIFIER_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace npufuzz {

/// Where a classified case goes: the finding (its signature id), and the
/// verdict it is counted with (that of the fingerprint's first confirmed
/// case).
struct Classification {
  std::string findingId;
  std::string verdict;
};

class RootClassifier {
public:
  /// Confirmations that must agree before a fingerprint is decided: of the
  /// worker's signature, and of its verdict alone, which more roots share.
  static constexpr unsigned kAgreeingSignature = 2;
  static constexpr unsigned kAgreeingVerdict = 4;
  /// One failing case in this many (by seed) is confirmed even when its
  /// fingerprint is decided.
  static constexpr uint64_t kSampleEvery = 4;

  /// How a worker saw a case fail, in both grains.
  struct Fingerprint {
    std::string signatureId; ///< the worker's signature id
    std::string verdict;     ///< the worker's verdict
    bool empty() const { return signatureId.empty(); }
  };

  /// The root a failing case of `fingerprint` is filed under without
  /// confirmation; nullopt: confirm it.
  std::optional<Classification> classify(const Fingerprint &fingerprint, uint64_t seed) const;
  /// A confirmed case: its worker's fingerprint, the finding it was filed
  /// under and its confirmed verdict (an empty finding: it did not fail).
  void confirmed(const Fingerprint &fingerprint, const Classification &root);

private:
  struct Seen {
    Classification root;
    unsigned agreeing = 0;
    bool split = false; ///< two confirmations disagreed: never decided
  };
  /// By grain-tagged key (`signature:` or `verdict:`).
  std::map<std::string, Seen> seen_;
  std::optional<Classification> decided(const std::string &key, unsigned agreeing) const;
  void learn(const std::string &key, const Classification &root);
};

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_ROOTCLASSIFIER_H
