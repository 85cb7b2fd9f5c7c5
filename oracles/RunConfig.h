//===- oracles/RunConfig.h - What a case runs on and how it is judged -*- C++ -*-===//
//
// The backend a case's kernel runs on, with its toolchain, the lowering
// style and pipeline it is compiled with, and the oracles' knobs.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_RUNCONFIG_H
#define NPUFUZZ_ORACLES_RUNCONFIG_H

#include "backend/BackendKind.h"
#include "backend/CompilerSwitches.h"
#include "backend/external/ExternalBackend.h"
#include "backend/mlir/MlirEmitter.h"
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/MlirTools.h"
#include "backend/mlir/Pipelines.h"
#include "backend/pto/PtoBackend.h"
#include "backend/pytorchsim/PyTorchSimBackend.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace npufuzz {

struct RunConfig {
  BackendKind backend = BackendKind::MlirJit;
  MlirStyle style = MlirStyle::Affine;
  /// The case's lowering seed (backend/mlir/LoweringPlan.h); none: the
  /// canonical plan.
  std::optional<uint64_t> loweringSeed;
  /// Whether the lowering seed also draws the compiler's OptIn modes
  /// (backend/CompilerSwitches.def): every seed drawn now does; one an old
  /// finding recorded does not (Expectation::drawsModes).
  bool drawsModes = true;
  std::string pipeline = "O0";
  /// Where in the lowering the pipeline's passes run.
  PassStage stage = PassStage::Entry;
  JitOptions jit;
  MlirTool tools;                 ///< binaries for BackendKind::MlirTools
  ExternalToolchain external;     ///< argv and limits for BackendKind::External
  PtoToolchain pto;               ///< ptoas and pto-isa for BackendKind::Pto
  PyTorchSimToolchain pytorchsim; ///< for BackendKind::PyTorchSim
  /// Share of cases that also run the view and lane metamorphic variants
  /// (oracles/Metamorphic.h) in isolated workers.
  double metamorphicShare = 0.25;
  /// Whether a finding's task bisects for the pass or op to blame (its
  /// signature). A campaign's worker, whose failures are run again in a
  /// fresh child that records them, does not.
  bool blame = true;
  /// Each blame (pass, op) runs in a child of its own with this limit:
  /// blame reruns the case under other pipelines, which can hang or crash
  /// where the case did not, and that must not become the case's verdict.
  double blameSeconds = 30;
  /// Signature ids a campaign was told are known (`fuzz --known`): op blame
  /// names the first wrong op whose signature is not among them, when
  /// there is one, so that a case that fails in a known way and a new one
  /// is filed under the new one and reduced to it.
  std::set<std::string> knownSignatures;
  /// The ops (opName) a campaign's failures so far were traced to with an
  /// undefined result on a black-box backend (CaseVerdict::culpritOp): op
  /// blame cuts a case at its first such op before it bisects, so that a
  /// bad night of one known root costs two runs a case. It picks which cuts
  /// run first; the op blamed is the same unless the backend's failures are
  /// not monotone in the prefix (undefined behaviour such as a garbage
  /// valid shape may fault in one prefix and not in a longer one), where
  /// `npufuzz --seed`, which has none, may blame another.
  std::set<std::string> culpritOps;
  /// Optimisations of a black-box compiler turned off for the case
  /// (backend/CompilerSwitches.h): by switch blame, or `--switch-off`.
  std::vector<CompilerSwitch> switchesOff;
  /// The switch switch blame tries first (a reduction's target names it):
  /// when turning it off alone makes the failure go, blame names it after
  /// one compilation, where trying every switch in turn takes one each. A
  /// case that needs another switch is blamed as without the hint.
  std::optional<CompilerSwitch> blameFirst;
};

/// How the MLIR styles emit the case under `config`: its style, and the
/// plan its lowering seed draws.
MlirEmitOptions emitOptionsOf(const RunConfig &config);

/// The compiler switches a case of `config` runs with: its backend's,
/// drawn from its lowering seed, those it turns off off (switchStates).
SwitchStates switchStatesOf(const RunConfig &config);

/// Whether `config`'s pipeline resolves for its style and stage and every
/// pass of it is known to `jit` (plugins loaded), else why not; true for
/// backends that run no MLIR passes of npufuzz's.
bool pipelineRunsOn(MlirJit &jit, const RunConfig &config, std::string &error);

/// `config` with only the first `passes` passes of `pipeline` (its resolved
/// pipeline; the stage is kept): what blame by prefix runs.
RunConfig withPassPrefix(const RunConfig &config, const Pipeline &pipeline, size_t passes);

/// `config` with every time limit of its backend's own (a tool's, the
/// adapter's, a stage's, blame's) `factor` times as long: how a run that
/// ran out of time on a busy machine is given a second chance.
RunConfig withMoreTime(const RunConfig &config, double factor);

/// Sets `config.blameFirst` to the switch `pass` names ("inductor:fusion")
/// when it is one of `config`'s backend's and no hint is set yet: what
/// reduction and generalisation ask of every variant of a failure blamed
/// on that switch.
void preferBlaming(RunConfig &config, const std::string &pass);

/// Sets up `config` for `backend`: torch, inductor (the kernel under
/// torch.compile) or tvm (the kernel exported and built by TVM), with
/// `python` (--python, or --tvm-python for tvm; empty: discovered,
/// docs/toolchains.md#torch): the persistent adapter, after the python's
/// canary. False with the reason otherwise.
bool configureTorchBackend(RunConfig &config, const std::string &python, std::string &error,
                           BackendKind backend = BackendKind::Torch);

/// The adapter part of configureTorchBackend, for a `python` already found
/// and past its canary.
void useTorchAdapter(RunConfig &config, const std::string &python, BackendKind backend);

/// Sets up `config` for --backend iree with `compiler` (--iree-compile)
/// and `python` (--iree-python), each discovered when empty
/// (docs/toolchains.md#iree-compile): the persistent adapter, after both
/// canaries. False with the reason otherwise.
bool configureIreeBackend(RunConfig &config, const std::string &compiler, const std::string &python,
                          std::string &error);

/// The adapter part of configureIreeBackend, for tools already found and
/// past their canaries.
void useIreeAdapter(RunConfig &config, const std::string &compiler, const std::string &python);

/// The libnpufuzz_rt.so next to this build ($NPUFUZZ_RT_LIBRARY overrides).
std::string defaultRuntimeLibrary();

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_RUNCONFIG_H
