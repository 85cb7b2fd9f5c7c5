//===- tests/integrations/PyptoBackendTest.cpp - The user's PyPTO ---------===//
//
// A case written as a PyPTO program, through the user's PyPTO (its passes
// and PTO code generation), then ptoas and pto-isa's CPU simulator. Without
// PyPTO, ptoas and pto-isa the runs are skipped with the reason; what is
// written is checked everywhere.
//
//===----------------------------------------------------------------------===//
#include "backend/pto/PyptoBackend.h"
#include "backend/emit/PyptoEmitter.h"
#include "backend/toolchains/BackendToolchains.h"
#include "backend/toolchains/Toolchain.h"
#include "oracles/CaseRunner.h"
#include "tests/TestSupport.h"
#include "tests/integrations/ToolchainsFound.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
using npufuzz::testing::parseOrFail;

const std::string &pyptoUnavailable() {
  static const std::string why = npufuzz::testing::toolchainsMissing(
      {ToolchainKind::Pypto, ToolchainKind::Ptoas, ToolchainKind::PtoIsa});
  return why;
}

#define NPUFUZZ_NEEDS_PYPTO() NPUFUZZ_SKIP_UNLESS_FOUND("PyPTO", pyptoUnavailable())

CaseOutcome run(const std::string &text) {
  RunConfig config;
  config.backend = BackendKind::Pypto;
  config.metamorphicShare = 0;
  std::string error;
  EXPECT_TRUE(setUpPyptoToolchain(config.pto, error)) << error;
  MlirJit jit;
  return runCase(parseOrFail(text), jit, config);
}

// What PyPTO's user writes for a tile kernel: a load narrowed to a
// runtime valid shape and filled past it (seed 002's sequence, as PyPTO's
// paged attention writes it), tile ops, stores of the valid part; tensors
// first, then the index scalars, which is the order the PTO harness calls
// the kernel in.
const char *const kSeed002Like = R"(npufuzz-case 1
data seed=7 edge_rate=0
%0 = input {fill=rand} : f32[16,64]
%1 = input {fill=rand} : f32[16,1]
%2 = input {fill=rand} : f32[16,64]
%3 = set_validshape %2 : f32[16,64]{valid=9x40,dyn}
%4 = fillpad %3 {pad=min} : f32[16,64]
%5 = row_expand_mul %4, %1 : f32[16,64]
%6 = exp %5 : f32[16,64]
%7 = cast %6 {round=rne} : f16[16,64]
%8 = input {fill=rand} : f32[16,64]{valid=16x40}
%9 = sub %8, %8 : f32[16,64]{valid=16x40}
%10 = add %0, %0 : f32[16,64]
return %7, %9, %10
)";
} // namespace

TEST(PyptoBackend, ACaseIsWrittenAsPyptoWritesATileKernel) {
  std::string text, why;
  ASSERT_TRUE(emitPypto(parseOrFail(kSeed002Like), text, why)) << why;
  for (const char *needle :
       {"@pl.program", "def npf_kernel(", "a0: pl.Tensor[[16, 64], pl.FP32],",
        "o2: pl.Out[pl.Tensor[[16, 64], pl.FP32]],", "vr0: pl.Scalar[pl.INDEX],",
        "= pl.load(a2, [0, 0], [16, 64], valid_shapes=[vr0, vc0])",
        "= pl.tile.fillpad(v2, pad_value=pl.PadValue.min)", "v5 = pl.row_expand_mul(v4, v1)",
        "= pl.tile.cast(v6, target_type=pl.FP16, mode=\"rint\")",
        "= pl.load(a3, [0, 0], [16, 64], valid_shapes=[16, 40])", "pl.store(v7, [0, 0], o0)",
        "pl.store(v9, [0, 0], o1, shapes=[16, 40])", "-> tuple["})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  // Outputs come before the index scalars, as the harness passes them.
  EXPECT_LT(text.find("o2: pl.Out"), text.find("vr0: pl.Scalar")) << text;
  EXPECT_EQ(text.find("set_validshape"), std::string::npos) << text;
  std::string unsupported;
  EXPECT_FALSE(emitPypto(parseOrFail(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[8,64]
%1 = transpose %0 {perm=[1,0]} : f32[64,8]
return %1
)"),
                         text, unsupported));
  EXPECT_NE(unsupported.find("pypto: views are not written"), std::string::npos) << unsupported;
  // PyPTO's users narrow a valid shape where they load a tile.
  EXPECT_FALSE(emitPypto(parseOrFail(R"(npufuzz-case 1
%0 = input {fill=rand} : f32[8,64]
%1 = exp %0 : f32[8,64]
%2 = set_validshape %1 : f32[8,64]{valid=3x20}
return %2
)"),
                         text, unsupported));
  EXPECT_NE(unsupported.find("where a tile is loaded"), std::string::npos) << unsupported;
}

// PyPTO's kernel, its tiles placed and reused by PyPTO, through ptoas at
// level 3 and pto-isa's simulator, with the oracles of --backend pto.
// (A load narrowed to a valid shape is not here: PyPTO moves the whole
// block into the narrowed tile, which pto-isa's TLOAD asserts against;
// docs/pto.md#pypto-as-the-frontend.)
TEST(PyptoBackend, PyptosKernelRunsExactThroughPtoasAndPtoIsa) {
  NPUFUZZ_NEEDS_PYPTO();
  const CaseOutcome out = run(R"(npufuzz-case 1
data seed=7 edge_rate=0
%0 = input {fill=rand} : f32[16,64]
%1 = input {fill=rand} : f32[16,1]
%2 = row_expand_mul %0, %1 : f32[16,64]
%3 = exp %2 : f32[16,64]
%4 = input {fill=rand} : f32[1,64]
%5 = col_expand_mul %3, %4 : f32[16,64]
%6 = cast %5 {round=rne} : f16[16,64]
%7 = neg %0 : f32[16,64]
return %6, %7
)");
  EXPECT_EQ(out.verdict, VerdictKind::Ok) << out.summary << "\n" << out.run.message;
}
