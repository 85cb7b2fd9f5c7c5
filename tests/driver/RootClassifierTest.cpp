//===- tests/driver/RootClassifierTest.cpp - Failing cases filed under a known root ===//
//
// A failing case is filed under a root without confirmation only when
// earlier confirmations of its fingerprint agreed on that root; a case of a
// fingerprint never confirmed, or one whose confirmations disagreed, or one
// of the seeds sampled for confirmation, is always confirmed.
//
//===----------------------------------------------------------------------===//
#include "driver/RootClassifier.h"
#include "ir/Hash.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>
#include <vector>

using namespace npufuzz;

namespace {
using Fingerprint = RootClassifier::Fingerprint;

bool sampled(uint64_t seed) {
  return fnv1a(std::to_string(seed)) % RootClassifier::kSampleEvery == 0;
}

/// A seed the classifier does not sample for confirmation.
uint64_t unsampledSeed() {
  uint64_t seed = 1;
  while (sampled(seed))
    ++seed;
  return seed;
}
} // namespace

TEST(RootClassifier, AFingerprintIsDecidedOnlyByAgreeingConfirmations) {
  RootClassifier c;
  const Fingerprint add{"mismatch-1", "mismatch"};
  const uint64_t seed = unsampledSeed();
  EXPECT_FALSE(c.classify(add, seed)) << "never confirmed";
  c.confirmed(add, {"mismatch-root", "mismatch"});
  EXPECT_FALSE(c.classify(add, seed)) << "one confirmation is not enough";
  c.confirmed(add, {"mismatch-root", "out-of-bounds-read"});
  const std::optional<Classification> root = c.classify(add, seed);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->findingId, "mismatch-root");
  EXPECT_EQ(root->verdict, "mismatch") << "counted as its first confirmed case";
  // A sampled seed is confirmed whatever its fingerprint.
  uint64_t other = 1;
  while (!sampled(other))
    ++other;
  EXPECT_FALSE(c.classify(add, other));
  // Another root behind the same fingerprint: never decided again.
  c.confirmed(add, {"mismatch-other", "mismatch"});
  EXPECT_FALSE(c.classify(add, seed));
  c.confirmed(add, {"mismatch-root", "mismatch"});
  EXPECT_FALSE(c.classify(add, seed));
}

TEST(RootClassifier, TheVerdictAloneNeedsMoreAgreeingConfirmations) {
  RootClassifier c;
  const uint64_t seed = unsampledSeed();
  // Four ops of one root, each seen once: the verdict grain decides.
  for (unsigned k = 0; k < RootClassifier::kAgreeingVerdict; ++k) {
    EXPECT_FALSE(c.classify({"mismatch-op" + std::to_string(k + 10), "mismatch"}, seed));
    c.confirmed({"mismatch-op" + std::to_string(k), "mismatch"}, {"mismatch-root", "mismatch"});
  }
  const std::optional<Classification> root = c.classify({"mismatch-new-op", "mismatch"}, seed);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->findingId, "mismatch-root");
  EXPECT_FALSE(c.classify({"crash-1", "crash"}, seed)) << "another verdict";
  // A failure that did not repeat in a fresh run undecides its grains.
  c.confirmed({"mismatch-op0", "mismatch"}, {"", ""});
  EXPECT_FALSE(c.classify({"mismatch-new-op", "mismatch"}, seed));
  EXPECT_FALSE(c.classify({"mismatch-op0", "mismatch"}, seed));
  EXPECT_FALSE(c.classify({}, seed)) << "no fingerprint";
  // A fingerprint whose failures never repeat fresh is never a root's.
  for (int k = 0; k < 8; ++k)
    c.confirmed({"crash-stale", "crash"}, {"", ""});
  EXPECT_FALSE(c.classify({"crash-stale", "crash"}, seed));
  EXPECT_FALSE(c.classify({"crash-other", "crash"}, seed));
}

// Whatever confirmations came before, a case is only ever filed under a
// root that some confirmation of its own fingerprint (either grain) named,
// every confirmation of that grain named it, and sampled seeds never are.
RC_GTEST_PROP(RootClassifier, FilesOnlyUnderARootEveryConfirmationOfItsGrainNamed, ()) {
  const auto confirmations = *rc::gen::container<std::vector<std::pair<int, int>>>(
      rc::gen::pair(rc::gen::inRange(0, 4), rc::gen::inRange(0, 3)));
  const int op = *rc::gen::inRange(0, 5);
  const uint64_t seed = *rc::gen::inRange<uint64_t>(0, 1000);
  RootClassifier c;
  // Fingerprint k is "sig-k" with verdict "mismatch" for even k, "crash"
  // for odd k; root r is "root-r".
  auto fingerprint = [](int k) {
    return Fingerprint{"sig-" + std::to_string(k), k % 2 ? "crash" : "mismatch"};
  };
  std::vector<std::set<std::string>> bySignature(5), byVerdict(2);
  for (const auto &[k, r] : confirmations) {
    const std::string root = "root-" + std::to_string(r);
    c.confirmed(fingerprint(k), {root, "v"});
    bySignature[k].insert(root);
    byVerdict[k % 2].insert(root);
  }
  const std::optional<Classification> got = c.classify(fingerprint(op), seed);
  if (!got)
    return;
  RC_ASSERT(!sampled(seed));
  const bool bySig = bySignature[op] == std::set<std::string>{got->findingId};
  const bool byVer = byVerdict[op % 2] == std::set<std::string>{got->findingId};
  RC_ASSERT(bySig || byVer);
}
