//===- driver/GuidedCorpus.h - Cases that reached something new -*- C++ -*-===//
//
// A guided campaign keeps every case whose feedback (driver/Feedback.h)
// held a key no earlier case had, and spends part of its cases on mutants
// of them (generators/Mutate.h), favouring parents that reached what few
// cases reach (FairFuzz's rare branches, Entropic's rare features): a
// parent is weighted by the sum, over the keys it was first to reach, of one
// over how many cases have reached each since.
//
// The campaign runs in epochs of case indices (128 unless the campaign
// says otherwise: a backend whose cases take seconds wants its first
// mutants sooner than after 256 cases). What the
// cases of an epoch reached is taken in, in the order of their indices,
// once all of them have run and the epoch after it has been decided; the
// cases of epoch t are drawn from the corpus as it stood after epoch t - 2.
// So a campaign makes the same cases with any --jobs, on any machine, and
// never waits for the cases just before it. Each entry is kept in
// DIR/corpus/SEED.json, so a resumed campaign, and a merge of shards,
// keeps its corpus (a resumed campaign takes in nothing of the epoch that
// a stop cut short).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_GUIDEDCORPUS_H
#define NPUFUZZ_DRIVER_GUIDEDCORPUS_H

#include "generators/Mutate.h"
#include "ir/Prng.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace npufuzz {

/// Case indices per epoch, unless a campaign gives its own.
constexpr uint64_t kDefaultGuidanceEpoch = 128;

struct CorpusEntry {
  uint64_t index = 0, seed = 0; ///< of the campaign case that reached it
  Seedling s;
  std::string how;            ///< how the case was made: "generated", or its mutations
  std::vector<uint32_t> keys; ///< what it reached, sorted and distinct
  /// The keys it was the first case to reach.
  std::vector<uint32_t> owned;
  uint32_t picked = 0; ///< times it was a parent
  uint64_t rarity = 0; ///< its weight as of the last epoch taken in
};

class GuidedCorpus {
public:
  explicit GuidedCorpus(uint64_t epoch = kDefaultGuidanceEpoch) : epoch_(epoch) {}

  /// Reads DIR/corpus/*.json (a missing directory is an empty corpus) and
  /// keeps new entries there from now on; a campaign resumed with every
  /// index below `next`, and those in `ahead`, done before. False with
  /// `error` on an entry that cannot be read.
  bool open(const std::string &campaignDir, uint64_t next, const std::set<uint64_t> &ahead,
            std::string &error);

  /// What the case of `e.index` reached (its keys empty when it is no
  /// parent: a case that failed). Taken in with its epoch.
  void offer(CorpusEntry e);
  /// Takes in every epoch that is complete and whose next epoch is decided
  /// (every index below `decidedBelow` is). False with `error` when an
  /// entry cannot be written.
  bool advance(uint64_t decidedBelow, std::string &error);
  /// Whether the case of `index` may be decided now: the epochs its
  /// parents come from are taken in.
  bool ready(uint64_t index) const;
  /// A parent for the case the campaign decides next (ready), drawn with
  /// `rng`; null when the corpus is empty.
  const CorpusEntry *pick(Prng &rng);

  size_t size() const { return entries_.size(); }
  size_t keysSeen() const { return hits_.size(); }

private:
  bool doneBefore(uint64_t index) const { return index < resumedAt_ || aheadAtStart_.count(index); }
  /// Counts the hits of `e`'s keys; those it is the first to reach are its own.
  void takeIn(CorpusEntry &e);
  void reweigh();

  uint64_t epoch_; ///< case indices per epoch
  std::string dir_;
  uint64_t resumedAt_ = 0;
  std::set<uint64_t> aheadAtStart_;
  uint64_t epochsTaken_ = 0; ///< epochs whose cases are taken in
  std::map<uint64_t, CorpusEntry> pending_;
  std::vector<CorpusEntry> entries_;
  /// How many cases reached each key. Never iterated: its order would be
  /// the hash table's, which no output may depend on.
  std::unordered_map<uint32_t, uint32_t> hits_;
};

/// Copies the corpus entries of campaign directories `inputs` into
/// outDir/corpus (entries are named by seed, which shards do not share).
bool mergeCorpora(const std::string &outDir, const std::vector<std::string> &inputs,
                  std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_GUIDEDCORPUS_H
