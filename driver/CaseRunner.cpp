//===- driver/CaseRunner.cpp - Run one case against the reference ---------===//
#include "driver/CaseRunner.h"

#include "backend/mlir/Pipelines.h"
#include "oracles/Differential.h"
#include "reference/Executor.h"
#include "reference/Storage.h"

#include <chrono>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

CaseOutcome runCase(const Case &c, MlirJit &jit, const RunConfig &config) {
  CaseOutcome out;
  auto t0 = Clock::now();
  out.reference = runReference(c);
  const RefRun &ref = out.reference;
  out.referenceSeconds = since(t0);
  if (!ref.ok()) {
    out.verdict = VerdictKind::ReferenceError;
    out.summary = ref.error;
    return out;
  }
  Pipeline pipeline;
  std::string error;
  if (!resolvePipeline(config.pipeline, config.style, pipeline, error)) {
    out.verdict = VerdictKind::PassFailure;
    out.summary = error;
    return out;
  }

  t0 = Clock::now();
  MlirKernel &kernel = out.kernel;
  MlirEmitOptions emitOptions;
  emitOptions.style = config.style;
  if (!emitMlir(c, emitOptions, kernel, error)) {
    out.verdict = VerdictKind::Unsupported;
    out.summary = error;
    out.run.status = BackendRun::Status::Unsupported;
    return out;
  }
  const double emitSeconds = since(t0);

  std::vector<TensorData> inputs;
  for (const RefTensor &t : ref.inputs)
    inputs.push_back(toTensorData(t));
  std::vector<TensorType> outputTypes;
  for (ValueId v : c.outputs)
    outputTypes.push_back(c.typeOf(v));
  out.run = jit.run(kernel, pipeline.elements(), inputs, outputTypes, config.jit);
  out.run.emitSeconds = emitSeconds;
  Judgement j = judgeRun(c, ref, out.run);
  out.verdict = j.verdict;
  out.summary = std::move(j.summary);
  out.comparisons = std::move(j.comparisons);
  return out;
}

} // namespace npufuzz
