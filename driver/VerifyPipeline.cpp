//===- driver/VerifyPipeline.cpp - The pass-level oracle on any MLIR file -===//
#include "driver/VerifyPipeline.h"

#include "driver/Isolation.h"
#include "ir/FileText.h"

#include "backend/mlir/MlirJit.h"
#include "backend/mlir/MlirTools.h"
#include "backend/mlir/Pipelines.h"
#include "backend/toolchains/Canary.h"
#include "oracles/DataSets.h"
#include "oracles/MemoryErrorOracle.h"
#include "oracles/PassBlame.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

namespace npufuzz {

std::string VerifyPipelineReport::json() const {
  llvm::json::Object o{{"verdict", verdict}, {"executed", executed}};
  llvm::json::Array ps;
  for (const std::string &p : passes)
    ps.push_back(p);
  o["passes"] = std::move(ps);
  if (passIndex >= 0)
    o["pass"] = llvm::json::Object{{"index", passIndex}, {"name", passName}};
  if (!diagnostic.empty())
    o["diagnostic"] = diagnostic;
  if (!detail.empty())
    o["detail"] = detail;
  if (!irBefore.empty())
    o["ir_before"] = irBefore;
  if (!irAfter.empty())
    o["ir_after"] = irAfter;
  if (!notExecutedReason.empty())
    o["not_executed"] = notExecutedReason;
  if (!entry.empty())
    o["entry"] = entry;
  if (!skipped.empty())
    o["skipped"] = skipped;
  if (!miscompiledBy.empty())
    o["miscompiled_by"] = miscompiledBy;
  llvm::json::Array es;
  for (const std::string &e : entries)
    es.push_back(e);
  o["executed_entries"] = std::move(es);
  o["data_sets"] = static_cast<int64_t>(datasets);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}

bool VerifyPipelineReport::fromJson(const std::string &text, VerifyPipelineReport &out) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o || !o->getString("verdict"))
    return false;
  auto str = [&](const char *key) { return o->getString(key).value_or("").str(); };
  out = VerifyPipelineReport();
  out.verdict = str("verdict");
  out.executed = o->getBoolean("executed").value_or(false);
  if (const llvm::json::Array *ps = o->getArray("passes"))
    for (const llvm::json::Value &p : *ps)
      out.passes.push_back(p.getAsString().value_or("").str());
  if (const llvm::json::Object *pass = o->getObject("pass")) {
    out.passIndex = static_cast<int>(pass->getInteger("index").value_or(-1));
    out.passName = pass->getString("name").value_or("").str();
  }
  out.diagnostic = str("diagnostic");
  out.detail = str("detail");
  out.irBefore = str("ir_before");
  out.irAfter = str("ir_after");
  out.notExecutedReason = str("not_executed");
  out.entry = str("entry");
  out.skipped = str("skipped");
  out.miscompiledBy = str("miscompiled_by");
  if (const llvm::json::Array *es = o->getArray("executed_entries"))
    for (const llvm::json::Value &e : *es)
      out.entries.push_back(e.getAsString().value_or("").str());
  out.datasets = static_cast<size_t>(o->getInteger("data_sets").value_or(0));
  return true;
}

VerifyPipelineReport verifyPipelineFile(const VerifyPipelineOptions &options) {
  VerifyPipelineReport report;
  auto fail = [&](const std::string &msg) {
    report.verdict = "error";
    report.diagnostic = msg;
    return report;
  };
  std::string text, error;
  if (!readFileBytes(options.file, text, error, 64u << 20))
    return fail("cannot read " + error);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return fail(options.file + ": empty file: there is no MLIR to verify");
  Pipeline pipeline;
  if (!resolvePipeline(options.pipeline, MlirStyle::Affine, pipeline, error))
    return fail(error);
  report.passes = pipeline.passes;

  MlirJit jit;
  for (const std::string &plugin : options.passPlugins)
    if (!jit.loadPassPlugin(plugin, error))
      return fail("cannot load pass plugin " + plugin + ": " + error);
  if (!jit.checkPipeline(pipeline.passes, error))
    return fail(error);
  // The input must be valid MLIR before any pass runs: a file that does not
  // parse or verify is the user's error, not a pass's.
  jit.setSourceName(options.file);
  std::string diagnostic;
  if (!jit.parses(text, diagnostic))
    return fail("the input is not valid MLIR:\n" + diagnostic);
  MlirTool tool;
  tool.passPlugins = options.passPlugins;
  tool.timeoutSeconds = options.toolTimeoutSeconds;
  if (!options.mlirOpt.empty()) {
    LocatedToolchain found;
    if (!findWorkingToolchain(ToolchainKind::MlirOpt, options.mlirOpt, found, error))
      return fail(error);
    tool.mlirOpt = found.path;
  }

  // 1. The IR after every pass must verify.
  const BackendRun verified = options.mlirOpt.empty() ? jit.verifyPipeline(text, pipeline.passes)
                                                      : tool.verifyPipeline(text, pipeline.passes);
  if (verified.status == BackendRun::Status::EnvironmentError)
    return fail(verified.message); // mlir-opt could not run: no pass is to blame
  if (!verified.ok()) {
    report.verdict = std::string(statusName(verified.status));
    report.passIndex = verified.passIndex;
    report.passName = verified.passName;
    report.diagnostic = verified.message;
    report.irBefore = verified.irBeforePass;
    report.irAfter = verified.irAfterPass;
    return report;
  }
  if (!options.execute) {
    report.notExecutedReason = "execution not requested";
    return report;
  }

  // 2. Differential by pass, on every function that can be driven with
  // buffers. A file with nothing to run is `not-executed`: its IR verified
  // after every pass, and nothing says its passes kept its meaning.
  const std::vector<std::string> entries =
      options.entry.empty() ? jit.publicFunctions(text) : std::vector<std::string>{options.entry};
  std::string reasons;
  for (const std::string &entry : entries) {
    MlirJit::EntryDriver driver;
    if (!jit.entryDriver(text, entry, driver, error)) {
      // A function the user named that is not there is the input's fault,
      // not a module with nothing to run.
      if (!options.entry.empty() && error == "no function @" + entry)
        return fail("--entry: " + error + " in " + options.file);
      reasons += (reasons.empty() ? "" : "; ") + error;
      continue;
    }
    Pipeline withLowering = pipeline;
    if (driver.bufferize)
      withLowering.lowering = {"one-shot-bufferize{bufferize-function-boundaries=true "
                               "function-boundary-type-conversion=identity-layout-map}",
                               "func.func(convert-linalg-to-loops)"};
    // Data sets whose tail-only run does not finish (an edge value the
    // function cannot take: a fault, an endless loop) say nothing about the
    // passes. They are tried in a child first: all together, and one by one
    // if that fails.
    IsolationLimits limits;
    limits.wallSeconds = options.toolTimeoutSeconds;
    // The child answers "ok", or why not; a fault or a hang is its end.
    auto tryInChild = [&](const std::vector<std::vector<TensorData>> &sets, std::string &why) {
      const ChildOutcome o = runIsolated(
          [&] {
            std::vector<std::vector<TensorData>> copy = sets;
            const BackendRun run = jit.executeEach(driver.text, withLowering.loweringAndTail(),
                                                   driver.function, copy, JitOptions());
            return run.ok() ? std::string("ok") : run.message.substr(0, run.message.find('\n'));
          },
          limits);
      if (o.end == ChildOutcome::End::Returned && o.payload == "ok")
        return true;
      why = o.end == ChildOutcome::End::Returned   ? o.payload
            : o.end == ChildOutcome::End::TimedOut ? std::string("it did not finish in time")
                                                   : std::string("it crashed");
      return false;
    };
    std::vector<std::vector<TensorData>> datasets =
        verificationDataSets(driver.buffers, options.dataSeed);
    std::string why;
    if (!tryInChild(datasets, why)) {
      std::vector<std::vector<TensorData>> kept;
      for (std::vector<TensorData> &set : datasets)
        if (tryInChild({set}, why))
          kept.push_back(std::move(set));
      datasets = std::move(kept);
    }
    if (datasets.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + ("@" + entry) +
                 " does not run with the lowering tail alone" + (why.empty() ? "" : ": " + why);
      continue;
    }
    ModuleTransform transform = [&](const std::string &t, const std::vector<std::string> &e) {
      return options.mlirOpt.empty() ? jit.transform(t, e) : tool.transform(t, e);
    };
    error.clear();
    PassBlame blame =
        blameModulePass(driver, jit, withLowering, transform, datasets, JitOptions(), error);
    // A wrong value or a changed redzone may be an access outside a memref:
    // blamed again bounds-checked, the first pass after which one is made
    // names it (oracles/MemoryErrorOracle.h).
    if (error.empty() && blame.found && mayBeOutOfBounds(blame.verdict)) {
      JitOptions checked;
      checked.boundsCheck = true;
      std::string checkedError;
      const PassBlame named =
          blameModulePass(driver, jit, withLowering, transform, datasets, checked, checkedError);
      if (checkedError.empty() && named.found && isOutOfBounds(named.verdict))
        blame = named;
    }
    if (!error.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + ("@" + entry + ": ") + error;
      continue;
    }
    if (blame.found && blame.verdict == VerdictKind::EnvironmentError)
      return fail(blame.detail); // a tool that could not run blames no pass
    report.executed = true;
    report.entries.push_back(entry);
    report.datasets += datasets.size();
    if (blame.found) {
      report.verdict = std::string(verdictName(blame.verdict));
      report.entry = entry;
      report.passIndex = blame.passIndex;
      report.passName = blame.passName;
      report.detail = blame.detail;
      report.skipped = reasons;
      if (!blame.miscompiledBy.empty()) {
        report.miscompiledBy = blame.miscompiledBy;
        report.detail += "; miscompiled by " + blame.miscompiledBy + ", exposed by " +
                         blame.passName +
                         " (the IR after it runs right when vector "
                         "transfers are scalarized before the tail)";
      }
      return report;
    }
  }
  if (!report.executed) {
    report.verdict = "not-executed";
    report.notExecutedReason = entries.empty() ? "no public function with a body" : reasons;
  } else {
    report.skipped = reasons;
  }
  return report;
}

VerifyPipelineReport verifyPipelineIsolated(const VerifyPipelineOptions &options,
                                            const IsolationLimits &limits) {
  const ChildOutcome o =
      runIsolated([&options] { return verifyPipelineFile(options).json(); }, limits);
  VerifyPipelineReport report;
  if (o.end == ChildOutcome::End::Returned && VerifyPipelineReport::fromJson(o.payload, report))
    return report;
  // The compiler under test took the process down (a pass crashed, a
  // plugin called report_fatal_error, the stack overflowed) or ran out of
  // time: that is the verdict, with what it printed.
  Pipeline pipeline;
  std::string error;
  if (resolvePipeline(options.pipeline, MlirStyle::Affine, pipeline, error))
    report.passes = pipeline.passes;
  // The head says what failed (LLVM ERROR, the assertion, the first
  // frames); the tail where. A stack overflow repeats one frame thousands of
  // times in between.
  std::string text = o.stderrText;
  text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
  const size_t head = 4096, tail = 2048;
  report.diagnostic = text.size() <= head + tail
                          ? text
                          : text.substr(0, head) + "\n[...]\n" + text.substr(text.size() - tail);
  switch (o.end) {
  case ChildOutcome::End::Returned:
    report.verdict = "crashed";
    report.detail = "the isolated run returned an unreadable report";
    break;
  case ChildOutcome::End::Signalled:
    report.verdict = "crashed";
    report.detail = std::string("killed by signal ") + std::to_string(o.signal) + " (" +
                    strsignal(o.signal) + ")";
    break;
  case ChildOutcome::End::Exited:
    report.verdict = "crashed";
    report.detail = "exited with status " + std::to_string(o.exitCode);
    break;
  case ChildOutcome::End::TimedOut:
    report.verdict = "timed-out";
    report.detail = "exceeded " + std::to_string(limits.wallSeconds) + " s";
    break;
  case ChildOutcome::End::ForkFailed:
    report.verdict = "error";
    report.detail = "could not fork";
    break;
  }
  return report;
}

} // namespace npufuzz
