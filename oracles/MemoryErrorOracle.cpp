//===- oracles/MemoryErrorOracle.cpp - Memory errors named and blamed -----===//
#include "oracles/MemoryErrorOracle.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace npufuzz {

bool isOutOfBounds(VerdictKind v) {
  return v == VerdictKind::OutOfBoundsRead || v == VerdictKind::OutOfBoundsWrite;
}

namespace {

RunConfig boundsChecked(const RunConfig &config) {
  RunConfig checked = config;
  checked.jit.boundsCheck = true;
  checked.jit.recordIrCoverage = false;
  return checked;
}

/// The first `k` in [0, passes] for which `fails(prefix k)` holds; in
/// `blame` the k-th pass, when k > 0 (k = 0: the tail alone). The whole
/// pipeline is run again too: a failure that does not repeat blames no
/// pass.
void blameFirstPrefix(const RunConfig &config, const Pipeline &pipeline,
                      const std::function<bool(const RunConfig &)> &fails,
                      MemoryErrorBlame &blame) {
  for (size_t k = 0; k <= pipeline.passes.size(); ++k) {
    if (!fails(withPassPrefix(config, pipeline, k)))
      continue;
    if (k > 0) {
      blame.passName = pipeline.passes[k - 1];
      blame.passIndex = static_cast<int>(pipeline.passElement(k - 1));
    }
    return;
  }
}
} // namespace

void MemoryErrorBlame::applyTo(CaseVerdict &v) const {
  if (verdict == VerdictKind::Ok)
    return;
  if (isOutOfBounds(verdict)) {
    v.summary = summary + " (bounds-checked; the run itself: " + v.summary + ")";
    v.verdict = verdict;
    v.where = where;
  }
  v.passName = passName;
  v.passIndex = passIndex;
  if (!passName.empty())
    v.summary += "; first after pass " + std::to_string(passIndex) + " (" + passName + ")";
}

std::string MemoryErrorBlame::toJson() const {
  return llvm::formatv("{0}", llvm::json::Value(
                                  llvm::json::Object{{"verdict", std::string(verdictName(verdict))},
                                                     {"where", where},
                                                     {"summary", summary},
                                                     {"pass", passName},
                                                     {"pass_index", passIndex}}))
      .str();
}

MemoryErrorBlame MemoryErrorBlame::fromJson(const std::string &text) {
  MemoryErrorBlame b;
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
  if (!v) {
    llvm::consumeError(v.takeError());
    return b;
  }
  const llvm::json::Object *o = v->getAsObject();
  if (!o)
    return b;
  b.verdict =
      parseVerdictName(o->getString("verdict").value_or("ok").str()).value_or(VerdictKind::Ok);
  b.where = o->getString("where").value_or("").str();
  b.summary = o->getString("summary").value_or("").str();
  b.passName = o->getString("pass").value_or("").str();
  b.passIndex = static_cast<int>(o->getInteger("pass_index").value_or(-1));
  return b;
}

MemoryErrorBlame nameOutOfBounds(const Case &c, MlirJit &jit, const RunConfig &config,
                                 const Pipeline &pipeline) {
  MemoryErrorBlame blame;
  const CaseOutcome checked = runCase(c, jit, boundsChecked(config));
  if (!isOutOfBounds(checked.verdict))
    return blame;
  blame.verdict = checked.verdict;
  blame.where = checked.run.faultSite;
  blame.summary = checked.summary;
  blameFirstPrefix(
      config, pipeline,
      [&](const RunConfig &prefix) {
        return isOutOfBounds(runCase(c, jit, boundsChecked(prefix)).verdict);
      },
      blame);
  return blame;
}

void blameFirstPassWith(const Case &c, MlirJit &jit, const RunConfig &config,
                        const Pipeline &pipeline, VerdictKind verdict, MemoryErrorBlame &blame) {
  RunConfig plain = config;
  plain.jit.recordIrCoverage = false;
  blameFirstPrefix(
      plain, pipeline,
      [&](const RunConfig &prefix) { return runCase(c, jit, prefix).verdict == verdict; }, blame);
}

bool mayBeOutOfBounds(VerdictKind v) {
  switch (v) {
  // A wrong value may have been read from outside a buffer, or written
  // over by a store that left one (the npu style's tiles share one
  // scratchpad, without redzones between them).
  case VerdictKind::Mismatch:
  case VerdictKind::UninitializedRead:
  case VerdictKind::Nondeterministic:
  case VerdictKind::Crash:
  case VerdictKind::OutOfBoundsWrite: return true;
  case VerdictKind::Ok:
  case VerdictKind::VerifierError:
  case VerdictKind::PassFailure:
  case VerdictKind::CompileError:
  case VerdictKind::Hang:
  case VerdictKind::Oom:
  case VerdictKind::Unsupported:
  case VerdictKind::ReferenceError:
  case VerdictKind::SimulatorFault:
  case VerdictKind::ContractGap:
  case VerdictKind::EnvironmentError:
  case VerdictKind::OutOfBoundsRead:
  case VerdictKind::OutOfRegionWrite:
  case VerdictKind::Race:
  case VerdictKind::SyncDeadlock:
  case VerdictKind::SyncMisuse:
  case VerdictKind::UnflushedStore:
  case VerdictKind::StaleRead:
  case VerdictKind::UnwrittenOutput:
  case VerdictKind::WrongDmaElement:
  case VerdictKind::LostWrite: return false;
  }
  return false;
}

void MemoryErrorOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // A metamorphic variant's failure is the variant's, not this run's.
  if (!ctx.config.blame || runsExternally(ctx.config.backend) || ctx.namedByVariant)
    return;
  const bool name = mayBeOutOfBounds(v.verdict);
  // What the differential oracle found outside the buffers or regions,
  // with no check to name it: blamed by the verdict itself.
  const bool sameVerdict = ctx.base.verdict == VerdictKind::OutOfBoundsWrite ||
                           ctx.base.verdict == VerdictKind::OutOfRegionWrite;
  if (!name && !sameVerdict)
    return;
  const std::optional<std::string> found = ctx.inChild([&] {
    MemoryErrorBlame b;
    if (name)
      b = nameOutOfBounds(ctx.c, ctx.jit, ctx.config, ctx.pipeline);
    if (b.verdict == VerdictKind::Ok && sameVerdict) {
      b.verdict = ctx.base.verdict;
      blameFirstPassWith(ctx.c, ctx.jit, ctx.config, ctx.pipeline, ctx.base.verdict, b);
    }
    return b.toJson();
  });
  if (found)
    MemoryErrorBlame::fromJson(*found).applyTo(v);
}

} // namespace npufuzz
