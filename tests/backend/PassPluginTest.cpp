//===- tests/backend/PassPluginTest.cpp - Planted faults are blamed -------===//
#include "backend/mlir/MlirEmitter.h"
#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "driver/VerifyPipeline.h"
#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/PassBlame.h"
#include "reference/Executor.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace npufuzz;

namespace {
/// The emitted MLIR of a corpus case, in a temporary file.
std::string emittedKernelFile(const std::string &corpusCase) {
  Case c;
  TextError err;
  EXPECT_TRUE(parseCaseFile(npufuzz::testing::sourceDir() + "/corpus/seeds/" + corpusCase, c, err))
      << err.format(corpusCase);
  MlirKernel kernel;
  std::string unsupported;
  EXPECT_TRUE(emitMlir(c, MlirEmitOptions(), kernel, unsupported)) << unsupported;
  const std::string path =
      (std::filesystem::temp_directory_path() / (corpusCase + ".mlir")).string();
  std::ofstream(path) << kernel.text;
  return path;
}

VerifyPipelineReport verify(const std::string &file, const std::string &pipeline) {
  VerifyPipelineOptions options;
  options.file = file;
  options.pipeline = pipeline;
  options.passPlugins = {NPUFUZZ_TEST_PLUGIN};
  return verifyPipelineFile(options);
}
} // namespace

TEST(PassPlugin, MiscompileIsBlamedOnExactlyThatPass) {
  // bf16_rne_cast adds two tensors, so the planted pass fires.
  const VerifyPipelineReport r =
      verify(emittedKernelFile("bf16_rne_cast.npf"),
             "func.func(canonicalize),func.func(cse),func.func(npufuzz-test-miscompile),"
             "func.func(affine-loop-fusion),func.func(canonicalize)");
  EXPECT_EQ(r.verdict, "mismatch") << r.json();
  EXPECT_EQ(r.passIndex, 2) << r.json();
  EXPECT_EQ(r.passName, "func.func(npufuzz-test-miscompile)");
  EXPECT_TRUE(r.executed);
}

/// verify-pipeline through mlir-opt-22 with the test plugin.
VerifyPipelineOptions throughMlirOpt(const std::string &corpusCase, const std::string &pipeline) {
  VerifyPipelineOptions options;
  options.file = emittedKernelFile(corpusCase);
  options.pipeline = pipeline;
  options.passPlugins = {NPUFUZZ_TEST_PLUGIN};
  options.mlirOpt = "mlir-opt-22";
  return options;
}

TEST(PassPlugin, MiscompileIsBlamedThroughMlirOptToo) {
  const VerifyPipelineReport r = verifyPipelineFile(
      throughMlirOpt("bf16_rne_cast.npf", "func.func(cse),func.func(npufuzz-test-miscompile)"));
  EXPECT_EQ(r.verdict, "mismatch") << r.json();
  EXPECT_EQ(r.passIndex, 1) << r.json();
}

TEST(PassPlugin, AHangingPassInMlirOptIsAHangBlamedOnIt) {
  // The planted miscompile turns the kernel's addf into subf, on which the
  // planted hang spins.
  VerifyPipelineOptions options = throughMlirOpt(
      "bf16_rne_cast.npf", "func.func(npufuzz-test-miscompile),func.func(npufuzz-test-hang)");
  // Only the hanging run waits this long; the others must not race it.
  options.toolTimeoutSeconds = 20;
  const VerifyPipelineReport r = verifyPipelineFile(options);
  EXPECT_EQ(r.verdict, "timed-out") << r.json();
  EXPECT_EQ(r.passIndex, 1) << r.json();
}

TEST(PassPlugin, PlantedFaultIsSilentWithoutItsPattern) {
  // The floor/mod view case has no arith.addf: the planted pass must not fire.
  const VerifyPipelineReport r =
      verify(emittedKernelFile("floormod_views.npf"), "func.func(npufuzz-test-miscompile)");
  EXPECT_EQ(r.verdict, "ok") << r.json();
  EXPECT_TRUE(r.executed);
}

TEST(PassPlugin, BrokenIrIsBlamedWithDiagnosticAndIrAroundThePass) {
  const VerifyPipelineReport r = verify(emittedKernelFile("swiglu_chunk_prologue.npf"),
                                        "func.func(cse),func.func(npufuzz-test-break-verifier),"
                                        "func.func(canonicalize)");
  EXPECT_EQ(r.verdict, "verifier-error") << r.json();
  EXPECT_EQ(r.passIndex, 1);
  EXPECT_NE(r.diagnostic.find("arith.mulf"), std::string::npos) << r.diagnostic;
  EXPECT_NE(r.irBefore.find("arith.mulf"), std::string::npos);
  EXPECT_FALSE(r.irAfter.empty());
}

// A file with nothing verify-pipeline can drive (a dynamically shaped
// memref, an f64) is not-executed, with the reason, never ok: its passes
// kept the IR valid, and nothing says they kept its meaning.
TEST(PassPlugin, AFileWithNothingToRunIsNotExecutedNotOk) {
  const std::string file = ::testing::TempDir() + "/npufuzz-nothing-to-run.mlir";
  {
    std::ofstream out(file);
    out << "func.func @helper(%a: f64) -> f64 {\n"
           "  %0 = arith.addf %a, %a : f64\n"
           "  return %0 : f64\n"
           "}\n"
           "func.func @dynamic(%m: memref<?xf32>) {\n"
           "  return\n"
           "}\n";
  }
  const VerifyPipelineReport r = verify(file, "func.func(canonicalize)");
  EXPECT_EQ(r.verdict, "not-executed") << r.json();
  EXPECT_FALSE(r.executed);
  EXPECT_FALSE(r.notExecutedReason.empty());
  EXPECT_EQ(r.exitCode(), 0);
  std::remove(file.c_str());
}

// Any MLIR, not only what npufuzz emits: every public function whose
// parameters and results are tensors, memrefs or scalars is driven (through
// a wrapper), here a tensor function with a scalar and a scalar function.
VerifyPipelineReport verifyModule(const std::string &pipeline) {
  return verify(npufuzz::testing::sourceDir() + "/tests/backend/mlir/tensor_max_scalar.mlir",
                pipeline);
}

// A module without `module {}` around its functions is driven too.
TEST(PassPlugin, AScalarFunctionOfAnImplicitModuleIsExecuted) {
  const std::string file = ::testing::TempDir() + "/npufuzz-implicit-module.mlir";
  {
    std::ofstream out(file);
    out << "func.func @twice(%a: f32) -> f32 {\n"
           "  %0 = arith.addf %a, %a : f32\n"
           "  return %0 : f32\n"
           "}\n";
  }
  const VerifyPipelineReport r = verify(file, "func.func(canonicalize)");
  EXPECT_EQ(r.verdict, "ok") << r.json();
  EXPECT_EQ(r.entries, std::vector<std::string>{"twice"}) << r.json();
  std::remove(file.c_str());
}

TEST(PassPlugin, EveryPublicFunctionOnTensorsAndScalarsIsExecuted) {
  const VerifyPipelineReport r = verifyModule("func.func(canonicalize)");
  EXPECT_EQ(r.verdict, "ok") << r.json();
  EXPECT_TRUE(r.executed);
  EXPECT_EQ(r.entries, (std::vector<std::string>{"relu_max", "narrow"})) << r.json();
  EXPECT_GT(r.datasets, 2u * 3);
}

// Both rewrites are right on small random values; only edge data (NaN for
// one, inf or a value past f16's range for the other) tell.
TEST(PassPlugin, EdgeDataCatchesAMaximumfToMaxnumfRewrite) {
  const VerifyPipelineReport r = verifyModule("func.func(npufuzz-test-maxnumf)");
  EXPECT_EQ(r.verdict, "mismatch") << r.json();
  EXPECT_EQ(r.entry, "relu_max");
  EXPECT_EQ(r.passName, "func.func(npufuzz-test-maxnumf)");
}

TEST(PassPlugin, EdgeDataCatchesATruncfThatSaturates) {
  const VerifyPipelineReport r = verifyModule("func.func(npufuzz-test-saturating-truncf)");
  EXPECT_EQ(r.verdict, "mismatch") << r.json();
  EXPECT_EQ(r.entry, "narrow");
}

TEST(PassPlugin, AnEntryThatCannotBeDrivenSaysWhy) {
  VerifyPipelineOptions options;
  options.file = npufuzz::testing::sourceDir() + "/tests/backend/mlir/tensor_max_scalar.mlir";
  options.pipeline = "func.func(canonicalize)";
  options.entry = "helper_without_body";
  const VerifyPipelineReport r = verifyPipelineFile(options);
  EXPECT_EQ(r.verdict, "not-executed") << r.json();
  EXPECT_NE(r.notExecutedReason.find("@helper_without_body is a declaration, with no body"),
            std::string::npos)
      << r.json();
}

TEST(PassPlugin, AnAccessOutsideAMemrefIsNamedAndBlamed) {
  // The planted passes move the last subscript of each load (store) one
  // element on: verify-pipeline names the access outside its memref, with
  // the pass after which a bounds-checked run first makes one.
  const std::string file = emittedKernelFile("bf16_rne_cast.npf");
  const VerifyPipelineReport read =
      verify(file, "func.func(cse),func.func(npufuzz-test-load-past-end)");
  EXPECT_EQ(read.verdict, "out-of-bounds-read") << read.json();
  EXPECT_EQ(read.passName, "func.func(npufuzz-test-load-past-end)");
  EXPECT_NE(read.detail.find("memref.load"), std::string::npos) << read.json();
  const VerifyPipelineReport write = verify(file, "func.func(npufuzz-test-store-past-end)");
  EXPECT_EQ(write.verdict, "out-of-bounds-write") << write.json();
  EXPECT_EQ(write.passIndex, 0) << write.json();
}

namespace {
/// A kernel that multiplies (npufuzz-test-break-verifier fires on it), its
/// inputs and output types.
struct MulKernel {
  MlirKernel kernel;
  std::vector<TensorData> inputs;
  std::vector<TensorType> outputTypes;
};

MulKernel mulKernel() {
  Case c;
  TextError err;
  EXPECT_TRUE(parseCase("npufuzz-case 1\ndata seed=1 edge_rate=0\n%a = input : f32[4,8]\n"
                        "%b = input : f32[4,8]\n%m = mul %a, %b : f32[4,8]\nreturn %m\n",
                        c, err))
      << err.format("case");
  MulKernel k;
  std::string unsupported;
  EXPECT_TRUE(emitMlir(c, MlirEmitOptions(), k.kernel, unsupported)) << unsupported;
  k.inputs = toTensorData(runReference(c).inputs);
  k.outputTypes = c.outputTypes();
  return k;
}

/// O0's elements with `element` put before element `at`.
std::vector<std::string> o0With(const std::string &element, size_t at) {
  Pipeline p;
  std::string error;
  EXPECT_TRUE(resolvePipeline("O0", MlirStyle::Affine, p, error)) << error;
  std::vector<std::string> elements = p.elements();
  elements.insert(elements.begin() + static_cast<std::ptrdiff_t>(at), element);
  return elements;
}
} // namespace

// The style's lowering and the tail run in groups of cached pass managers:
// a trusted element that breaks the IR inside a group is named for it, by
// the group's own marks (no stepwise rerun) as well as by the rerun, and
// the same way as when every element runs on its own.
TEST(PassPlugin, ATrustedElementThatBreaksTheIrIsNamedAsBefore) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const MulKernel k = mulKernel();
  // Element 1 of a group of trusted elements breaks the IR; later ones
  // (convert-vector-to-scf, ...) would run on it if nothing stopped them.
  const std::vector<std::string> elements = o0With("func.func(npufuzz-test-break-verifier)", 1);
  for (const bool grouped : {false, true})
    for (const bool locate : {false, true}) {
      JitOptions options;
      options.locateFailingPass = locate;
      if (grouped)
        options.userElements = std::pair<size_t, size_t>(elements.size(), 0);
      const BackendRun r = jit.run(k.kernel, elements, k.inputs, k.outputTypes, options);
      const std::string how = std::string(grouped ? "grouped" : "one at a time") +
                              (locate ? ", located" : "") + ": " + r.message;
      EXPECT_EQ(r.status,
                locate ? BackendRun::Status::VerifierError : BackendRun::Status::PassFailure)
          << how;
      EXPECT_EQ(r.passIndex, 1) << how;
      EXPECT_EQ(r.passName, "func.func(npufuzz-test-break-verifier)") << how;
      if (locate)
        EXPECT_NE(r.irBeforePass.find("arith.mulf"), std::string::npos) << how;
    }
  // As a campaign's worker runs it, the group verified once after its last
  // element: the stepwise rerun still names the element.
  JitOptions worker;
  worker.userElements = std::pair<size_t, size_t>(elements.size(), 0);
  worker.verifyTrustedElements = false;
  const BackendRun r = jit.run(k.kernel, elements, k.inputs, k.outputTypes, worker);
  EXPECT_EQ(r.status, BackendRun::Status::VerifierError) << r.message;
  EXPECT_EQ(r.passIndex, 1) << r.message;
}

// A warning from an element inside a group is kept with that element,
// not with the group's last.
TEST(PassPlugin, WhatATrustedElementSaysIsKeptWithItsElement) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const MulKernel k = mulKernel();
  const std::vector<std::string> elements = o0With("func.func(npufuzz-test-warn)", 2);
  JitOptions options;
  options.userElements = std::pair<size_t, size_t>(0, 0); // every element trusted
  const BackendRun r = jit.run(k.kernel, elements, k.inputs, k.outputTypes, options);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NE(r.passWarnings.find("after pass 2 (func.func(npufuzz-test-warn)):\n"),
            std::string::npos)
      << r.passWarnings;
  EXPECT_NE(r.passWarnings.find("npufuzz-test-warn saw this function"), std::string::npos);
}
