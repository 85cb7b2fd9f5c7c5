//===- driver/VerifyPipeline.h - The pass-level oracle on any MLIR file -*- C++ -*-===//
//
// `npufuzz verify-pipeline FILE.mlir --pipeline "..."`: verify the IR after
// every pass (in process, or through a given mlir-opt), and when the entry
// function can be executed, find the first pass after which executing the IR
// (finished with the trusted lowering tail) gives different results than the
// tail alone. Reports as JSON.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_VERIFYPIPELINE_H
#define NPUFUZZ_DRIVER_VERIFYPIPELINE_H

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

struct VerifyPipelineOptions {
  std::string file;
  std::string pipeline;           ///< pass elements, comma-separated
  std::string mlirOpt;            ///< empty: in process
  unsigned toolTimeoutSeconds = 60; ///< per mlir-opt run; past it, timed-out
  std::vector<std::string> passPlugins;
  std::string entry = "npf_kernel";
  bool execute = true;            ///< run the differential by pass
  uint64_t dataSeed = 0;
};

struct VerifyPipelineReport {
  /// ok, verifier-error, pass-failure, mismatch, compile-error, error; through
  /// mlir-opt also crashed and timed-out.
  std::string verdict = "ok";
  int passIndex = -1;
  std::string passName, diagnostic, irBefore, irAfter, detail;
  bool executed = false;          ///< the differential ran
  std::string notExecutedReason;
  std::vector<std::string> passes;

  std::string json() const;
  int exitCode() const { return verdict == "ok" ? 0 : verdict == "error" ? 2 : 1; }
};

VerifyPipelineReport verifyPipelineFile(const VerifyPipelineOptions &options);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_VERIFYPIPELINE_H
