//===- tests/generators/CaseGeneratorTest.cpp - The case generator --------===//
#include "generators/CaseGenerator.h"
#include "tests/generators/GeneratorChecks.h"

#include "ir/Text.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

namespace npufuzz {
namespace {

TEST(CaseGenerator, DefaultPolicyPassesGeneratorChecks) {
  const Policy policy = Policy::defaults();
  testing::checkGenerator([&](uint64_t seed) { return generateCase(seed, policy); });
}

TEST(CaseGenerator, TunedPoliciesPassGeneratorChecks) {
  for (const char *text :
       {"default max_ops=2 max_rank=2", "default max_ops=16 pattern_rate=1",
        "default max_rank=1 max_dim=8", "default max_tensor_elements=64 max_case_elements=256",
        "default index_depth=6 floordiv_mod_rate=1 op.index_map=100",
        "default reuse_rate=0 max_inputs=2 valid_rate=1 dynamic_valid_rate=1"}) {
    SCOPED_TRACE(text);
    Policy policy;
    std::string error;
    ASSERT_TRUE(parsePolicy(text, policy, error)) << error;
    testing::GeneratorCheckOptions options;
    options.numSeeds = 100;
    options.shrinkSeeds = 3;
    testing::checkGenerator([&](uint64_t seed) { return generateCase(seed, policy); }, options);
  }
}

TEST(CaseGenerator, TenThousandCasesVerifyWithoutSafetyNets) {
  const Policy policy = Policy::defaults();
  GenerationStats stats;
  for (uint64_t seed = 0; seed < 10000; ++seed) {
    const Case c = generateCase(seed, policy, stats);
    const std::string error = verifyCase(c);
    ASSERT_EQ(error, "") << "seed " << seed << "\n" << printCase(c);
  }
  // The builders follow the verifier's rules: nothing is refused, and no
  // case needs the fallback.
  EXPECT_EQ(stats.casesReplaced, 0u);
  EXPECT_EQ(stats.opsRefused, 0u);
}

TEST(CaseGenerator, RecordsProvenanceAndData) {
  Policy policy = Policy::defaults();
  policy.edgeRate = 0.25;
  const Case c = generateCase(99, policy);
  ASSERT_TRUE(c.provenance.has_value());
  EXPECT_EQ(c.provenance->seed, 99u);
  EXPECT_EQ(c.provenance->policy, "default edge_rate=0.25");
  EXPECT_EQ(c.dataSeed, 99u);
  EXPECT_EQ(c.edgeRate, 0.25);
}

TEST(CaseGenerator, StaysWithinPolicyLimits) {
  const Policy policy = Policy::defaults();
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const Case c = generateCase(seed, policy);
    int64_t total = 0;
    for (const Value &v : c.values) {
      EXPECT_LE(v.type.rank(), policy.maxRank) << "seed " << seed;
      EXPECT_LE(v.type.numElements(), policy.maxTensorElements) << "seed " << seed;
      total += v.type.numElements();
    }
    EXPECT_LE(total, policy.maxCaseElements) << "seed " << seed;
    for (ValueId out : c.outputs)
      EXPECT_NE(c.ops[c.values[out].defOp].kind, OpKind::Input) << "seed " << seed;
  }
}

// IREE runs a topk's selection loop in its VM: a case whose topk takes more
// steps than the policy allows outlasts the case's limit (a hang npufuzz
// made, not IREE). The bound cuts k after its draws: a case whose topks all
// stay under it is the one the unbounded policy makes, byte for byte, and
// one that differs holds a topk the unbounded policy draws past it.
TEST(CaseGenerator, TopKStaysUnderThePolicysStepsAndChangesNothingElse) {
  const Policy policy = defaultPolicyFor("iree");
  Policy unbounded = policy;
  unbounded.maxTopKSteps = Policy::defaults().maxTopKSteps;
  ASSERT_LT(policy.maxTopKSteps, unbounded.maxTopKSteps);
  const auto steps = [](const Case &c, const Op &op) {
    return c.values[op.operands[0]].type.numElements() * op.attrs.k;
  };
  // The header names the policy; the program below it is what must agree.
  const auto program = [](const Case &c) {
    const std::string text = printCase(c);
    return text.substr(text.find("\n%"));
  };
  int cut = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    const Case c = generateCase(seed, policy);
    for (const Op &op : c.ops)
      if (op.kind == OpKind::TopK)
        EXPECT_TRUE(steps(c, op) <= policy.maxTopKSteps || op.attrs.k == 1) << "seed " << seed;
    const Case drawn = generateCase(seed, unbounded);
    if (program(c) == program(drawn))
      continue;
    ++cut;
    bool over = false;
    for (const Op &op : drawn.ops)
      over |= op.kind == OpKind::TopK && steps(drawn, op) > policy.maxTopKSteps;
    EXPECT_TRUE(over) << "seed " << seed << " differs without a topk past the bound";
  }
  EXPECT_GT(cut, 0) << "no topk was cut: the test shows nothing";
}

// Pinned identities of a few generated cases. They change only when the
// generator (or the text format) changes on purpose: if this fails after an
// intentional generator change, update the hashes; otherwise the generator
// lost its determinism.
TEST(CaseGenerator, PinnedCaseHashes) {
  const Policy policy = Policy::defaults();
  const std::pair<uint64_t, uint64_t> pinned[] = {
      {1, 0xef56a64eea76e6c6ull},
      {7, 0x277f64b7279dafb6ull},
      {42, 0xcf31544263764cf2ull},
  };
  for (const auto &[seed, hash] : pinned)
    EXPECT_EQ(caseHash(generateCase(seed, policy)), hash)
        << "seed " << seed << " now generates a different case (hash 0x" << std::hex
        << caseHash(generateCase(seed, policy)) << std::dec
        << "). Update the pinned hash only if the generator was changed on purpose:\n"
        << printCase(generateCase(seed, policy));
}

} // namespace
} // namespace npufuzz
