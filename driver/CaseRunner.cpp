//===- driver/CaseRunner.cpp - Run one case against the reference ---------===//
#include "driver/CaseRunner.h"

#include "backend/mlir/Pipelines.h"
#include "oracles/Exactness.h"
#include "reference/Executor.h"
#include "reference/Storage.h"

#include <chrono>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

VerdictKind verdictOf(BackendRun::Status s) {
  switch (s) {
  case BackendRun::Status::Ok:
    return VerdictKind::Ok;
  case BackendRun::Status::Unsupported:
    return VerdictKind::Unsupported;
  case BackendRun::Status::VerifierError:
    return VerdictKind::VerifierError;
  case BackendRun::Status::PassFailure:
    return VerdictKind::PassFailure;
  case BackendRun::Status::CompileError:
  case BackendRun::Status::RuntimeError:
    return VerdictKind::CompileError;
  }
  return VerdictKind::CompileError;
}

std::string firstLine(const std::string &s) { return s.substr(0, s.find('\n')); }
} // namespace

CaseOutcome runCase(const Case &c, MlirJit &jit, const RunConfig &config) {
  CaseOutcome out;
  auto t0 = Clock::now();
  const RefRun ref = runReference(c);
  out.referenceSeconds = since(t0);
  if (!ref.ok()) {
    out.verdict = VerdictKind::ReferenceError;
    out.summary = ref.error;
    return out;
  }
  Pipeline pipeline;
  std::string error;
  if (!resolvePipeline(config.pipeline, pipeline, error)) {
    out.verdict = VerdictKind::PassFailure;
    out.summary = error;
    return out;
  }

  t0 = Clock::now();
  MlirKernel kernel;
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
  if (!out.run.ok()) {
    out.verdict = verdictOf(out.run.status);
    out.summary = (out.run.passIndex >= 0 ? "after pass " + std::to_string(out.run.passIndex) +
                                                " (" + out.run.passName + "): "
                                          : std::string()) +
                  firstLine(out.run.message);
    return out;
  }

  const std::vector<Exactness> exactness = classifyValues(c);
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    out.comparisons.push_back(
        compareOutput(ref.outputs[k], out.run.outputs[k], exactness[c.outputs[k]]));
    const Comparison &cmp = out.comparisons.back();
    if (!cmp.match && out.verdict == VerdictKind::Ok) {
      out.verdict = VerdictKind::Mismatch;
      out.summary = "output " + std::to_string(k) + " (%" + std::to_string(c.outputs[k]) +
                    "): " + std::to_string(cmp.mismatches) + " of " +
                    std::to_string(cmp.compared) + " elements differ; first " +
                    cmp.firstMismatch;
    }
  }
  return out;
}

} // namespace npufuzz
