//===- tests/backend/TaskFunctionsTest.cpp - A chain's tasks as functions -===//
//
// The affine and tensor styles make each task of a chain a function of its
// own, called by the entry in an order the graph allows: valid bounds a
// task is given at run time cross into the next task and back out, and a
// value two later tasks read crosses twice. Every order, pipeline and the
// inliner joining the tasks again must agree with the reference.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/LoweringPlan.h"
#include "backend/mlir/MlirEmitter.h"
#include "backend/mlir/MlirJit.h"
#include "ir/Text.h"
#include "oracles/CaseRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

using namespace npufuzz;

namespace {
// Three tasks: a runtime valid shape into the first two, which the graph
// lets run in either order; the last reads both, and a set_validshape of
// runtime dims in it makes an output.
const char *kChain = R"(npufuzz-case 1
data seed=1400000 edge_rate=0.05
%0 = input {fill=rand} : bf16[64,1]{valid=7x1,dyn}
task t0 blocks=4 store=tile
%1 = sub %0, %0 : bf16[64,1]{valid=7x1,dyn}
task t1 blocks=1 store=tile
%2 = neg %0 : bf16[64,1]{valid=7x1,dyn}
task t2 blocks=4 store=scalar
%3 = row_expand_div %2, %1 : bf16[64,1]{valid=7x1,dyn}
%4 = row_expand_mul %3, %3 : bf16[64,1]{valid=7x1,dyn}
%5 = set_validshape %4 : bf16[64,1]{valid=1x1,dyn}
%6 = input {fill=rand} : bf16[1,1]
%7 = col_expand_max %2, %6 : bf16[64,1]{valid=7x1,dyn}
return %5, %7
)";

/// The first lowering seed whose plan runs the tasks in `order`.
uint64_t seedWith(TaskOrder order) {
  uint64_t s = 1;
  while (LoweringPlan::draw(s).tasks != order)
    ++s;
  return s;
}

size_t count(const std::string &text, const std::string &pattern) {
  const std::regex re(pattern);
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}
} // namespace

TEST(TaskFunctions, EachTaskIsAFunctionTheEntryCallsInAnOrderTheGraphAllows) {
  Case c;
  TextError error;
  ASSERT_TRUE(parseCase(kChain, c, error)) << error.message;
  MlirJit jit;
  for (const MlirStyle style : {MlirStyle::Affine, MlirStyle::Tensor})
    for (const TaskOrder order : {TaskOrder::CaseOrder, TaskOrder::LastReady}) {
      RunConfig config;
      config.style = style;
      config.loweringSeed = seedWith(order);
      const std::string where =
          std::string(mlirStyleName(style)) + " " + std::string(formName(order)) + ": ";
      MlirKernel kernel;
      std::string unsupported;
      ASSERT_TRUE(emitMlir(c, emitOptionsOf(config), kernel, unsupported)) << unsupported;
      EXPECT_EQ(count(kernel.text, "func.func private @npf_task[0-9]+\\("), 3u)
          << where << kernel.text;
      EXPECT_EQ(count(kernel.text, "func.call @npf_task[0-9]+\\("), 3u) << where << kernel.text;
      // t0 and t1 are ready at once: the case's order runs t0 first, the
      // other order t1; t2 waits for both.
      const size_t t0 = kernel.text.find("func.call @npf_task0(");
      const size_t t1 = kernel.text.find("func.call @npf_task1(");
      EXPECT_EQ(t0 < t1, order == TaskOrder::CaseOrder) << where << kernel.text;
      EXPECT_LT(std::max(t0, t1), kernel.text.find("func.call @npf_task2(")) << where;
      for (const std::string pipeline :
           {"O0", "O2", "inline,func.func(canonicalize),func.func(cse)"}) {
        config.pipeline = pipeline;
        const CaseOutcome out = runCase(c, jit, config);
        EXPECT_EQ(out.verdict, VerdictKind::Ok) << where << pipeline << ": " << out.summary << "\n"
                                                << out.run.message;
      }
    }
}
