//===- oracles/PassBlameOracle.cpp - The pass a wrong result starts at ----===//
#include "oracles/PassBlameOracle.h"

#include "oracles/ChildJson.h"
#include "oracles/MemoryErrorOracle.h"
#include "oracles/Signature.h"

namespace npufuzz {

PassBlame passBlameInChild(const OracleContext &ctx, const std::function<PassBlame()> &blame) {
  const auto j = jsonFromChild(ctx, [&] {
    const PassBlame b = blame();
    return llvm::json::Object{{"found", b.found},
                              {"index", b.passIndex},
                              {"name", b.passName},
                              {"verdict", std::string(verdictName(b.verdict))},
                              {"detail", b.detail},
                              {"miscompiled_by", b.miscompiledBy},
                              {"miscompiled_index", b.miscompiledByIndex}};
  });
  PassBlame b;
  if (!j)
    return b;
  b.found = j->getBoolean("found").value_or(false);
  b.passIndex = static_cast<int>(j->getInteger("index").value_or(-1));
  b.passName = j->getString("name").value_or("").str();
  b.verdict =
      parseVerdictName(j->getString("verdict").value_or("ok").str()).value_or(VerdictKind::Ok);
  b.detail = j->getString("detail").value_or("").str();
  b.miscompiledBy = j->getString("miscompiled_by").value_or("").str();
  b.miscompiledByIndex = static_cast<int>(j->getInteger("miscompiled_index").value_or(-1));
  return b;
}

void PassBlameOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // A memory error the memory-error oracle named has its pass already.
  if (ctx.base.verdict != VerdictKind::Mismatch || !ctx.config.blame ||
      runsExternally(ctx.config.backend) || isOutOfBounds(v.verdict))
    return;
  const PassBlame blame = passBlameInChild(ctx, [&] {
    return blameCasePass(ctx.c, ctx.jit, ctx.pipeline, emitOptionsOf(ctx.config), ctx.config.jit);
  });
  if (!blame.miscompiledBy.empty()) {
    // The finding is about the element that miscompiles; the pass that
    // exposed it, and the op whose output shows it, vary from case to case.
    v.where.clear();
    v.passName = blame.miscompiledBy;
    v.passIndex = static_cast<int>(ctx.pipeline.tailElement(blame.miscompiledByIndex));
    v.exposedBy = blame.passName;
    v.summary += "; miscompiled by " + blame.miscompiledBy +
                 (blame.found ? ", exposed by " + blame.passName : std::string());
  } else if (blame.found && blame.verdict != VerdictKind::EnvironmentError) {
    v.passName = blame.passName;
    v.passIndex = blame.passIndex;
    // What a pass miscompiles is the arithmetic, whichever op shape uses it.
    if (!ctx.namedByVariant)
      v.where = scalarFamily(v.where);
  }
}

} // namespace npufuzz
