//===- tests/shrink/RapidCheckShrinkTest.cpp - RapidCheck vs the reducer -===//
//
// The Arbitrary for cases (tests/generators/RapidCheckGen.h) shrinks through
// shrinkCandidates, and RapidCheck takes the first failing shrink and
// descends, as the reducer does. So a property over the compiler's outcome
// with a planted fault, once RapidCheck has minimised its counterexample,
// lands on exactly the case the reducer gives for that counterexample.
//
// The property is checked with rc::check rather than RC_GTEST_PROP: it is
// meant to fail, and the test asserts what the failure minimised to. It
// fails on the signature of the first failure it sees, i.e. it asks the
// same question as same-signature interestingness.
//
//===----------------------------------------------------------------------===//
#include "bench/PlantedFaults.h"
#include "driver/ReduceCommand.h"
#include "ir/Text.h"
#include "shrink/Reducer.h"
#include "tests/generators/RapidCheckGen.h"

#include <gtest/gtest.h>

#include <iostream>
#include <optional>

using namespace npufuzz;

TEST(RapidCheckShrink, MinimisesToTheReducersCase) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  IsolationLimits limits;
  limits.wallSeconds = 60; // a candidate on a busy machine is no hang
  limits.addressSpaceBytes = 2ull << 30;
  const CandidateRunner run = isolatedRunner(jit, RunConfig(), limits);
  const PlantedFault &fault = plantedFaults()[2]; // break-verifier: the fastest

  std::optional<Signature> target;
  std::optional<Case> counterexample, minimal;
  unsigned calls = 0;
  const bool held = rc::check("the planted pass never breaks the verifier", [&] {
    // Full-size cases from the start (RapidCheck would begin with tiny
    // ones), so that shrinking has work to do.
    const Case c = *rc::gen::resize(100, rc::gen::arbitrary<Case>());
    ++calls;
    const Observation o = run({{c, fault.pass()}})[0];
    if (!target && o.signature.kind == fault.verdict) {
      target = o.signature;
      counterexample = c;
    }
    const bool same = target && o.signature.id() == target->id();
    // Shrinking descends into failing shrinks only, so the last failure
    // RapidCheck sees is its minimal counterexample.
    if (same)
      minimal = c;
    RC_ASSERT(!same);
  });
  ASSERT_FALSE(held) << "no generated case triggered the planted fault";
  ASSERT_TRUE(counterexample && minimal);

  SameSignature same(*target, run);
  ReduceOptions options;
  options.jobs = 2;
  options.shortenPipeline = false; // RapidCheck varies only the case
  const ReduceResult r = reduce({*counterexample, fault.pass()}, same, options);
  ASSERT_TRUE(r.confirmed) << r.error;
  EXPECT_EQ(printCase(r.reduced.c), printCase(*minimal));
  // The reducer's cache saves the candidates RapidCheck re-runs.
  EXPECT_LE(r.tests, calls);
  std::cout << "rapidcheck: " << calls << " property runs; reducer: " << r.tests << " tests, "
            << r.cacheHits << " answered from the cache\n";
}
