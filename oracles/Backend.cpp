//===- oracles/Backend.cpp - One class per backend, one factory ------------===//
#include "oracles/Backend.h"

#include "backend/emit/PtoEmitter.h"
#include "backend/emit/PyTorchEmitter.h"
#include "backend/pto/PyptoBackend.h"
#include "backend/pto/SimplerBackend.h"
#include "oracles/Exactness.h"
#include "oracles/RunConfig.h"

namespace npufuzz {

namespace {
/// In process: the pipeline through MLIR's PassManager, then the
/// ExecutionEngine.
class JitBackend : public Backend {
public:
  explicit JitBackend(const JitOptions &options) : options(options) {}
  BackendRun run(const KernelRun &k) const override {
    JitOptions o = options;
    o.poison = k.poison;
    return k.jit.run(k.kernel, k.elements, k.inputs, k.outputTypes, o);
  }

private:
  JitOptions options;
};

/// mlir-opt | mlir-runner binaries.
class ToolsBackend : public Backend {
public:
  explicit ToolsBackend(MlirTool tools) : tools(std::move(tools)) {
    if (this->tools.runtimeLibrary.empty())
      this->tools.runtimeLibrary = defaultRuntimeLibrary();
  }
  BackendRun run(const KernelRun &k) const override {
    return tools.run(k.kernel, k.elements, k.inputs, k.outputTypes, k.poison);
  }

private:
  MlirTool tools;
};

/// A command on a case directory (external), or the persistent torch
/// adapter, which speaks the same protocol.
class CommandBackend : public Backend {
public:
  /// `freedoms`: what the compiler may do beyond the case's semantics
  /// (oracles/Exactness.h): inductor may hold f16/bf16 intermediates wide
  /// across the ops it fuses; IREE reassociates float sums.
  explicit CommandBackend(const ExternalToolchain &cmd, ExactnessModel freedoms = {})
      : cmd(cmd), freedoms(freedoms) {}
  BackendRun run(const KernelRun &k) const override {
    BackendRun r = runExternal(cmd, k.c, k.kernel, k.elements, k.inputs);
    markFreedoms(r, freedoms);
    return r;
  }
  std::map<std::string, std::string> programs(const Case &c) const override {
    std::map<std::string, std::string> files;
    std::string text, reason;
    if (emitPyTorch(c, text, reason))
      files["program.py"] = text;
    text.clear();
    if (emitPto(c, text, reason))
      files["kernel.pto"] = text;
    return files;
  }

private:
  ExternalToolchain cmd;
  ExactnessModel freedoms;
};

/// ptoas, then the pto-isa CPU simulator.
class PtoToolchainBackend : public Backend {
public:
  explicit PtoToolchainBackend(const PtoToolchain &t) : t(t) {}
  BackendRun run(const KernelRun &k) const override { return runPto(t, k.c, k.inputs, k.poison); }
  std::map<std::string, std::string> programs(const Case &c) const override {
    return ptoPrograms(t, c);
  }
  /// Compiling dominates a pto case, and most of it is instantiating
  /// pto-isa's templates, which kernels share: sixteen kernels built
  /// together take half the time they take alone, ptoas included (8: 0.54,
  /// 32: no better; `bench_pto 96 21000 --batch`).
  unsigned batchSize() const override { return t.batchDir.empty() ? 1 : 16; }
  void prebuild(const std::vector<Case> &cases) const override { prebuildPto(t, cases); }

private:
  PtoToolchain t;
};

/// PyPTO's passes and code generation, then ptoas and the pto-isa CPU
/// simulator. Each case builds alone: PyPTO writes its kernel first.
class PyptoToolchainBackend : public Backend {
public:
  explicit PyptoToolchainBackend(const PtoToolchain &t) : t(t) {}
  BackendRun run(const KernelRun &k) const override { return runPypto(t, k.c, k.inputs, k.poison); }
  std::map<std::string, std::string> programs(const Case &c) const override {
    return pyptoPrograms(t, c);
  }

private:
  PtoToolchain t;
};

/// ptoas, then each task on simpler's runtime. Each case builds its own
/// kernels with simpler's compiler: there is no batch to share.
class SimplerToolchainBackend : public Backend {
public:
  explicit SimplerToolchainBackend(const PtoToolchain &t) : t(t) {}
  BackendRun run(const KernelRun &k) const override {
    return runSimpler(t, k.c, k.inputs, k.poison);
  }
  std::map<std::string, std::string> programs(const Case &c) const override {
    return simplerPrograms(t, c);
  }

private:
  PtoToolchain t;
};
/// PyTorchSim's code generation, its kernels judged without running them.
class PyTorchSimToolchainBackend : public Backend {
public:
  explicit PyTorchSimToolchainBackend(const PyTorchSimToolchain &t) : t(t) {}
  BackendRun run(const KernelRun &k) const override {
    // PyTorchSim lowers torch through Inductor's own lowering.
    BackendRun r = runPyTorchSim(t, k.c, k.inputs);
    markFreedoms(r, freedomsOf(BackendKind::PyTorchSim));
    return r;
  }
  std::map<std::string, std::string> programs(const Case &c) const override {
    return pytorchsimPrograms(c);
  }

private:
  PyTorchSimToolchain t;
};
} // namespace

std::unique_ptr<Backend> makeBackend(const RunConfig &config) {
  switch (config.backend) {
  case BackendKind::MlirJit: return std::make_unique<JitBackend>(config.jit);
  case BackendKind::MlirTools: return std::make_unique<ToolsBackend>(config.tools);
  case BackendKind::External:
  case BackendKind::Torch: return std::make_unique<CommandBackend>(config.external);
  case BackendKind::Inductor:
  case BackendKind::Tvm:
  case BackendKind::Iree: {
    // The compiler's optimisations for this case: what the adapter turns on.
    ExternalToolchain cmd = config.external;
    const SwitchStates states = switchStatesOf(config);
    for (const SwitchState &s : states)
      cmd.switches.emplace_back(std::string(switchName(s.id)), s.on);
    return std::make_unique<CommandBackend>(cmd, freedomsOf(config.backend, states));
  }
  case BackendKind::Pto: return std::make_unique<PtoToolchainBackend>(config.pto);
  case BackendKind::Pypto: return std::make_unique<PyptoToolchainBackend>(config.pto);
  case BackendKind::Simpler: return std::make_unique<SimplerToolchainBackend>(config.pto);
  case BackendKind::PyTorchSim:
    return std::make_unique<PyTorchSimToolchainBackend>(config.pytorchsim);
  }
  return nullptr; // unreachable: the switch covers Backends.def
}

} // namespace npufuzz
