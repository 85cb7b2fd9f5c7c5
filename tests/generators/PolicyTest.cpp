//===- tests/generators/PolicyTest.cpp - Policy text ----------------------===//
#include "generators/Policy.h"
#include "generators/CaseGenerator.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace npufuzz {
namespace {

TEST(Policy, DefaultPrintsAsDefault) { EXPECT_EQ(Policy::defaults().str(), "default"); }

TEST(Policy, PrintsOnlyChangedKeysAndRoundTrips) {
  Policy p = Policy::defaults();
  p.maxOps = 4;
  p.edgeRate = 0.1;
  p.patternRate = 0;
  p.opWeights[static_cast<int>(OpKind::Matmul)] = 9;
  p.dtypeWeights[static_cast<int>(DType::BF16)] = 0;
  p.rankWeights[4] = 7;
  EXPECT_EQ(p.str(),
            "default max_ops=4 edge_rate=0.1 pattern_rate=0 op.matmul=9 dtype.bf16=0 rank.5=7");
  Policy parsed;
  std::string error;
  ASSERT_TRUE(parsePolicy(p.str(), parsed, error)) << error;
  EXPECT_EQ(parsed, p);
  EXPECT_EQ(parsed.str(), p.str());
}

TEST(Policy, EveryKeyRoundTrips) {
  // Bump each key of the defaults in turn; print then parse must give it back.
  Policy base = Policy::defaults();
  std::string all;
  for (int i = 1; i < numOpKinds(); ++i)
    all += " op." + std::string(opName(static_cast<OpKind>(i))) + "=" + std::to_string(i + 11);
  Policy p;
  std::string error;
  ASSERT_TRUE(parsePolicy("default max_dim=100 lane=8 reuse_rate=0.33" + all, p, error)) << error;
  EXPECT_NE(p, base);
  Policy again;
  ASSERT_TRUE(parsePolicy(p.str(), again, error)) << error;
  EXPECT_EQ(again, p);
  EXPECT_EQ(again.str(), p.str());
}

TEST(Policy, ParsesFileSyntaxWithComments) {
  const std::string file = "# a campaign policy\n"
                           "max_ops = 12   # bigger cases\n"
                           "\n"
                           "op.index_map = 20\n"
                           "dtype.bf16=5 dim.tail = 9\n";
  Policy p;
  std::string error;
  ASSERT_TRUE(parsePolicy(file, p, error)) << error;
  EXPECT_EQ(p.str(), "default max_ops=12 op.index_map=20 dtype.bf16=5 dim.tail=9");

  const std::string path = ::testing::TempDir() + "/npufuzz_policy_test.txt";
  std::ofstream(path) << file;
  Policy fromFile;
  ASSERT_TRUE(parsePolicyFile(path, fromFile, error)) << error;
  EXPECT_EQ(fromFile, p);
  std::remove(path.c_str());
}

TEST(Policy, RejectsBadText) {
  const std::pair<const char *, const char *> bad[] = {
      {"max_ops=0", "max_ops"},
      {"max_ops=abc", "max_ops"},
      {"max_rank=7", "max_rank"},
      {"edge_rate=1.5", "edge_rate"},
      {"edge_rate=nan", "edge_rate"},
      {"op.matmul=-1", "op.matmul"},
      {"op.input=3", "op.input"},
      {"op.frobnicate=1", "unknown policy key 'op.frobnicate'"},
      {"max_ops", "expected key=value"},
      {"max_ops=", "missing value"},
      {"max_tensor_elements=100 max_case_elements=10", "max_case_elements"},
      {"dtype.f32=0 dtype.f16=0 dtype.bf16=0 dtype.i8=0 dtype.i32=0 dtype.i64=0 "
       "dtype.index=0 dtype.i1=0",
       "dtype"},
  };
  for (const auto &[text, expected] : bad) {
    Policy p;
    std::string error;
    EXPECT_FALSE(parsePolicy(text, p, error)) << text;
    EXPECT_NE(error.find(expected), std::string::npos) << text << " -> " << error;
  }
  Policy p;
  std::string error;
  EXPECT_FALSE(parsePolicyFile("/nonexistent/policy.txt", p, error));
  EXPECT_NE(error.find("/nonexistent/policy.txt: No such file"), std::string::npos) << error;
}

// --backend pto's default: rank-2 tiles of dtypes PTO tiles hold.
TEST(Policy, ThePtoPolicyMakesRank2TilesOfPtoDtypes) {
  const Policy p = ptoPolicy();
  EXPECT_NE(p, Policy::defaults());
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const Case c = generateCase(seed, p);
    for (const Value &v : c.values) {
      EXPECT_EQ(v.type.rank(), 2u) << "seed " << seed;
      EXPECT_TRUE(v.type.dtype == DType::F32 || v.type.dtype == DType::F16 ||
                  v.type.dtype == DType::I32 || v.type.dtype == DType::I8)
          << "seed " << seed << ": " << dtypeName(v.type.dtype);
    }
  }
}

// --backend pypto's default: the PTO policy's tiles, without the views,
// chains and expands PyPTO does not write or lower.
TEST(Policy, ThePyptoPolicyIsThePtoPolicyLessWhatPyptoDoesNotWrite) {
  const Policy p = pyptoPolicy();
  EXPECT_EQ(defaultPolicyFor("pypto"), p);
  EXPECT_NE(p, ptoPolicy());
  EXPECT_EQ(p.maxRank, ptoPolicy().maxRank);
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const Case c = generateCase(seed, p);
    EXPECT_TRUE(c.tasks.empty()) << "seed " << seed;
    for (const Op &op : c.ops)
      EXPECT_TRUE(opCategory(op.kind) != OpCategory::View && op.kind != OpKind::RowExpandAdd &&
                  op.kind != OpKind::ColExpandSub)
          << "seed " << seed << ": " << opName(op.kind);
  }
}

// --backend inductor's default: no dim past 64 (the axes its programs fold
// step by step), and each backend's default found by its name.
TEST(Policy, TheInductorPolicyKeepsEveryDimSmall) {
  const Policy p = inductorPolicy();
  EXPECT_EQ(defaultPolicyFor("inductor"), p);
  EXPECT_EQ(defaultPolicyFor("pto"), ptoPolicy());
  EXPECT_EQ(defaultPolicyFor("torch"), Policy::defaults());
  for (uint64_t seed = 0; seed < 200; ++seed)
    for (const Value &v : generateCase(seed, p).values)
      for (const int64_t d : v.type.shape)
        EXPECT_LE(d, 64) << "seed " << seed;
}

} // namespace
} // namespace npufuzz
