//===- driver/ToolchainSurvey.cpp - What `npufuzz toolchains` shows -------===//
#include "driver/ToolchainSurvey.h"

#include "backend/pto/PyptoBackend.h"
#include "backend/pto/SimplerBackend.h"
#include "backend/toolchains/BackendToolchains.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "oracles/RunConfig.h"
#include "reference/Executor.h"

#include <algorithm>
#include <sstream>

namespace npufuzz {

namespace {
/// The backend whose canary case covers `kind`, and the toolchains it needs.
BackendKind backendOf(ToolchainKind kind, std::vector<ToolchainKind> &needs) {
  switch (kind) {
  case ToolchainKind::Ptoas:
  case ToolchainKind::PtoIsa:
    needs = {ToolchainKind::Ptoas, ToolchainKind::PtoIsa};
    return BackendKind::Pto;
  case ToolchainKind::Torch: needs = {ToolchainKind::Torch}; return BackendKind::Torch;
  case ToolchainKind::IreeCompile:
  case ToolchainKind::IreeRuntime:
    needs = {ToolchainKind::IreeCompile, ToolchainKind::IreeRuntime};
    return BackendKind::Iree;
  case ToolchainKind::Tvm: needs = {ToolchainKind::Tvm}; return BackendKind::Tvm;
  case ToolchainKind::MlirOpt:
  case ToolchainKind::MlirRunner:
    needs = {ToolchainKind::MlirOpt, ToolchainKind::MlirRunner};
    return BackendKind::MlirTools;
  case ToolchainKind::Simpler:
    needs = {ToolchainKind::Simpler, ToolchainKind::Ptoas};
    return BackendKind::Simpler;
  case ToolchainKind::Pypto:
    needs = {ToolchainKind::Pypto, ToolchainKind::Ptoas, ToolchainKind::PtoIsa};
    return BackendKind::Pypto;
  case ToolchainKind::PyTorchSim:
  case ToolchainKind::PyTorchSimPython:
    needs = {ToolchainKind::PyTorchSim, ToolchainKind::PyTorchSimPython};
    return BackendKind::PyTorchSim;
  }
  return BackendKind::MlirJit;
}

/// Runs the canary case on `backend` with the toolchains of `rows`.
std::string runCanaryCase(BackendKind backend, const std::vector<ToolchainRow> &rows,
                          bool &passed) {
  auto path = [&](ToolchainKind k) { return rows[static_cast<size_t>(k)].where.path; };
  // IREE's set-up turns on the reference's flush of subnormals for the
  // process (reference/Executor.h); the canaries after it run in their
  // own backends' environment.
  const ReferenceFlushScope keep(referenceFlushesSubnormals());
  RunConfig config;
  config.backend = backend;
  config.metamorphicShare = 0;
  std::string error;
  switch (backend) {
  case BackendKind::Pto:
    config.pto.ptoas = path(ToolchainKind::Ptoas);
    config.pto.ptoIsa = path(ToolchainKind::PtoIsa);
    config.pto.memcheckShare = 0;
    if (!checkPtoToolchain(config.pto, error))
      return "not run: " + error;
    break;
  case BackendKind::Pypto:
    config.pto.ptoas = path(ToolchainKind::Ptoas);
    config.pto.ptoIsa = path(ToolchainKind::PtoIsa);
    config.pto.pyptoPython = path(ToolchainKind::Pypto);
    config.pto.pyptoAdapter = defaultPyptoAdapter();
    config.pto.memcheckShare = 0;
    if (!checkPyptoToolchain(config.pto, error))
      return "not run: " + error;
    break;
  case BackendKind::Simpler:
    config.pto.ptoas = path(ToolchainKind::Ptoas);
    config.pto.simplerPython = path(ToolchainKind::Simpler);
    config.pto.simplerAdapter = defaultSimplerAdapter();
    if (!checkSimplerToolchain(config.pto, error))
      return "not run: " + error;
    break;
  case BackendKind::PyTorchSim: {
    config.pytorchsim.checkout = path(ToolchainKind::PyTorchSim);
    config.pytorchsim.python = path(ToolchainKind::PyTorchSimPython);
    config.pytorchsim.adapter = defaultPyTorchSimAdapter();
    std::string version;
    if (!checkPyTorchSimToolchain(config.pytorchsim, version, error))
      return "not run: " + error;
    break;
  }
  case BackendKind::Torch:
  case BackendKind::Inductor:
    // Found and past its canary above: no second import of torch.
    useTorchAdapter(config, path(ToolchainKind::Torch), backend);
    break;
  case BackendKind::Tvm: useTorchAdapter(config, path(ToolchainKind::Tvm), backend); break;
  case BackendKind::Iree:
    useIreeAdapter(config, path(ToolchainKind::IreeCompile), path(ToolchainKind::IreeRuntime));
    break;
  case BackendKind::MlirTools:
    config.tools.mlirOpt = path(ToolchainKind::MlirOpt);
    config.tools.mlirRunner = path(ToolchainKind::MlirRunner);
    break;
  case BackendKind::MlirJit:
  case BackendKind::External:
    return "not run: no canary case for " + std::string(backendKindName(backend));
  }
  Case c;
  TextError parseError;
  if (!parseCase(canaryCaseText(), c, parseError))
    return "not run: the canary case does not parse";
  MlirJit jit;
  const CaseOutcome out = runCase(c, jit, config);
  passed = out.verdict == VerdictKind::Ok;
  // PyTorchSim's values come from npufuzz's model of its NPU: a canary
  // judged by the DMA oracles alone would hide a model that cannot run the
  // checkout's kernels.
  if (passed && backend == BackendKind::PyTorchSim) {
    passed = out.run.valuesComputed;
    return passed ? "passed, its values computed on the NPU model"
                  : "ok by its DMAs, but its values were not computed: " + out.run.valuesWhyNot;
  }
  return passed ? "passed" : std::string(verdictName(out.verdict)) + ": " + out.summary;
}
} // namespace

bool surveyToolchains(const std::map<ToolchainKind, std::string> &given, bool withCases,
                      std::vector<ToolchainRow> &rows, std::string &error) {
  ToolchainConfig config;
  if (!loadToolchainConfig(config, error))
    return false;
  rows.clear();
  for (const ToolchainInfo &info : allToolchains()) {
    ToolchainRow row;
    row.kind = info.kind;
    const auto flag = given.find(info.kind);
    if (!locateToolchain(info.kind, flag == given.end() ? "" : flag->second, config, row.where,
                         row.missing)) {
      // A place the user named that holds nothing is broken, not missing.
      row.state =
          row.where.source.empty() ? ToolchainRow::State::Missing : ToolchainRow::State::Broken;
    } else {
      row.canary = runCanary(info.kind, row.where.path);
      row.state = row.canary.passed ? ToolchainRow::State::Ok : ToolchainRow::State::Broken;
    }
    rows.push_back(std::move(row));
  }
  // One canary case a backend, shown on each of its toolchains' rows.
  std::map<BackendKind, std::pair<std::string, bool>> cases;
  for (ToolchainRow &row : rows) {
    std::vector<ToolchainKind> needs;
    const BackendKind backend = backendOf(row.kind, needs);
    const auto notOk = std::find_if(needs.begin(), needs.end(), [&](ToolchainKind k) {
      return rows[static_cast<size_t>(k)].state != ToolchainRow::State::Ok;
    });
    if (!withCases) {
      row.canaryCase = "not run (--no-canary-case)";
    } else if (notOk != needs.end()) {
      row.canaryCase = std::string("not run: ") + toolchainInfo(*notOk).name + " is not usable";
    } else {
      if (!cases.count(backend)) {
        bool passed = false;
        const std::string result = runCanaryCase(backend, rows, passed);
        cases[backend] = {result, passed};
      }
      row.canaryCase = cases[backend].first;
      row.casePassed = cases[backend].second;
    }
  }
  return true;
}

std::string formatToolchainRows(const std::vector<ToolchainRow> &rows) {
  std::ostringstream out;
  for (const ToolchainRow &row : rows) {
    const char *name = toolchainInfo(row.kind).name;
    out << name << std::string(18 - std::min<size_t>(17, std::string(name).size()), ' ');
    switch (row.state) {
    case ToolchainRow::State::Ok:
      out << "ok       " << row.canary.version << "; " << row.where.path << " (from "
          << row.where.source << "); canary case: " << row.canaryCase << "\n";
      break;
    case ToolchainRow::State::Missing: out << "missing  " << row.missing << "\n"; break;
    case ToolchainRow::State::Broken:
      out << "broken   " << (row.canary.error.empty() ? row.missing : row.canary.error) << "\n";
      break;
    }
  }
  return out.str();
}

} // namespace npufuzz
