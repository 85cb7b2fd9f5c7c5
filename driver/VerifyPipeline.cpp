//===- driver/VerifyPipeline.cpp - The pass-level oracle on any MLIR file -===//
#include "driver/VerifyPipeline.h"

#include "driver/Isolation.h"
#include "ir/FileText.h"

#include "backend/mlir/MlirJit.h"
#include "backend/mlir/MlirTools.h"
#include "backend/mlir/Pipelines.h"
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
  if (!readFileBytes(options.file, text, error))
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
    tool.mlirOpt = options.mlirOpt;
    std::string path;
    if (!tool.find(path, error))
      return fail(error);
  }

  // 1. The IR after every pass must verify.
  const BackendRun verified = options.mlirOpt.empty()
                                  ? jit.verifyPipeline(text, pipeline.passes)
                                  : tool.verifyPipeline(text, pipeline.passes);
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

  // 2. Differential by pass, when the entry can be driven with buffers. A
  // file with nothing to run is `not-executed`: its IR verified after every
  // pass, and nothing says its passes kept its meaning.
  std::vector<TensorType> params;
  if (!jit.entrySignature(text, options.entry, params, error)) {
    report.verdict = "not-executed";
    report.notExecutedReason = error;
    return report;
  }
  ModuleTransform transform = [&](const std::string &t, const std::vector<std::string> &e) {
    return options.mlirOpt.empty() ? jit.transform(t, e) : tool.transform(t, e);
  };
  const PassBlame blame = blameModulePass(text, options.entry, jit, pipeline, transform,
                                          options.dataSeed, JitOptions(), error);
  if (!error.empty()) {
    report.verdict = "not-executed";
    report.notExecutedReason = error;
    return report;
  }
  report.executed = true;
  if (blame.found) {
    report.verdict = std::string(verdictName(blame.verdict));
    report.passIndex = blame.passIndex;
    report.passName = blame.passName;
    report.detail = blame.detail;
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
