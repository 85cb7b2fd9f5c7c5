//===- driver/VerifyPipeline.cpp - The pass-level oracle on any MLIR file -===//
#include "driver/VerifyPipeline.h"

#include "backend/mlir/MlirJit.h"
#include "backend/mlir/MlirTools.h"
#include "backend/mlir/Pipelines.h"
#include "oracles/PassBlame.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

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

VerifyPipelineReport verifyPipelineFile(const VerifyPipelineOptions &options) {
  VerifyPipelineReport report;
  auto fail = [&](const std::string &msg) {
    report.verdict = "error";
    report.diagnostic = msg;
    return report;
  };
  auto buffer = llvm::MemoryBuffer::getFile(options.file);
  if (!buffer)
    return fail("cannot read " + options.file + ": " + buffer.getError().message());
  const std::string text = (*buffer)->getBuffer().str();
  Pipeline pipeline;
  std::string error;
  if (!resolvePipeline(options.pipeline, MlirStyle::Affine, pipeline, error))
    return fail(error);
  report.passes = pipeline.passes;

  MlirJit jit;
  for (const std::string &plugin : options.passPlugins)
    if (!jit.loadPassPlugin(plugin, error))
      return fail("cannot load pass plugin " + plugin + ": " + error);
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

  // 2. Differential by pass, when the entry can be driven with buffers.
  std::vector<TensorType> params;
  if (!jit.entrySignature(text, options.entry, params, error)) {
    report.notExecutedReason = error;
    return report;
  }
  ModuleTransform transform = [&](const std::string &t, const std::vector<std::string> &e) {
    return options.mlirOpt.empty() ? jit.transform(t, e) : tool.transform(t, e);
  };
  const PassBlame blame = blameModulePass(text, options.entry, jit, pipeline, transform,
                                          options.dataSeed, JitOptions(), error);
  if (!error.empty()) {
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

} // namespace npufuzz
