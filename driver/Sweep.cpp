//===- driver/Sweep.cpp - Generate and reference-run a batch of seeds -----===//
#include "driver/Sweep.h"

#include "generators/CaseGenerator.h"
#include "generators/Features.h"
#include "ir/Elapsed.h"
#include "ir/Text.h"
#include "ir/Verifier.h"
#include "reference/Executor.h"

#include <chrono>
#include <iomanip>
#include <memory>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;
} // namespace

SweepResult runSweep(const SweepOptions &options) {
  SweepResult r;
  std::unique_ptr<MlirJit> jit;
  if (options.runBackend)
    jit = std::make_unique<MlirJit>();
  for (uint64_t i = 0; i < options.count; ++i) {
    const uint64_t seed = options.seedStart + i;
    ++r.cases;
    auto t0 = Clock::now();
    Case c = generateCase(seed, options.policy);
    r.generateSeconds += secondsSince(t0);

    const std::string problem = verifyCase(c);
    if (!problem.empty()) {
      r.failures.push_back({seed, "invalid: " + problem});
      continue;
    }
    t0 = Clock::now();
    const std::string text = printCase(c);
    Case reparsed;
    TextError error;
    const bool parsed = parseCase(text, reparsed, error);
    r.textSeconds += secondsSince(t0);
    if (!parsed) {
      r.failures.push_back({seed, "does not re-parse: " + error.format("<printed>")});
      continue;
    }
    if (printCase(reparsed) != text) {
      r.failures.push_back({seed, "print(parse(print(case))) differs"});
      continue;
    }
    t0 = Clock::now();
    RefRun run = runReference(c);
    r.referenceSeconds += secondsSince(t0);
    if (!run.ok()) {
      r.failures.push_back({seed, "reference: " + run.error});
      continue;
    }
    for (const std::string &f : caseFeatures(c))
      ++r.features[f];
    if (!jit)
      continue;
    RunConfig config = options.config;
    if (options.seededLowering)
      config.loweringSeed = loweringSeedOf(seed);
    const CaseOutcome out = runCase(c, *jit, config);
    ++r.verdicts[std::string(verdictName(out.verdict))];
    r.emitSeconds += out.run.emitSeconds;
    r.passSeconds += out.run.passSeconds;
    r.codegenSeconds += out.run.codegenSeconds;
    r.executeSeconds += out.run.executeSeconds;
    if (out.verdict != VerdictKind::Ok)
      r.failures.push_back({seed, std::string(verdictName(out.verdict)) + ": " + out.summary});
  }
  return r;
}

void printSweepReport(const SweepResult &r, std::ostream &os) {
  const double total = r.generateSeconds + r.textSeconds + r.referenceSeconds;
  os << "cases: " << r.cases << "  failures: " << r.failures.size() << "\n";
  os << std::fixed << std::setprecision(3) << "time: generate " << r.generateSeconds
     << " s, text round-trip " << r.textSeconds << " s, reference " << r.referenceSeconds << " s";
  if (total > 0)
    os << "  (" << std::setprecision(0) << r.cases / total << " cases/s)";
  os << "\n";
  if (!r.verdicts.empty()) {
    const double backend = r.emitSeconds + r.passSeconds + r.codegenSeconds + r.executeSeconds;
    os << std::setprecision(3) << "backend: emit " << r.emitSeconds << " s, passes "
       << r.passSeconds << " s, LLVM codegen " << r.codegenSeconds << " s, execute "
       << r.executeSeconds << " s";
    if (backend + total > 0)
      os << "  (" << std::setprecision(1) << r.cases / (backend + total) << " cases/s overall)";
    os << "\nverdicts:";
    for (const auto &[name, n] : r.verdicts)
      os << " " << name << "=" << n;
    os << "\n";
  }
  os << "features (cases with each tag):\n";
  for (const auto &[tag, n] : r.features)
    os << "  " << std::left << std::setw(28) << tag << std::right << std::setw(8) << n << "\n";
  for (const auto &[seed, why] : r.failures)
    os << "FAIL seed " << seed << ": " << why << "\n";
}

} // namespace npufuzz
