//===- oracles/RunConfig.cpp - What a case runs on and how it is judged ---===//
#include "oracles/RunConfig.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace npufuzz {

MlirEmitOptions emitOptionsOf(const RunConfig &config) {
  MlirEmitOptions o;
  o.style = config.style;
  if (config.loweringSeed)
    o.plan = LoweringPlan::draw(*config.loweringSeed);
  return o;
}

RunConfig withPassPrefix(const RunConfig &config, const Pipeline &pipeline, size_t passes) {
  RunConfig prefix = config;
  prefix.pipeline = "O0";
  for (size_t i = 0; i < passes; ++i)
    prefix.pipeline = (i ? prefix.pipeline + "," : std::string()) + pipeline.passes[i];
  return prefix;
}

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

} // namespace npufuzz
