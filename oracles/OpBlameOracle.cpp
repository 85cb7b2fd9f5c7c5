//===- oracles/OpBlameOracle.cpp - The op a failure starts at -------------===//
#include "oracles/OpBlameOracle.h"
#include "oracles/StoredBy.h"

#include "oracles/ChildJson.h"
#include "oracles/DmaMap.h"
#include "oracles/OpBlame.h"
#include "oracles/Signature.h"

namespace npufuzz {

namespace {
OpBlame opBlameInChild(const OracleContext &ctx) {
  const auto j = jsonFromChild(ctx, [&] {
    // The probes are other cases: a pto build of their own, removed here,
    // since a child ends without running destructors.
    RunConfig probeConfig = ctx.config;
    if (probeConfig.backend == BackendKind::Pto || probeConfig.backend == BackendKind::Simpler ||
        probeConfig.backend == BackendKind::Pypto)
      probeConfig.pto.builds = newPtoBuilds();
    const Symptom symptom = ctx.base.verdict == VerdictKind::Mismatch ? Symptom::WrongValue
                            : ctx.base.run.memoryError                ? Symptom::MemoryError
                                                                      : Symptom::Other;
    const OpBlame b = blameOp(ctx.c, ctx.jit, probeConfig, symptom);
    probeConfig.pto.builds.reset();
    return llvm::json::Object{{"found", b.found},
                              {"index", static_cast<int64_t>(b.opIndex)},
                              {"op", b.op},
                              {"difference", b.difference},
                              {"detail", b.detail},
                              {"input_first", b.inputFirst},
                              {"computed_by", b.computedBy}};
  });
  OpBlame b;
  if (!j)
    return b;
  b.found = j->getBoolean("found").value_or(false);
  b.opIndex = static_cast<size_t>(j->getInteger("index").value_or(0));
  b.op = j->getString("op").value_or("").str();
  b.difference = j->getString("difference").value_or("").str();
  b.detail = j->getString("detail").value_or("").str();
  b.inputFirst = j->getBoolean("input_first").value_or(false);
  b.computedBy = j->getString("computed_by").value_or("").str();
  return b;
}

/// A failure of the compiled program, which a prefix of it may show first.
bool isProgramFailure(const CaseOutcome &base) {
  switch (base.verdict) {
  case VerdictKind::Mismatch:
  case VerdictKind::UninitializedRead:
  case VerdictKind::UnwrittenOutput:
  case VerdictKind::WrongDmaElement:
  case VerdictKind::OutOfBoundsRead:
  case VerdictKind::OutOfBoundsWrite:
  case VerdictKind::OutOfRegionWrite: return true;
  case VerdictKind::Crash: return base.run.failedRunning;
  // Not the program's values: a compiler's or the machine's, or judged by
  // an oracle of its own (races, synchronisation, nondeterminism).
  case VerdictKind::Ok:
  case VerdictKind::VerifierError:
  case VerdictKind::PassFailure:
  case VerdictKind::CompileError:
  case VerdictKind::Hang:
  case VerdictKind::Oom:
  case VerdictKind::Unsupported:
  case VerdictKind::Nondeterministic:
  case VerdictKind::ReferenceError:
  case VerdictKind::SimulatorFault:
  case VerdictKind::ContractGap:
  case VerdictKind::EnvironmentError:
  case VerdictKind::Race:
  case VerdictKind::SyncDeadlock:
  case VerdictKind::SyncMisuse:
  case VerdictKind::UnflushedStore:
  case VerdictKind::StaleRead:
  case VerdictKind::LostWrite: return false;
  }
  return false;
}

/// How `v` showed: its verdict, and the op or the assertion where.
std::string symptomOf(const CaseVerdict &v, const CaseOutcome &base) {
  std::string s(verdictName(v.verdict));
  if (!v.where.empty())
    return s + " in " + v.where;
  const std::string message = normalizeMessage(base.run.message);
  return message.empty() ? s : s + ": " + message.substr(0, 160);
}
} // namespace

bool opBlameJudges(const RunConfig &config, const CaseOutcome &base) {
  return base.verdict == VerdictKind::Mismatch ||
         (runsExternally(config.backend) && isProgramFailure(base));
}

void OpBlameOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // The op that first goes wrong names the finding, not the op of the
  // wrong output. After the reruns of the oracles before, which reuse a
  // pto case's build; a verdict they changed (nondeterministic, say) is
  // theirs to name.
  if (!ctx.config.blame || ctx.namedByVariant || !opBlameJudges(ctx.config, ctx.base))
    return;
  const bool wrongResult =
      v.verdict == VerdictKind::Mismatch || v.verdict == VerdictKind::UninitializedRead;
  if (ctx.base.verdict == VerdictKind::Mismatch ? !wrongResult : v.verdict != ctx.base.verdict)
    return;
  const OpBlame blame = opBlameInChild(ctx);
  // A wrong value whose first wrong copy is an input's, on a backend
  // bisected by passes: the pass broke the loads or stores every op's
  // values go through, not an op family, whichever op's output showed it.
  // (A black-box backend's inputs are its own; they blame nothing.)
  if (!blame.found && blame.inputFirst && !runsExternally(ctx.config.backend) && wrongResult) {
    v.where = kAnyOp;
    v.summary += "; first wrong: an input's copy";
    return;
  }
  if (!blame.found)
    return;
  // What a DMA trace shows is its DMA's, whichever op first shows it: the
  // code that wrote the DMA (its index, its strides, its loop's bound) is
  // the root, and the signature keeps the DMA's direction and the buffer's
  // role or the index's class (oracles/DmaMap.h). A tail the loops drop
  // is an unwritten output of the store, not a wrong value of the op that
  // made it. The op still tells a reduction what to keep.
  const std::optional<FootprintFinding> traced = checkDmaTrace(ctx.base.run.dmaTrace);
  if (traced && traced->verdict == v.verdict) {
    v.culpritOp = blame.op;
    v.summary += "; first wrong: " + blame.detail;
    return;
  }
  // A backend bisected by passes has its root in the pass (pass blame,
  // next); the op only names what the pass got wrong.
  if (runsExternally(ctx.config.backend)) {
    v.rootedAtOp = true;
    v.culpritOp = blame.op;
    // With the op it was traced to: a root under any op keeps, seed by
    // seed, the families it showed in.
    v.symptom = symptomOf(v, ctx.base) + "; traced to " + blame.op;
  }
  // As its arithmetic family, or for an undefined result its shape form
  // (blamedOpName): a toolchain that gets a t-op family wrong (tmul,
  // trowexpandmul, tcolexpandmul) shows it in any of them, and the
  // simulator's std::max and std::min treat -0 and NaN alike in tmax,
  // tmin and their expand forms.
  v.where = withComputedBy(blamedOpName(blame.op, blame.difference), blame.computedBy);
  v.difference = blame.difference;
  v.summary += "; first wrong: " + blame.detail;
}

} // namespace npufuzz
