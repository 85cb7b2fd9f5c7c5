//===- tests/reference/GeneratedCasesTest.cpp - Generator x reference -----===//
//
// 10,000 consecutive generated cases verify and run on the reference without
// error. CI runs this binary in the ASan+UBSan build too, where any memory or
// undefined-behaviour error in generation or evaluation aborts the test.
//
//===----------------------------------------------------------------------===//
#include "generators/CaseGenerator.h"
#include "ir/Verifier.h"
#include "reference/Executor.h"

#include <gtest/gtest.h>

using namespace npufuzz;

TEST(GeneratedCases, TenThousandVerifyAndRunOnTheReference) {
  const Policy policy = Policy::defaults();
  for (uint64_t seed = 0; seed < 10000; ++seed) {
    const Case c = generateCase(seed, policy);
    ASSERT_EQ(verifyCase(c), "") << "seed " << seed;
    const RefRun run = runReference(c);
    ASSERT_TRUE(run.ok()) << "seed " << seed << ": " << run.error;
    ASSERT_EQ(run.outputs.size(), c.outputs.size()) << "seed " << seed;
  }
}
