//===- tests/driver/BriefRunTest.cpp - What a report pastes of a brief's run ===//
//
// A report pastes what its brief printed without the paths of the machine
// it ran on, and nothing else of the text changes: a URL, a C++ or MLIR
// comment, a division and an MLIR type are no paths.
//
//===----------------------------------------------------------------------===//
#include "driver/BriefRun.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

using namespace npufuzz;

TEST(BriefRun, MachinePathsGoTheRestStays) {
  const std::string script = "/tmp/brief-x1/repro.py";
  const struct {
    const char *in, *out;
  } rows[] = {
      {"  File \"/tmp/brief-x1/repro.py\", line 3", "  File \"repro.py\", line 3"},
      {"  File \"/root/.cache/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py\"",
       "  File \"site-packages/torch/_dynamo/eval_frame.py\""},
      {"/usr/lib/python3/dist-packages/tvm/ir/transform.py:12",
       "dist-packages/tvm/ir/transform.py:12"},
      {"/tmp/brief-x1/k.mlir:7:11: error: CHECK", "k.mlir:7:11: error: CHECK"},
      {"[/home/alice/work/a.py]", "[a.py]"},
      {"see https://github.com/pytorch/pytorch/issues/new",
       "see https://github.com/pytorch/pytorch/issues/new"},
      {"tmp0 = x0 // 4", "tmp0 = x0 // 4"},
      {"// CHECK: ( 4, 7 )", "// CHECK: ( 4, 7 )"},
      {"// -----// IR Dump After Canonicalizer //----- //",
       "// -----// IR Dump After Canonicalizer //----- //"},
      {"ratio 1/2 of a/b in tensor<2x1xf32>", "ratio 1/2 of a/b in tensor<2x1xf32>"},
      {"x = 3 / 4", "x = 3 / 4"},
  };
  for (const auto &row : rows)
    EXPECT_EQ(withoutMachinePaths(row.in, script), row.out) << row.in;
}

// Text with no '/' in it is what a brief printed, unchanged.
RC_GTEST_PROP(BriefRun, TextWithoutSlashesIsUnchanged, (std::string text)) {
  for (char &c : text)
    if (c == '/')
      c = '|';
  RC_ASSERT(withoutMachinePaths(text, "/tmp/x/repro.py") == text);
}

TEST(BriefRun, TheVersionsLineIsFoundPastAWarning) {
  EXPECT_EQ(versionsLine("W1129 15:19:49 cpp_extension.py:183] No CUDA runtime\ntorch 2.15.0 "
                         "tvm 0.27.0\noutput 0 differs\n"),
            "torch 2.15.0 tvm 0.27.0");
  EXPECT_EQ(versionsLine("iree 3.13.0rc20261016\n"), "iree 3.13.0rc20261016");
  EXPECT_EQ(versionsLine("Traceback (most recent call last):\n"), "");
}

TEST(BriefRun, AnExcerptKeepsTheFirstLineAndTheEnd) {
  std::string output = "torch 2.15.0\n";
  for (int k = 0; k < 100; ++k)
    output += "line " + std::to_string(k) + "\n";
  const std::string excerpt = outputExcerpt(output, 5);
  EXPECT_EQ(excerpt, "torch 2.15.0\n...\nline 98\nline 99\n");
  EXPECT_EQ(outputExcerpt("iree 3.13\nTraceback (most recent call last):\n" + output, 5),
            "iree 3.13\nTraceback (most recent call last):\n...\nline 98\nline 99\n");
  EXPECT_EQ(outputExcerpt("a\nb\n\n\n", 5), "a\nb\n");
}
