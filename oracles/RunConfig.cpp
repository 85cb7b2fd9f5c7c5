//===- oracles/RunConfig.cpp - What a case runs on and how it is judged ---===//
#include "oracles/RunConfig.h"

#include "backend/toolchains/BackendToolchains.h"
#include "reference/Executor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace npufuzz {

SwitchStates switchStatesOf(const RunConfig &config) {
  return switchStates(config.backend, config.loweringSeed, config.switchesOff, config.drawsModes);
}

MlirEmitOptions emitOptionsOf(const RunConfig &config) {
  MlirEmitOptions o;
  o.style = config.style;
  // IREE compiles functions on tensors: the tensor style, with tensors at
  // its ABI.
  if (config.loweringSeed)
    o.plan = LoweringPlan::draw(*config.loweringSeed);
  if (config.backend == BackendKind::Iree) {
    o.style = MlirStyle::Tensor;
    o.tensorAbi = true;
    // IREE's MLIR has no linalg.add/sub/mul any more (upstream replaced
    // them with linalg.elementwise): the generic form only.
    o.plan.linalg = LinalgForm::Generic;
    // IREE tiles no indexing map with floor/mod of more than one loop
    // dimension ("tiling is not supported for the semi-affine indexing
    // map"): views index through floordivsi in their bodies instead.
    if (o.plan.index == IndexForm::AffineMap)
      o.plan.index = IndexForm::FloorDiv;
  }
  return o;
}

bool pipelineRunsOn(MlirJit &jit, const RunConfig &config, std::string &error) {
  if (runsExternally(config.backend))
    return true;
  Pipeline pipeline;
  return resolvePipeline(config.pipeline, config.style, pipeline, error, config.stage) &&
         jit.checkPipeline(pipeline.passes, error);
}

RunConfig withPassPrefix(const RunConfig &config, const Pipeline &pipeline, size_t passes) {
  RunConfig prefix = config;
  prefix.pipeline = "O0";
  for (size_t i = 0; i < passes; ++i)
    prefix.pipeline = (i ? prefix.pipeline + "," : std::string()) + pipeline.passes[i];
  return prefix;
}

RunConfig withMoreTime(const RunConfig &config, double factor) {
  RunConfig slower = config;
  auto scale = [factor](unsigned &seconds) {
    // 0 is "no limit" to the tools that take one.
    if (seconds)
      seconds = static_cast<unsigned>(std::min(1e6, std::ceil(seconds * factor)));
  };
  scale(slower.tools.timeoutSeconds);
  scale(slower.external.timeoutSeconds);
  scale(slower.external.startSeconds);
  scale(slower.pto.timeoutSeconds);
  scale(slower.pto.simplerTimeoutSeconds);
  scale(slower.pytorchsim.timeoutSeconds);
  slower.blameSeconds *= factor;
  return slower;
}

void preferBlaming(RunConfig &config, const std::string &pass) {
  const size_t colon = pass.find(':');
  if (!config.blameFirst && colon != std::string::npos &&
      pass.compare(0, colon, backendKindName(config.backend)) == 0)
    config.blameFirst = parseSwitch(config.backend, std::string_view(pass).substr(colon + 1));
}

bool configureTorchBackend(RunConfig &config, const std::string &python, std::string &error,
                           BackendKind backend) {
  std::string py, version;
  const bool found =
      backend == BackendKind::Tvm
          ? findTvmPython(python, py, error, &version)
          : findTorchPython(python, py, error, backend == BackendKind::Inductor, &version);
  if (!found)
    return false;
  useTorchAdapter(config, py, backend);
  config.external.version = version;
  return true;
}

void useTorchAdapter(RunConfig &config, const std::string &py, BackendKind backend) {
  std::string adapter = NPUFUZZ_TORCH_ADAPTER;
  if (const char *env = std::getenv("NPUFUZZ_TORCH_ADAPTER"); env && *env)
    adapter = env;
  config.backend = backend;
  config.external.argv = {py, adapter};
  const bool compile = backend != BackendKind::Torch;
  if (compile)
    config.external.argv.insert(config.external.argv.end(),
                                {"--compile", std::string(backendKindName(backend))});
  config.external.persistent = true;
  // A case's own limit, counted from the adapter's `ready`. Inductor
  // compiles each kernel to C++ and builds it with g++, TVM with LLVM:
  // seconds more than eager.
  config.external.timeoutSeconds = compile ? 120 : 25;
  // The start of every adapter: importing torch takes seconds on an idle
  // machine and over 25 s on a busy one with a cold disk; one that
  // measures the compiler's coverage instruments it as it imports it, 30
  // to 45 s more on an idle machine. Paid once per adapter, on top of the
  // limit of the case that starts it.
  config.external.startSeconds = compile ? 180 : 120;
  config.external.environment.push_back(kFixedPythonHashSeed);
}

bool configureIreeBackend(RunConfig &config, const std::string &compiler, const std::string &python,
                          std::string &error) {
  std::string compilerPath, pythonPath;
  if (!findIreeTools(compiler, python, compilerPath, pythonPath, error))
    return false;
  useIreeAdapter(config, compilerPath, pythonPath);
  return true;
}

void useIreeAdapter(RunConfig &config, const std::string &compiler, const std::string &python) {
  std::string adapter = NPUFUZZ_IREE_ADAPTER;
  if (const char *env = std::getenv("NPUFUZZ_IREE_ADAPTER"); env && *env)
    adapter = env;
  config.backend = BackendKind::Iree;
  config.style = MlirStyle::Tensor;
  // IREE's CPU runtime flushes subnormals (reference/Executor.h).
  setReferenceFlushesSubnormals(true);
  config.external.argv = {python, adapter, "--iree-compile", compiler};
  config.external.persistent = true;
  // iree-compile takes about half a second a kernel; a large one, seconds.
  config.external.timeoutSeconds = 60;
  // Importing IREE's runtime and numpy, on top of the first case's limit.
  config.external.startSeconds = 120;
}

std::string defaultRuntimeLibrary() {
  if (const char *env = std::getenv("NPUFUZZ_RT_LIBRARY"))
    return env;
  return NPUFUZZ_RT_LIBRARY;
}

} // namespace npufuzz
