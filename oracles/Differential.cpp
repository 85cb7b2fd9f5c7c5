//===- oracles/Differential.cpp - Judge a backend run against the reference ===//
#include "oracles/Differential.h"

#include "oracles/SumBound.h"

#include "oracles/CacheCoherency.h"
#include "oracles/DmaMap.h"
#include "oracles/Exactness.h"
#include "oracles/RaceAnalysis.h"
#include "oracles/UndecidedElements.h"
#include "oracles/ValidRegion.h"

namespace npufuzz {

VerdictKind verdictOf(BackendRun::Status s) {
  switch (s) {
  case BackendRun::Status::Ok: return VerdictKind::Ok;
  case BackendRun::Status::Unsupported: return VerdictKind::Unsupported;
  case BackendRun::Status::VerifierError: return VerdictKind::VerifierError;
  case BackendRun::Status::PassFailure: return VerdictKind::PassFailure;
  case BackendRun::Status::CompileError:
  case BackendRun::Status::RuntimeError: return VerdictKind::CompileError;
  case BackendRun::Status::SimulatorFault: return VerdictKind::SimulatorFault;
  case BackendRun::Status::Crashed: return VerdictKind::Crash;
  case BackendRun::Status::TimedOut: return VerdictKind::Hang;
  case BackendRun::Status::OutOfMemory: return VerdictKind::Oom;
  case BackendRun::Status::ContractGap: return VerdictKind::ContractGap;
  case BackendRun::Status::UninitializedRead: return VerdictKind::UninitializedRead;
  case BackendRun::Status::EnvironmentError: return VerdictKind::EnvironmentError;
  case BackendRun::Status::OutOfBoundsWrite: return VerdictKind::OutOfBoundsWrite;
  case BackendRun::Status::OutOfBoundsRead: return VerdictKind::OutOfBoundsRead;
  }
  return VerdictKind::CompileError;
}

namespace {
VerdictKind raceVerdict(const RaceFinding &f) {
  switch (f.kind) {
  case RaceFinding::Kind::Race: return VerdictKind::Race;
  case RaceFinding::Kind::SyncDeadlock: return VerdictKind::SyncDeadlock;
  case RaceFinding::Kind::SyncMisuse: return VerdictKind::SyncMisuse;
  case RaceFinding::Kind::UnflushedStore: return VerdictKind::UnflushedStore;
  }
  return VerdictKind::Race;
}

VerdictKind coherenceVerdict(const CoherenceFinding &f) {
  switch (f.kind) {
  case CoherenceFinding::Kind::StaleRead: return VerdictKind::StaleRead;
  case CoherenceFinding::Kind::LostWrite: return VerdictKind::LostWrite;
  }
  return VerdictKind::StaleRead;
}
} // namespace

std::optional<TraceFinding> firstTraceFinding(const std::vector<TraceEvent> &trace) {
  if (trace.empty())
    return std::nullopt;
  if (const std::vector<RaceFinding> races = analyzeRaces(trace); !races.empty())
    return TraceFinding{raceVerdict(races.front()), races.front().text, races.front().where(trace)};
  if (const std::vector<CoherenceFinding> stale = analyzeCoherence(trace); !stale.empty())
    return TraceFinding{coherenceVerdict(stale.front()), stale.front().text,
                        stale.front().where(trace)};
  return std::nullopt;
}

bool isTraceVerdict(VerdictKind v) {
  return v == VerdictKind::Race || v == VerdictKind::SyncDeadlock || v == VerdictKind::SyncMisuse ||
         v == VerdictKind::UnflushedStore || v == VerdictKind::StaleRead ||
         v == VerdictKind::LostWrite;
}

Judgement judgeRun(const Case &c, const RefRun &ref, const BackendRun &run) {
  Judgement j;
  if (!run.ok()) {
    j.verdict = verdictOf(run.status);
    j.summary = (run.passIndex >= 0
                     ? "after pass " + std::to_string(run.passIndex) + " (" + run.passName + "): "
                     : std::string()) +
                run.message.substr(0, run.message.find('\n'));
    return j;
  }
  // What its DMAs move is judged before its values (a wrong map is named
  // by its DMA, not by the values it spoils); a program compiled but not
  // run has nothing else to judge.
  if (std::optional<FootprintFinding> found = checkDmaTrace(run.dmaTrace)) {
    j.verdict = found->verdict;
    j.summary = found->text;
    return j;
  }
  if (!run.valuesComputed)
    return j;
  // A write outside an output's valid shape is a memory error whatever the
  // values inside it are.
  for (size_t k = 0; run.outputFill && k < run.outputs.size() && k < c.outputs.size(); ++k)
    if (std::optional<std::string> where =
            writeOutsideValidRegion(run.outputs[k], *run.outputFill)) {
      j.verdict = VerdictKind::OutOfRegionWrite;
      j.summary = "output " + std::to_string(k) + " (%" + std::to_string(c.outputs[k]) +
                  "): " + *where + " changed";
      return j;
    }
  const ExactnessModel model = freedomsOfRun(run);
  // What a freedom of the compiler decides (a signed overflow, a folded
  // x - x) is not the case's to say there.
  RefRun decided;
  if (freedomsDecideElements(model)) {
    decided = ref;
    undefineWhatFreedomsDecide(c, decided, model);
  }
  const RefRun &expected = freedomsDecideElements(model) ? decided : ref;
  const std::vector<Exactness> exactness = classifyValues(c, model);
  const std::vector<unsigned> approximations = approximationCounts(c, exactness);
  // Reordered sums are compared against their terms, which only the
  // evaluation of every value holds.
  std::vector<RefTensor> values;
  for (ValueId v : c.outputs)
    if (exactness[v] == Exactness::Reordered && values.empty()) {
      std::string error;
      if (!evaluateCase(c, ref.inputs, values, error))
        values.clear();
    }
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const ValueId v = c.outputs[k];
    std::vector<double> bound;
    if (exactness[v] == Exactness::Reordered && !values.empty())
      bound = reorderedSumBound(c, values, v, model);
    j.comparisons.push_back(compareOutput(expected.outputs[k], run.outputs.at(k), exactness[v],
                                          bound.empty() ? nullptr : &bound, approximations[v]));
    const Comparison &cmp = j.comparisons.back();
    if (!cmp.match && j.verdict == VerdictKind::Ok) {
      j.verdict = VerdictKind::Mismatch;
      j.summary = "output " + std::to_string(k) + " (%" + std::to_string(c.outputs[k]) +
                  "): " + std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.compared) +
                  " elements differ; first " + cmp.firstMismatch;
    }
  }
  // Right values from a sequential simulator: what a core running the
  // pipes at once would do is the trace's to say.
  if (j.verdict == VerdictKind::Ok)
    if (std::optional<TraceFinding> found = firstTraceFinding(run.kernelTrace)) {
      j.verdict = found->verdict;
      j.summary = found->text;
    }
  return j;
}

} // namespace npufuzz
