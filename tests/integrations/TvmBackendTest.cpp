//===- tests/integrations/TvmBackendTest.cpp - Apache TVM as a target -----===//
//
// --backend tvm: the emitted programs' kernels exported with torch.export,
// imported by TVM's Relax frontend, optimised and built for llvm and run on
// TVM's CPU runtime, through the torch adapter. The seed cases agree with
// the reference; a bug planted in TVM is a mismatch blamed on the switch
// that turns it off; what TVM's frontend refuses is unsupported, and what
// TVM raises after it is a compile-error signed without the case's numbers.
// ci/test.sh installs torch and TVM, so their absence is a failure.
//
//===----------------------------------------------------------------------===//
#include "backend/external/PersistentCommand.h"
#include "driver/CaseTask.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

RunConfig tvm() {
  RunConfig config;
  std::string error;
  EXPECT_TRUE(configureTorchBackend(config, "", error, BackendKind::Tvm)) << error;
  config.metamorphicShare = 0;
  return config;
}

// Integer floor divisions whose operands npufuzz's data relate (exact
// divisions of mixed signs among them), topk with ties, and a max of
// signed zeros: what the programs' helpers compute without an op TVM's
// frontend refuses.
const char *kDivisions = R"(npufuzz-case 1
data seed=7 edge_rate=0
%0 = input : i32[8,16]
%1 = input : i32[8,16]
%2 = div %0, %1 : i32[8,16]
return %2
)";

const char *kTiesAndZeros = R"(npufuzz-case 1
%0 = input {fill=ones} : bf16[4,3,7]
%1, %2 = topk %0 {axis=0, k=2} : bf16[2,3,7], i64[2,3,7]
%3 = input {fill=zeros} : f32[4,4]
%4 = neg %3 : f32[4,4]
%5 = max %4, %3 : f32[4,4]
return %1, %2, %5
)";

// Reductions of every element type, over NaN, both zeros, infinities and
// the integer extremes. The program computes a bf16 one in f32: TVM cannot
// build isnan of bf16, its own bug, which would stop them all.
const char *kReductions = R"(npufuzz-case 1
data seed=11 edge_rate=0.6
%0 = input : bf16[9,5]
%1 = reduce_max %0 {axis=0} : bf16[1,5]
%2 = reduce_min %0 {axis=0} : bf16[1,5]
%3 = argmax %0 {axis=0} : i64[1,5]
%4 = input : i8[3,17]
%5 = reduce_min %4 {axis=1} : i8[3,1]
%6 = argmax %4 {axis=1} : i64[3,1]
%7 = input : f32[12,2]
%8 = const {value=0} : f32[12,2]
%9 = mul %7, %8 : f32[12,2]
%10 = reduce_max %9 {axis=1} : f32[12,1]
%11 = reduce_min %9 {axis=1} : f32[12,1]
%12 = input : i32[4,33]
%13 = reduce_min %12 {axis=1} : i32[4,1]
return %1, %2, %3, %5, %6, %10, %11, %13
)";

/// Runs `text` with the adapter loading `patch` (NPUFUZZ_TVM_PATCH), as a
/// campaign's worker would, confirmed and blamed.
CaseReport runPatched(const char *text, const std::string &patch) {
  MlirJit jit;
  workerPersistentCommand().stop(); // the adapter inherits the environment
  EXPECT_EQ(::setenv("NPUFUZZ_TVM_PATCH", patch.c_str(), 1), 0);
  IsolationLimits limits;
  limits.wallSeconds = 600;
  const CaseReport r = runCaseIsolated(parseOrFail(text), jit, tvm(), limits);
  ::unsetenv("NPUFUZZ_TVM_PATCH");
  workerPersistentCommand().stop();
  return r;
}

std::string writePatch(const std::string &name, const std::string &text) {
  const std::string dir = ::testing::TempDir() + "/npufuzz-tvm-patches";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}
} // namespace

TEST(TvmBackend, EverySeedCaseRunsExactThroughTvm) {
  MlirJit jit;
  const RunConfig config = tvm();
  EXPECT_EQ(config.backend, BackendKind::Tvm);
  for (const std::string &path : npufuzz::testing::corpusFiles("corpus/seeds")) {
    Case c;
    TextError error;
    ASSERT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
    const CaseOutcome out = runCase(c, jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << path << ": " << out.summary;
  }
  for (const char *text : {kDivisions, kTiesAndZeros, kReductions}) {
    const CaseOutcome out = runCase(parseOrFail(text), jit, config);
    EXPECT_EQ(out.verdict, VerdictKind::Ok) << text << out.summary;
  }
}

// tests/integrations/tvm/: integer floor division made to skip its
// remainder test, in a pass named FuseOps. Exact divisions of mixed signs
// come out one too low; switch blame names the pass.
TEST(TvmBackend, APlantedFloorDivisionBugIsAMismatchBlamedOnFuseOps) {
  const CaseReport r =
      runPatched(kDivisions, npufuzz::testing::sourceDir() +
                                 "/tests/integrations/tvm/fused_floordiv_skips_remainder.py");
  EXPECT_EQ(r.result.verdict, VerdictKind::Mismatch) << r.result.summary;
  EXPECT_EQ(r.signature.pass, "tvm:fuse-ops") << r.signature.text();
  EXPECT_NE(r.result.details.find("the Relax module TVM imported"), std::string::npos)
      << r.result.details;
}

TEST(TvmBackend, WhatItsFrontendRefusesIsUnsupportedNotAFinding) {
  const CaseReport r = runPatched(
      kDivisions,
      writePatch("refuse_all.py",
                 "from tvm.relax.frontend.torch import exported_program_translator as t\n"
                 "def refuse(*args, **kwargs):\n"
                 "    raise ValueError(\"Unsupported function types ['planted.default']\")\n"
                 "t.ExportedProgramImporter.from_exported_program = refuse\n"));
  EXPECT_EQ(r.result.verdict, VerdictKind::Unsupported) << r.result.summary;
  EXPECT_NE(r.result.message.find("tvm's torch frontend refuses the program: Unsupported "
                                  "function types ['planted.default']"),
            std::string::npos)
      << r.result.message;
}

// A TVM check that fails while building is a compile-error signed by the
// stage, its type and the check's message with its numbers left out (as
// for Inductor and IREE, a compile-error is not rerun for switch blame: its
// message names it).
TEST(TvmBackend, AnErrorWhileBuildingIsACompileErrorSignedWithoutNumbers) {
  const CaseReport r = runPatched(
      kDivisions, writePatch("raise_in_fold_constant.py",
                             "import tvm\n"
                             "from tvm import relax\n"
                             "@tvm.transform.module_pass(opt_level=0, name='FoldConstant')\n"
                             "def planted(mod, ctx):\n"
                             "    raise tvm.error.InternalError("
                             "'Check failed: (x == 77) is false: planted at 0x1234')\n"
                             "relax.transform.FoldConstant = lambda *a, **k: planted\n"));
  EXPECT_EQ(r.result.verdict, VerdictKind::CompileError) << r.result.summary;
  EXPECT_NE(
      r.signature.text().find("tvm build: InternalError: Check failed: (x == N) is false: planted "
                              "at N"),
      std::string::npos)
      << r.signature.text();
}

TEST(TvmBackend, AMissingPythonIsNamedWithWhereToRead) {
  RunConfig config;
  std::string error;
  EXPECT_FALSE(configureTorchBackend(config, "/bin/false", error, BackendKind::Tvm));
  EXPECT_NE(error.find("cannot import torch and tvm's Relax frontend"), std::string::npos) << error;
  EXPECT_NE(error.find("docs/toolchains.md#tvm"), std::string::npos) << error;
}
