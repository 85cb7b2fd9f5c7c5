//===- tests/oracles/OracleTestSupport.h - A case for one oracle to judge -*- C++ -*-===//
//
// An oracle judges a case from one run of it: here the case runs once in
// this process (the differential oracle), and the oracle under test is
// given its context with reruns in this process and a "child" that is
// this process too, both counted, and either replaceable by a test.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_TESTS_ORACLES_ORACLETESTSUPPORT_H
#define NPUFUZZ_TESTS_ORACLES_ORACLETESTSUPPORT_H

#include "oracles/Oracle.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace npufuzz::testing {

/// The in-process JIT of every test here, with the pass plugin whose passes
/// are wrong on purpose (tests/plugins/TestPassPlugin.cpp) loaded: they
/// run only when a pipeline names them.
inline MlirJit &pluginJit() {
  static MlirJit *jit = [] {
    auto *loaded = new MlirJit;
    std::string error;
    EXPECT_TRUE(loaded->loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
    return loaded;
  }();
  return *jit;
}

/// The test plugin's pass that rewrites every arith.addf into arith.subf.
inline const char *const kMiscompile = "func.func(npufuzz-test-miscompile)";

inline RunConfig withPipeline(const std::string &pipeline) {
  RunConfig config;
  config.pipeline = pipeline;
  return config;
}

/// A case run once with `config`, ready for an oracle to judge it again.
struct JudgedCase {
  explicit JudgedCase(const std::string &text, const RunConfig &config = RunConfig())
      : jit(pluginJit()), c(parseOrFail(text)), config(config) {
    std::string error;
    EXPECT_TRUE(resolvePipeline(config.pipeline, config.style, pipeline, error)) << error;
    base = runCase(c, jit, config);
  }
  JudgedCase(const JudgedCase &) = delete;
  JudgedCase &operator=(const JudgedCase &) = delete;

  /// The differential oracle's verdict had the base run given `kind`.
  CaseVerdict judgedAs(VerdictKind kind) {
    base.verdict = kind;
    return differentialVerdict(c, base);
  }

  /// `oracle`'s verdict, given the differential oracle's (or `before`):
  /// what the oracles before it would have decided.
  CaseVerdict judge(const Oracle &oracle, std::optional<CaseVerdict> before = std::nullopt) {
    CaseVerdict verdict = before ? *before : differentialVerdict(c, base);
    OracleContext ctx{
        c,
        jit,
        config,
        pipeline,
        base,
        [this](uint32_t poison) {
          reruns.push_back(poison);
          return fakeRerun ? fakeRerun(poison)
                           : rerunKernel(c, jit, config, pipeline, base, poison);
        },
        [this](const std::function<std::string()> &work) -> std::optional<std::string> {
          ++children;
          if (!childReturns)
            return std::nullopt;
          return work();
        },
        namedByVariant};
    oracle.check(ctx, verdict);
    namedByVariant = ctx.namedByVariant;
    return verdict;
  }

  MlirJit &jit;
  Case c;
  RunConfig config;
  Pipeline pipeline;
  CaseOutcome base;
  /// Answers the reruns instead of the kernel when set.
  std::function<BackendRun(uint32_t poison)> fakeRerun;
  /// Whether the "child" returns (false: as if it crashed or hung).
  bool childReturns = true;
  /// OracleContext::namedByVariant before and after judge().
  bool namedByVariant = false;
  std::vector<uint32_t> reruns; ///< the poison of every rerun, in order
  int children = 0;             ///< the pieces of work given to a child
};

/// `run` with the first element of its first output changed (a float's
/// exponent: far beyond any tolerance). That element must be defined.
inline BackendRun withChangedOutput(BackendRun run) {
  TensorData &out = run.outputs.at(0);
  out.data()[out.elementBytes() - 1] ^= 0x40;
  return run;
}

/// Two f32 inputs added: the test plugin's npufuzz-test-miscompile makes it
/// a subtraction, a wrong result on every element.
inline const char *const kAddition = R"(npufuzz-case 1
generator seed=1 policy="default"
data seed=1 edge_rate=0
%0 = input : f32[2,3]
%1 = input : f32[2,3]
%2 = add %0, %1 : f32[2,3]
%3 = exp %2 : f32[2,3]
return %3
)";

} // namespace npufuzz::testing

#endif // NPUFUZZ_TESTS_ORACLES_ORACLETESTSUPPORT_H
