//===- driver/VerifyPipeline.h - The pass-level oracle on any MLIR file -*- C++ -*-===//
//
// `npufuzz verify-pipeline FILE.mlir --pipeline "..."`: verify the IR after
// every pass (in process, or through a given mlir-opt), and for every public
// function (or `--entry`) whose parameters and results are static memrefs,
// static tensors or scalars, find the first pass after which executing the
// IR (finished with the trusted lowering tail) gives different results than
// the tail alone, on three data sets (oracles/DataSets.h). Reports as JSON.
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
  std::string pipeline;             ///< pass elements, comma-separated
  std::string mlirOpt;              ///< empty: in process
  unsigned toolTimeoutSeconds = 60; ///< per mlir-opt run; past it, timed-out
  std::vector<std::string> passPlugins;
  /// The function to execute; empty: every public function with a body.
  std::string entry;
  bool execute = true; ///< run the differential by pass
  uint64_t dataSeed = 0;
};

struct VerifyPipelineReport {
  /// ok, verifier-error, pass-failure, mismatch, compile-error, crashed,
  /// timed-out, or error (the input or the options are wrong).
  std::string verdict = "ok";
  int passIndex = -1;
  std::string passName, diagnostic, irBefore, irAfter, detail;
  bool executed = false; ///< the differential ran
  std::string entry;     ///< the function the finding is in
  /// The lowering or tail element that miscompiles what the blamed pass
  /// only exposed (blame through the tail), if any.
  std::string miscompiledBy;
  std::vector<std::string> entries; ///< the functions executed
  std::string skipped;              ///< why the others were not (when some were)
  size_t datasets = 0;              ///< data sets run, over all functions
  std::string notExecutedReason;
  std::vector<std::string> passes;

  std::string json() const;
  /// Reads back what json() wrote; false if `text` is not such a report.
  static bool fromJson(const std::string &text, VerifyPipelineReport &out);
  /// 0: ok, or not-executed (no pass broke the IR; nothing ran to say
  /// more); 1: a finding; 2: bad input.
  int exitCode() const {
    return verdict == "ok" || verdict == "not-executed" ? 0 : verdict == "error" ? 2 : 1;
  }
};

VerifyPipelineReport verifyPipelineFile(const VerifyPipelineOptions &options);

struct IsolationLimits;
/// verifyPipelineFile in a forked child: when the passes under test crash
/// the process, overflow its stack, call report_fatal_error or hang, the
/// verdict is `crashed` or `timed-out` with what they printed, and the
/// caller lives on.
VerifyPipelineReport verifyPipelineIsolated(const VerifyPipelineOptions &options,
                                            const IsolationLimits &limits);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_VERIFYPIPELINE_H
