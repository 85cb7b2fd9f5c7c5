//===- oracles/CaseRunner.cpp - Run one case against the reference ---------===//
#include "oracles/CaseRunner.h"
#include "oracles/StoredBy.h"

#include "backend/mlir/Pipelines.h"
#include "ir/Elapsed.h"
#include "ir/Storage.h"
#include "oracles/Backend.h"
#include "oracles/Differential.h"
#include "oracles/DmaMap.h"
#include "oracles/MemoryErrorOracle.h"
#include "oracles/Signature.h"
#include "reference/Executor.h"

#include <chrono>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;
} // namespace

BackendRun executeKernel(const RunConfig &config, MlirJit &jit, const MlirKernel &kernel,
                         const Pipeline &pipeline, const std::vector<TensorData> &inputs,
                         const std::vector<TensorType> &outputTypes, uint32_t poison,
                         const Case &c) {
  // The user's passes follow the elements before their stage; the rest is
  // the style's lowering and the tail.
  RunConfig run = config;
  run.jit.userElements = std::pair(pipeline.passElement(0), pipeline.passes.size());
  return makeBackend(run)->run({c, jit, kernel, pipeline.elements(), inputs, outputTypes, poison});
}

CaseOutcome runCase(const Case &c, MlirJit &jit, const RunConfig &config) {
  CaseOutcome out;
  auto t0 = Clock::now();
  out.reference = runReference(c);
  const RefRun &ref = out.reference;
  out.referenceSeconds = secondsSince(t0);
  if (!ref.ok()) {
    out.verdict = VerdictKind::ReferenceError;
    out.summary = ref.error;
    return out;
  }
  Pipeline pipeline;
  std::string error;
  if (!resolvePipeline(config.pipeline, config.style, pipeline, error, config.stage)) {
    out.verdict = VerdictKind::PassFailure;
    out.summary = error;
    return out;
  }

  t0 = Clock::now();
  MlirKernel &kernel = out.kernel;
  const MlirEmitOptions emitOptions = emitOptionsOf(config);
  // An external toolchain may run the case from its other programs; it then
  // gets no kernel.mlir.
  if (!emitMlir(c, emitOptions, kernel, error) && !runsExternally(config.backend)) {
    out.verdict = VerdictKind::Unsupported;
    out.summary = error;
    out.run.status = BackendRun::Status::Unsupported;
    return out;
  }
  const double emitSeconds = secondsSince(t0);

  const std::vector<TensorData> inputs = toTensorData(ref.inputs);
  const std::vector<TensorType> outputTypes = c.outputTypes();
  if (!error.empty())
    kernel = MlirKernel();
  out.run = executeKernel(config, jit, kernel, pipeline, inputs, outputTypes, config.jit.poison, c);
  out.run.emitSeconds = emitSeconds;
  // IR coverage of a fact the IR does not show: a mask that may end inside
  // its buffer (MlirKernel::maskInsideBuffer), counted as an entry op.
  if (kernel.maskInsideBuffer && !out.run.entryOps.empty())
    out.run.entryOps.push_back(std::string(kMaskInsideBufferEntry));
  Judgement j = judgeRun(c, ref, out.run);
  out.verdict = j.verdict;
  out.summary = std::move(j.summary);
  out.comparisons = std::move(j.comparisons);
  return out;
}

BackendRun rerunKernel(const Case &c, MlirJit &jit, const RunConfig &config,
                       const Pipeline &pipeline, const CaseOutcome &base, uint32_t poison) {
  return executeKernel(config, jit, base.kernel, pipeline, toTensorData(base.reference.inputs),
                       c.outputTypes(), poison, c);
}

CaseVerdict differentialVerdict(const Case &c, const CaseOutcome &base) {
  CaseVerdict v;
  v.verdict = base.verdict;
  v.summary = base.summary;
  v.passName = base.run.passName;
  v.passIndex = base.run.passIndex;
  if (isOutOfBounds(base.verdict))
    v.where = base.run.faultSite;
  // A DMA trace's finding: the DMA's direction and the buffer's role.
  if (std::optional<FootprintFinding> found = checkDmaTrace(base.run.dmaTrace))
    v.where = found->where;
  // The two instructions and their pipes or cause, never addresses.
  if (isTraceVerdict(base.verdict))
    if (std::optional<TraceFinding> found = firstTraceFinding(base.run.kernelTrace))
      v.where = found->where;
  // Outside a valid region: no op names it. What writes there is the copy
  // or store of the output, whichever op made the value (the summary says
  // which output).
  for (size_t k = 0; k < base.comparisons.size(); ++k)
    if (!base.comparisons[k].match) {
      const std::string op(opName(c.ops[c.values[c.outputs[k]].defOp].kind));
      v.difference =
          resultDifference(op, c.typeOf(c.outputs[k]).dtype, base.comparisons[k].difference);
      // With the kernel ops that computed the element, where the backend
      // tells (oracles/StoredBy.h).
      v.where = withComputedBy(
          op, storedElementComputedBy(base.run.dmaTrace, k, base.comparisons[k].firstElement));
      v.onlyRounding = base.comparisons[k].onlyRounding;
      break;
    }
  return v;
}

} // namespace npufuzz
