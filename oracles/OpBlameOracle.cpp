//===- oracles/OpBlameOracle.cpp - The op a wrong result starts at --------===//
#include "oracles/OpBlameOracle.h"

#include "oracles/Signature.h"

#include "oracles/ChildJson.h"
#include "oracles/OpBlame.h"

namespace npufuzz {

namespace {
OpBlame opBlameInChild(const OracleContext &ctx) {
  const auto j = jsonFromChild(ctx, [&] {
    // The probe is another case: a pto build of its own, removed here,
    // since a child ends without running destructors.
    RunConfig probeConfig = ctx.config;
    if (probeConfig.backend == BackendKind::Pto)
      probeConfig.pto.builds = newPtoBuilds();
    const OpBlame b = blameOp(ctx.c, ctx.jit, probeConfig);
    probeConfig.pto.builds.reset();
    return llvm::json::Object{{"found", b.found},
                              {"index", static_cast<int64_t>(b.opIndex)},
                              {"op", b.op},
                              {"difference", b.difference},
                              {"detail", b.detail}};
  });
  OpBlame b;
  if (!j)
    return b;
  b.found = j->getBoolean("found").value_or(false);
  b.opIndex = static_cast<size_t>(j->getInteger("index").value_or(0));
  b.op = j->getString("op").value_or("").str();
  b.difference = j->getString("difference").value_or("").str();
  b.detail = j->getString("detail").value_or("").str();
  return b;
}
} // namespace

void OpBlameOracle::check(OracleContext &ctx, CaseVerdict &v) const {
  // The op that first goes wrong names the finding, not the op of the
  // wrong output (the case again with every value an output). After the
  // reruns of the oracles before, which reuse a pto case's build.
  if (ctx.base.verdict != VerdictKind::Mismatch || !ctx.config.blame || ctx.namedByVariant ||
      (v.verdict != VerdictKind::Mismatch && v.verdict != VerdictKind::UninitializedRead))
    return;
  const OpBlame blame = opBlameInChild(ctx);
  if (!blame.found)
    return;
  // As its arithmetic family: a toolchain that gets a t-op family wrong
  // (tmul, trowexpandmul, tcolexpandmul) shows it in any of them, and the
  // simulator's std::max and std::min treat -0 and NaN alike in tmax,
  // tmin and their expand forms.
  v.where = scalarFamily(blame.op);
  v.difference = blame.difference;
  v.summary += "; first wrong: " + blame.detail;
}

} // namespace npufuzz
