//===- tests/generators/FeatureCoverageTest.cpp - What the generator reaches ===//
//
// The generator must reach every op, dtype, rank, view kind, index form,
// valid-shape kind, pad and rounding mode, and every seed pattern, within a
// few thousand seeds of the default policy. The histogram is printed so a
// policy change shows its effect.
//
//===----------------------------------------------------------------------===//
#include "generators/CaseGenerator.h"
#include "generators/Features.h"

#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace npufuzz {
namespace {

std::vector<std::string> requiredFeatures() {
  std::vector<std::string> required;
  for (int i = 0; i < numOpKinds(); ++i) {
    const auto k = static_cast<OpKind>(i);
    required.push_back("op:" + std::string(opName(k)));
    if (isView(k))
      required.push_back("view:" + std::string(opName(k)));
  }
  for (int i = 0; i < kNumDTypes; ++i)
    required.push_back("dtype:" + std::string(dtypeName(static_cast<DType>(i))));
  for (unsigned r = 1; r <= kMaxRank; ++r)
    required.push_back("rank:" + std::to_string(r));
  for (int i = 0; i < kNumRoundingModes; ++i)
    required.push_back("round:" + std::string(roundingName(static_cast<RoundingMode>(i))));
  for (int i = 0; i < kNumFillKinds; ++i)
    required.push_back("fill:" + std::string(fillName(static_cast<FillKind>(i))));
  for (int i = 0; i < kNumPadKinds; ++i)
    required.push_back("pad:" + std::string(padName(static_cast<PadKind>(i))));
  // A pattern the default policy weighs at 0 (sliced_matmul, pytorchsim's)
  // is held to being recognized when forced, below.
  for (int i = 0; i < kNumPatterns; ++i)
    if (Policy::defaults().patternWeights[i] > 0)
      required.push_back("pattern:" + std::string(patternName(static_cast<PatternKind>(i))));
  for (const char *f :
       {"index:floordiv", "index:mod", "index:negative", "valid:static", "valid:dynamic",
        "dim:tail", "dim:unit", "matmul:f32->f32", "matmul:bf16->f32", "matmul:f16->f32",
        "matmul:i8->i32", "matmul:i32->i32", "gather:input", "gather:iota", "gather:topk"})
    required.push_back(f);
  return required;
}

TEST(FeatureCoverage, DefaultPolicyReachesEveryFeatureIn3000Seeds) {
  const Policy policy = Policy::defaults();
  std::map<std::string, unsigned> histogram;
  for (uint64_t seed = 0; seed < 3000; ++seed)
    for (const std::string &f : caseFeatures(generateCase(seed, policy)))
      ++histogram[f];
  std::string table;
  for (const auto &[feature, count] : histogram)
    table += "  " + feature + " " + std::to_string(count) + "\n";
  std::printf("feature histogram over 3000 seeds (cases with the feature):\n%s", table.c_str());
  for (const std::string &f : requiredFeatures())
    EXPECT_GT(histogram[f], 0u) << "feature " << f << " never generated";
}

TEST(FeatureCoverage, FeaturesAreSortedAndUnique) {
  const Case c = generateCase(5, Policy::defaults());
  const std::vector<std::string> f = caseFeatures(c);
  EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
  EXPECT_EQ(std::adjacent_find(f.begin(), f.end()), f.end());
}

TEST(FeatureCoverage, EachPatternIsRecognizedWhenForced) {
  for (int i = 0; i < kNumPatterns; ++i) {
    const auto p = static_cast<PatternKind>(i);
    Policy policy = Policy::defaults();
    policy.patternRate = 1;
    policy.maxOps = 1;
    policy.patternWeights.assign(kNumPatterns, 0);
    policy.patternWeights[i] = 1;
    const std::string tag = "pattern:" + std::string(patternName(p));
    unsigned hits = 0;
    for (uint64_t seed = 0; seed < 50; ++seed) {
      const std::vector<std::string> f = caseFeatures(generateCase(seed, policy));
      hits += std::binary_search(f.begin(), f.end(), tag);
    }
    EXPECT_GE(hits, 45u) << tag;
  }
}

// Each form of ViewChainForms.def, forced, builds in most cases, and most
// of what it builds holds a reshape of a value that is not contiguous:
// where index arithmetic needs floor and mod.
TEST(FeatureCoverage, EachViewChainFormReshapesAStridedValueWhenForced) {
  for (int i = 0; i < kNumViewChainForms; ++i) {
    Policy policy = Policy::defaults();
    policy.viewChainRate = 1;
    policy.patternRate = 0;
    policy.maxOps = 1;
    policy.viewChainWeights.assign(kNumViewChainForms, 0);
    policy.viewChainWeights[i] = 1;
    unsigned hits = 0;
    for (uint64_t seed = 0; seed < 50; ++seed) {
      const std::vector<std::string> f = caseFeatures(generateCase(seed, policy));
      hits += std::binary_search(f.begin(), f.end(), "view:reshape_of_strided");
    }
    EXPECT_GE(hits, 30u) << viewChainFormName(static_cast<ViewChainForm>(i));
  }
}

} // namespace
} // namespace npufuzz
