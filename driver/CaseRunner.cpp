//===- driver/CaseRunner.cpp - Run one case against the reference ---------===//
#include "driver/CaseRunner.h"

#include "backend/mlir/Pipelines.h"
#include "driver/Backend.h"
#include "oracles/Differential.h"
#include "reference/Executor.h"
#include "ir/Storage.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

std::string torchPython(const std::string &python) {
  if (!python.empty())
    return python;
  if (const char *env = std::getenv("NPUFUZZ_PYTHON"); env && *env)
    return env;
  return "/usr/bin/python3";
}

bool configureTorchBackend(RunConfig &config, const std::string &python, std::string &error) {
  const std::string py = torchPython(python);
  std::string adapter = NPUFUZZ_TORCH_ADAPTER;
  if (const char *env = std::getenv("NPUFUZZ_TORCH_ADAPTER"); env && *env)
    adapter = env;
  // One short run of the same python says whether torch is there, and which.
  ExternalToolchain probe;
  probe.argv = {py, "-c", "import numpy, torch; print(torch.__version__)"};
  probe.timeoutSeconds = 120;
  char out[] = "/tmp/npufuzz-torch-probe-XXXXXX";
  const int fd = ::mkstemp(out);
  if (fd >= 0)
    ::close(fd);
  const CommandEnd end = runCommand(probe, probe.argv, out, std::string(out) + ".err");
  std::remove(out);
  std::remove((std::string(out) + ".err").c_str());
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    error = "--backend torch: " + py + " cannot import torch and numpy (" +
            (end.stderrText.empty() ? std::string("it did not run")
                                    : end.stderrText.substr(0, end.stderrText.find('\n'))) +
            "); install Debian's python3-torch and python3-numpy (bash ci/install-deps.sh), or "
            "give a python that has them with --python or NPUFUZZ_PYTHON";
    return false;
  }
  config.backend = BackendKind::Torch;
  config.external.argv = {py, adapter};
  config.external.persistent = true;
  // The first answer of each adapter includes importing torch (seconds on
  // a cold disk); still below a campaign worker's 30 s.
  config.external.timeoutSeconds = 25;
  return true;
}

std::string defaultRuntimeLibrary() {
  if (const char *env = std::getenv("NPUFUZZ_RT_LIBRARY"))
    return env;
  return NPUFUZZ_RT_LIBRARY;
}

BackendRun executeKernel(const RunConfig &config, MlirJit &jit, const MlirKernel &kernel,
                         const std::vector<std::string> &elements,
                         const std::vector<TensorData> &inputs,
                         const std::vector<TensorType> &outputTypes, uint32_t poison,
                         const Case &c) {
  return makeBackend(config)->run({c, jit, kernel, elements, inputs, outputTypes, poison});
}

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
  // An external toolchain may run the case from its other programs; it then
  // gets no kernel.mlir.
  if (!emitMlir(c, emitOptions, kernel, error) && !runsExternally(config.backend)) {
    out.verdict = VerdictKind::Unsupported;
    out.summary = error;
    out.run.status = BackendRun::Status::Unsupported;
    return out;
  }
  const double emitSeconds = since(t0);

  const std::vector<TensorData> inputs = toTensorData(ref.inputs);
  const std::vector<TensorType> outputTypes = c.outputTypes();
  if (!error.empty())
    kernel = MlirKernel();
  out.run = executeKernel(config, jit, kernel, pipeline.elements(), inputs, outputTypes,
                          config.jit.poison, c);
  out.run.emitSeconds = emitSeconds;
  Judgement j = judgeRun(c, ref, out.run);
  out.verdict = j.verdict;
  out.summary = std::move(j.summary);
  out.comparisons = std::move(j.comparisons);
  return out;
}

} // namespace npufuzz
