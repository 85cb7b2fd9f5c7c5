//===- tools/npufuzz/BackendOptions.cpp - Where a case runs, on the command line -===//
#include "tools/npufuzz/BackendOptions.h"

#include "backend/mlir/Pipelines.h"
#include "backend/toolchains/BackendToolchains.h"
#include "driver/Isolation.h"
#include "driver/ReduceCommand.h"
#include "driver/Report.h"
#include "ir/FileText.h"
#include "oracles/RunConfig.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace npufuzz::tool {

BackendOptions::BackendOptions(cl::SubCommand &sub)
    : name("backend",
           cl::desc("mlir-jit (in process), mlir-tools, external, torch, inductor, iree, pto, "
                    "simpler or pytorchsim"),
           cl::init("mlir-jit"), cl::sub(sub), cl::cat(category())),
      cmd("cmd",
          cl::desc("Command for --backend external (one quoted string, split like a shell "
                   "would, run without one; {dir} is the case directory)"),
          cl::value_desc("ARGV"), cl::sub(sub), cl::cat(category())),
      opt("opt",
          cl::desc("mlir-opt for --backend mlir-tools (default: discovered, "
                   "docs/toolchains.md)"),
          cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      runner("runner",
             cl::desc("mlir-runner for --backend mlir-tools (default: discovered, "
                      "docs/toolchains.md)"),
             cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      persistent("persistent",
                 cl::desc("With --backend external: start the command once and send it case "
                          "directories on stdin (docs/external-backends.md)"),
                 cl::sub(sub), cl::cat(category())),
      python("python",
             cl::desc("Python with torch for --backend torch (default: discovered, "
                      "docs/toolchains.md)"),
             cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      ptoas("ptoas", cl::desc("ptoas for --backend pto (default: discovered, docs/toolchains.md)"),
            cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      ptoIsa("pto-isa",
             cl::desc("pto-isa's include directory for --backend pto (default: "
                      "discovered, docs/toolchains.md)"),
             cl::value_desc("DIR"), cl::sub(sub), cl::cat(category())),
      ptoArch("pto-arch", cl::desc("ptoas --pto-arch: a3 (default) or a5"), cl::sub(sub),
              cl::cat(category())),
      ptoMemcheck("pto-memcheck",
                  cl::desc("Share of pto kernels run under valgrind memcheck, 0 to 1 (default "
                           "0.02)"),
                  cl::value_desc("SHARE"), cl::sub(sub), cl::cat(category())),
      ptoHarnessBug("pto-harness-bug",
                    cl::desc("Plant a cache bug in a pto chain's harness: drop-flush, drop-fence "
                             "or pack-shares (tests the cache-coherency oracle)"),
                    cl::value_desc("BUG"), cl::Hidden, cl::sub(sub), cl::cat(category())),
      ireeCompile("iree-compile",
                  cl::desc("iree-compile for --backend iree (default: discovered, "
                           "docs/toolchains.md)"),
                  cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      ireePython("iree-python",
                 cl::desc("Python with IREE's runtime for --backend iree (default: discovered, "
                          "docs/toolchains.md)"),
                 cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      tvmPython("tvm-python",
                cl::desc("Python with torch and Apache TVM for --backend tvm (default: "
                         "discovered, docs/toolchains.md)"),
                cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      simplerPython("simpler-python",
                    cl::desc("Python that imports simpler for --backend simpler (default: "
                             "discovered, docs/toolchains.md)"),
                    cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      pyptoPython("pypto-python",
                  cl::desc("Python that imports PyPTO for --backend pypto (default: "
                           "discovered, docs/toolchains.md)"),
                  cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      pytorchsim("pytorchsim",
                 cl::desc("PyTorchSim's checkout for --backend pytorchsim (default: discovered, "
                          "docs/toolchains.md)"),
                 cl::value_desc("DIR"), cl::sub(sub), cl::cat(category())),
      pytorchsimPython("pytorchsim-python",
                       cl::desc("The Python PyTorchSim runs in, with its torch, for --backend "
                                "pytorchsim (default: discovered, docs/toolchains.md)"),
                       cl::value_desc("PATH"), cl::sub(sub), cl::cat(category())),
      switchOff("switch-off",
                cl::desc("Turn an optimisation of --backend inductor, tvm or iree off (repeatable; "
                         "the names are in docs/ml-compilers.md)"),
                cl::value_desc("NAME"), cl::sub(sub), cl::cat(category())),
      known("known",
            cl::desc("Known signature ids, one per line (ci/known-signatures.txt): a case "
                     "whose wrong values start at several ops is named by one that is not "
                     "known"),
            cl::value_desc("FILE"), cl::sub(sub), cl::cat(category())),
      ptoasFlags("ptoas-flag", cl::desc("One more ptoas option (repeatable)"), cl::sub(sub),
                 cl::cat(category())),
      ptoNoInsertSync("pto-no-insert-sync",
                      cl::desc("Run ptoas without --enable-insert-sync (on by default): "
                               "kernels with no synchronisation between pipes"),
                      cl::sub(sub), cl::cat(category())),
      ptoNoRaceOracle("pto-no-race-oracle",
                      cl::desc("Run kernels without their pipe trace, so with no race oracle "
                               "(on by default)"),
                      cl::sub(sub), cl::cat(category())) {}

bool checkProgram(const std::string &flag, const std::string &program) {
  if (program.find('/') != std::string::npos)
    return checkPath(flag, program, PathKind::Executable);
  if (llvm::sys::findProgramByName(program))
    return true;
  fail(flag + ": no program '" + program + "' on PATH");
  return false;
}

namespace {

/// Splits `--cmd` into the external backend's argv (no shell involved).
bool externalArgv(const std::string &text, RunConfig &config) {
  if (config.backend != BackendKind::External) {
    if (!text.empty()) {
      fail("--cmd is for --backend external");
      return false;
    }
    return true;
  }
  if (text.empty()) {
    fail("--backend external needs --cmd");
    return false;
  }
  return splitCommand("cmd", text, config.external.argv) &&
         checkProgram("--cmd", config.external.argv[0]);
}

} // namespace

bool BackendOptions::setUp(RunConfig &config) const {
  if (!parseBackendKind(name, config.backend)) {
    fail("unknown backend '" + name + "' (" + backendNames() + ")");
    return false;
  }
  if (!externalArgv(cmd, config))
    return false;
  if (persistent) {
    if (config.backend != BackendKind::External) {
      fail("--persistent is for --backend external (torch is always persistent)");
      return false;
    }
    if (cmd.find("{dir}") != std::string::npos) {
      fail("--persistent commands read case directories on stdin: remove {dir} from --cmd");
      return false;
    }
    config.external.persistent = true;
    // Its start (an interpreter importing a compiler) is paid once, on top
    // of the limit of the case that starts it.
    config.external.startSeconds = 120;
  }
  if (config.backend != BackendKind::MlirTools && (!opt.empty() || !runner.empty())) {
    fail("--opt and --runner are for --backend mlir-tools");
    return false;
  }
  std::string error;
  if (config.backend == BackendKind::MlirTools &&
      !setUpMlirTools(config.tools, opt, runner, error)) {
    fail(error);
    return false;
  }
  const bool torchLike =
      config.backend == BackendKind::Torch || config.backend == BackendKind::Inductor;
  if (!torchLike && !python.empty()) {
    fail("--python is for --backend torch and inductor");
    return false;
  }
  // What simpler shares with pto: ptoas, and how it runs.
  const bool ptoasFlagsGiven =
      !ptoas.empty() || !ptoArch.empty() || !ptoasFlags.empty() || ptoNoInsertSync;
  const bool ptoFlags =
      !ptoIsa.empty() || !ptoMemcheck.empty() || ptoNoRaceOracle || !ptoHarnessBug.empty();
  if (config.backend != BackendKind::Pto && config.backend != BackendKind::Simpler &&
      config.backend != BackendKind::Pypto && (ptoFlags || ptoasFlagsGiven)) {
    fail("--ptoas, --pto-isa, --pto-arch, --pto-memcheck, --ptoas-flag, --pto-no-insert-sync, "
         "--pto-no-race-oracle and --pto-harness-bug are for --backend pto");
    return false;
  }
  if (config.backend != BackendKind::Pypto && !pyptoPython.empty()) {
    fail("--pypto-python is for --backend pypto");
    return false;
  }
  if (config.backend == BackendKind::Simpler && ptoFlags) {
    fail("--pto-isa, --pto-memcheck, --pto-no-race-oracle and --pto-harness-bug are for "
         "--backend pto: simpler brings its own pto-isa, and has no trace");
    return false;
  }
  if (config.backend != BackendKind::Simpler && !simplerPython.empty()) {
    fail("--simpler-python is for --backend simpler");
    return false;
  }
  const bool pytorchsimFlags = !pytorchsim.empty() || !pytorchsimPython.empty();
  if (config.backend != BackendKind::PyTorchSim && pytorchsimFlags) {
    fail("--pytorchsim and --pytorchsim-python are for --backend pytorchsim");
    return false;
  }
  if (config.backend == BackendKind::PyTorchSim) {
    config.pytorchsim.checkout = pytorchsim;
    config.pytorchsim.python = pytorchsimPython;
    // Its values are not computed: the variants have nothing to compare.
    config.metamorphicShare = 0;
    // Its version line names the torch its line runs on, which the
    // releases of replay's expect lines are read against (driver/Releases.h).
    if (!setUpPyTorchSimToolchain(config.pytorchsim, error, &config.external.version)) {
      fail(error);
      return false;
    }
  }
  if (config.backend != BackendKind::Tvm && !tvmPython.empty()) {
    fail("--tvm-python is for --backend tvm");
    return false;
  }
  if (torchLike || config.backend == BackendKind::Tvm) {
    if (!configureTorchBackend(config, torchLike ? python : tvmPython, error, config.backend)) {
      fail(error);
      return false;
    }
  }
  const bool ireeFlags = !ireeCompile.empty() || !ireePython.empty();
  if (config.backend != BackendKind::Iree && ireeFlags) {
    fail("--iree-compile and --iree-python are for --backend iree");
    return false;
  }
  if (config.backend == BackendKind::Iree &&
      !configureIreeBackend(config, ireeCompile, ireePython, error)) {
    fail(error);
    return false;
  }
  for (const std::string &s : switchOff) {
    const std::optional<CompilerSwitch> sw = parseSwitch(config.backend, s);
    if (!sw) {
      std::string names;
      for (CompilerSwitch c : switchesOf(config.backend))
        names += (names.empty() ? "" : ", ") + std::string(switchName(c));
      fail("--switch-off: " + std::string(backendKindName(config.backend)) + " has no switch '" +
           s + "'" + (names.empty() ? std::string() : " (it has " + names + ")"));
      return false;
    }
    config.switchesOff.push_back(*sw);
  }
  if (!known.empty()) {
    if (!checkPath("--known", known, PathKind::RegularFile))
      return false;
    if (!readKnownSignatures(known, std::string(backendKindName(config.backend)),
                             config.knownSignatures, error)) {
      fail("--known: " + error);
      return false;
    }
  }
  if (config.backend == BackendKind::Pto || config.backend == BackendKind::Simpler ||
      config.backend == BackendKind::Pypto) {
    // ptoas, as all three run it.
    config.pto.ptoas = ptoas;
    if (!ptoArch.empty())
      config.pto.arch = ptoArch;
    config.pto.ptoasFlags.assign(ptoasFlags.begin(), ptoasFlags.end());
    config.pto.insertSync = !ptoNoInsertSync;
  }
  if (config.backend == BackendKind::Simpler) {
    config.pto.simplerPython = simplerPython;
    if (!setUpSimplerToolchain(config.pto, error)) {
      fail(error);
      return false;
    }
  }
  if (config.backend == BackendKind::Pto || config.backend == BackendKind::Pypto) {
    config.pto.ptoIsa = ptoIsa;
    config.pto.raceTrace = !ptoNoRaceOracle;
    if (!ptoHarnessBug.empty() && !parseHarnessBug(ptoHarnessBug, config.pto.harnessBug)) {
      fail("--pto-harness-bug takes drop-flush, drop-fence or pack-shares, not '" + ptoHarnessBug +
           "'");
      return false;
    }
    if (!ptoMemcheck.empty()) {
      double share = 0;
      if (!parseFiniteReal(ptoMemcheck, share) || share < 0 || share > 1) {
        fail("--pto-memcheck takes a share from 0 to 1, not '" + ptoMemcheck + "'");
        return false;
      }
      config.pto.memcheckShare = share;
    }
    config.pto.pyptoPython = pyptoPython;
    if (!(config.backend == BackendKind::Pypto ? setUpPyptoToolchain(config.pto, error)
                                               : setUpPtoToolchain(config.pto, error))) {
      fail(error);
      return false;
    }
  }
  return true;
}

std::vector<std::string> BackendOptions::reproFlags() const {
  std::vector<std::string> flags;
  if (!cmd.empty())
    flags.insert(flags.end(), {"--cmd", cmd});
  if (persistent)
    flags.push_back("--persistent");
  if (!opt.empty())
    flags.insert(flags.end(), {"--opt", opt});
  if (!runner.empty())
    flags.insert(flags.end(), {"--runner", runner});
  if (!python.empty())
    flags.insert(flags.end(), {"--python", python});
  if (!ptoas.empty())
    flags.insert(flags.end(), {"--ptoas", ptoas});
  if (!ptoIsa.empty())
    flags.insert(flags.end(), {"--pto-isa", ptoIsa});
  if (!ptoArch.empty())
    flags.insert(flags.end(), {"--pto-arch", ptoArch});
  if (!ptoMemcheck.empty())
    flags.insert(flags.end(), {"--pto-memcheck", ptoMemcheck});
  if (!ptoHarnessBug.empty())
    flags.insert(flags.end(), {"--pto-harness-bug", ptoHarnessBug});
  for (const std::string &f : ptoasFlags)
    flags.insert(flags.end(), {"--ptoas-flag", f});
  if (!ireeCompile.empty())
    flags.insert(flags.end(), {"--iree-compile", ireeCompile});
  if (!ireePython.empty())
    flags.insert(flags.end(), {"--iree-python", ireePython});
  if (!tvmPython.empty())
    flags.insert(flags.end(), {"--tvm-python", tvmPython});
  if (!simplerPython.empty())
    flags.insert(flags.end(), {"--simpler-python", simplerPython});
  if (!pyptoPython.empty())
    flags.insert(flags.end(), {"--pypto-python", pyptoPython});
  if (!pytorchsim.empty())
    flags.insert(flags.end(), {"--pytorchsim", pytorchsim});
  if (!pytorchsimPython.empty())
    flags.insert(flags.end(), {"--pytorchsim-python", pytorchsimPython});
  for (const std::string &s : switchOff)
    flags.insert(flags.end(), {"--switch-off", s});
  if (ptoNoInsertSync)
    flags.push_back("--pto-no-insert-sync");
  if (ptoNoRaceOracle)
    flags.push_back("--pto-no-race-oracle");
  if (!known.empty()) {
    // Absolute, so that a finding's repro line works from anywhere.
    llvm::SmallString<256> path(known.getValue());
    llvm::sys::fs::make_absolute(path);
    flags.insert(flags.end(), {"--known", path.str().str()});
  }
  return flags;
}

double caseSeconds(const SecondsOpt &timeout, const RunConfig &config) {
  if (timeout.getNumOccurrences())
    return timeout;
  // The command's own limit with its start, and room for the worker to
  // see it end.
  if (config.backend == BackendKind::Torch || config.backend == BackendKind::Inductor ||
      config.backend == BackendKind::Iree || config.backend == BackendKind::Tvm ||
      (config.backend == BackendKind::External && config.external.persistent))
    return std::max<double>(timeout,
                            config.external.timeoutSeconds + config.external.startSeconds + 30.0);
  // simpler builds a kernel per task and the orchestration for each case.
  if (config.backend == BackendKind::Simpler)
    return std::max<double>(timeout, config.pto.simplerTimeoutSeconds + 30.0);
  // PyPTO writes the kernel first, then ptoas, the compiler and the run.
  if (config.backend == BackendKind::Pypto)
    return std::max<double>(timeout,
                            config.pto.simplerTimeoutSeconds + 3.0 * config.pto.timeoutSeconds);
  if (config.backend == BackendKind::PyTorchSim)
    return std::max<double>(timeout, 2.0 * config.pytorchsim.timeoutSeconds + 30.0);
  return timeout;
}

PassStageOption::PassStageOption(cl::SubCommand &sub)
    : stage("pass-stage",
            cl::desc("Where the pipeline's passes run: entry (on the emitted IR), bufferized "
                     "(after the tensor style's bufferization) or loops (after the lowering to "
                     "loops and vectors)"),
            cl::init("entry"), cl::sub(sub), cl::cat(category())) {}

bool PassStageOption::set(RunConfig &config) const {
  if (parsePassStage(stage, config.stage))
    return true;
  fail("unknown --pass-stage '" + stage + "' (entry, bufferized or loops)");
  return false;
}

LoweringSeedOption::LoweringSeedOption(cl::SubCommand &sub)
    : seed("lowering-seed",
           cl::desc("Lower the case with the plan this seed draws (default: the canonical "
                    "plan); findings give it"),
           cl::value_desc("SEED"), cl::sub(sub), cl::cat(category())) {}

std::optional<uint64_t> LoweringSeedOption::given() const {
  if (!seed.getNumOccurrences())
    return std::nullopt;
  return static_cast<uint64_t>(seed.getValue());
}

bool checkExpectLine(const std::string &path, const std::string &caseText) {
  std::string error;
  Expectation expect;
  unsigned line = 0;
  if (parseExpectation(caseText, expect, error, &line) || line == 0)
    return true;
  // Located in the file, as a case that does not parse is (loadCase).
  llvm::errs() << damagedExpectLine(path, line, error) << "\n";
  return false;
}

void printSwitches(const RunConfig &config) {
  if (!switchesOf(config.backend).empty())
    llvm::outs() << "switches: " << changedSwitchesText(switchStatesOf(config)) << "\n";
}

void lowerAsRecorded(const std::string &caseText, const LoweringSeedOption &seed,
                     const PassStageOption &stage, RunConfig &config) {
  std::string error;
  Expectation expect;
  if (!parseExpectation(caseText, expect, error))
    return;
  if (!seed.seed.getNumOccurrences()) {
    config.loweringSeed = expect.loweringSeed;
    config.drawsModes = expect.drawsModes;
  }
  if (!stage.stage.getNumOccurrences())
    config.stage = expect.stage;
}

std::pair<std::string, std::string> pipelineAsRecorded(const std::string &caseText,
                                                       const cl::opt<std::string> &pipeline,
                                                       const cl::opt<std::string> &style) {
  std::pair<std::string, std::string> chosen = {pipeline.getValue(), style.getValue()};
  std::string error;
  Expectation expect;
  if (!parseExpectation(caseText, expect, error))
    return chosen;
  if (!pipeline.getNumOccurrences() && !expect.pipeline.empty())
    chosen.first = expect.pipeline;
  if (!style.getNumOccurrences() && !expect.style.empty())
    chosen.second = expect.style;
  return chosen;
}

bool configureRun(const std::string &pipeline, const std::string &style,
                  const BackendOptions &backend, const PassStageOption &stage,
                  const std::vector<std::string> &plugins, RunConfig &config) {
  config.pipeline = pipeline;
  if (!parseMlirStyle(style, config.style)) {
    fail("unknown style '" + style + "'");
    return false;
  }
  config.tools.passPlugins = plugins;
  return backend.setUp(config) && stage.set(config);
}

bool checkPlugins(const std::vector<std::string> &plugins) {
  if (plugins.empty())
    return true;
  for (const std::string &plugin : plugins)
    if (!checkPath("--load-pass-plugin", plugin, PathKind::RegularFile))
      return false;
  // The child says which plugin it is loading before it loads it, so a
  // plugin that aborts the process is named.
  IsolationLimits limits;
  limits.wallSeconds = 120;
  const ChildOutcome o = runIsolated(
      [&] {
        MlirJit probe;
        for (const std::string &plugin : plugins) {
          std::fprintf(stderr, "npufuzz-loading-plugin %s\n", plugin.c_str());
          std::fflush(stderr);
          std::string error;
          if (!probe.loadPassPlugin(plugin, error))
            return "cannot load pass plugin " + plugin + ": " + error;
        }
        return std::string("ok");
      },
      limits);
  if (o.end == ChildOutcome::End::Returned) {
    if (o.payload == "ok")
      return true;
    fail(o.payload);
    return false;
  }
  const std::string marker = "npufuzz-loading-plugin ";
  const size_t at = o.stderrText.rfind(marker);
  const std::string plugin =
      at == std::string::npos
          ? std::string("a plugin")
          : o.stderrText.substr(at + marker.size(),
                                o.stderrText.find('\n', at) - at - marker.size());
  std::string why = "it took the process down";
  const size_t fatal = o.stderrText.find("LLVM ERROR: ");
  if (fatal != std::string::npos)
    why = o.stderrText.substr(fatal + 12, o.stderrText.find('\n', fatal) - fatal - 12);
  if (why.find("different pass than previously registered") != std::string::npos)
    why = "it registers a pass whose name is taken (" + why + ")";
  fail("cannot load pass plugin " + plugin + ": " + why);
  return false;
}

bool loadPlugins(MlirJit &jit, const std::vector<std::string> &plugins) {
  if (!checkPlugins(plugins))
    return false;
  for (const std::string &plugin : plugins) {
    std::string error;
    if (!jit.loadPassPlugin(plugin, error)) {
      fail("cannot load pass plugin " + plugin + ": " + error);
      return false;
    }
  }
  return true;
}

bool checkPipeline(MlirJit &jit, const RunConfig &config) {
  std::string error;
  if (!pipelineRunsOn(jit, config, error)) {
    fail("--pipeline: " + error);
    return false;
  }
  return true;
}

} // namespace npufuzz::tool
