//===- tests/integrations/EmitterGoldenTest.cpp - Emitter golden files ----===//
//
// The PyTorch and PTO programs of the seed corpus are compared with golden
// files (NPUFUZZ_UPDATE_GOLDEN=1 rewrites them); the PyTorch programs must
// compile with python3 (torch itself is not needed to byte-compile).
//
//===----------------------------------------------------------------------===//
#include "backend/emit/PtoEmitter.h"
#include "backend/emit/PyTorchEmitter.h"
#include "ir/Text.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace npufuzz;

namespace {
const char *kSeeds[] = {"bf16_rne_cast",   "floormod_views",
                        "moe_expert_mask", "rowexpand_validshape_fillpad",
                        "route_chain",     "swiglu_chunk_prologue"};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Compares `text` with the golden file, or rewrites it when asked to.
void checkGolden(const std::string &path, const std::string &text) {
  if (std::getenv("NPUFUZZ_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  EXPECT_EQ(readFile(path), text) << path << " is stale; regenerate with NPUFUZZ_UPDATE_GOLDEN=1";
}

Case loadSeed(const std::string &name) {
  Case c;
  TextError error;
  const std::string path =
      std::string(NPUFUZZ_INTEGRATIONS_DIR) + "/../../corpus/seeds/" + name + ".npf";
  EXPECT_TRUE(parseCaseFile(path, c, error)) << error.format(path);
  return c;
}
} // namespace

TEST(EmitterGolden, PyTorchProgramsMatchAndCompile) {
  for (const char *name : kSeeds) {
    const Case c = loadSeed(name);
    std::string text, reason, again;
    ASSERT_TRUE(emitPyTorch(c, text, reason)) << name << ": " << reason;
    ASSERT_TRUE(emitPyTorch(c, again, reason));
    EXPECT_EQ(text, again) << "not deterministic";
    const std::string golden = std::string(NPUFUZZ_INTEGRATIONS_DIR) + "/golden/" + name + ".py";
    checkGolden(golden, text);
    const std::string cmd =
        "python3 -c \"import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')\" " +
        golden;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << golden << " does not parse";
  }
}

TEST(EmitterGolden, PtoKernelsMatchOrRefuse) {
  int emitted = 0;
  for (const char *name : kSeeds) {
    const Case c = loadSeed(name);
    std::string text, reason;
    const bool ok = emitPto(c, text, reason);
    // Refusals are golden too: they name what PTO lacks.
    checkGolden(std::string(NPUFUZZ_INTEGRATIONS_DIR) + "/golden/" + name + ".pto",
                ok ? text : "// unsupported: " + reason + "\n");
    emitted += ok;
  }
  EXPECT_GE(emitted, 1);
}

TEST(EmitterGolden, PtoSeed002UsesTheTileIsa) {
  const Case c = loadSeed("rowexpand_validshape_fillpad");
  std::string text, reason;
  ASSERT_TRUE(emitPto(c, text, reason)) << reason;
  for (const char *needle :
       {"pto.trowexpandmul ins(", "blayout=col_major", "pto.set_validshape %t2, %arg3, %arg4",
        "pto.tfillpad ins(", "pad=1>", "pto.tstore ins(", "!pto.ptr<f32>"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
}
