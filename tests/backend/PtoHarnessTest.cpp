//===- tests/backend/PtoHarnessTest.cpp - The pto backend's own parts -----===//
//
// What --backend pto writes and reads itself, tested without ptoas or
// pto-isa: the harness around a kernel (compiled here against a kernel
// this test writes, with the machine's clang++-22), the T-ops the trace
// shim cannot see, and the pipe trace's text. The race analysis and the
// emitter have tests of their own (tests/oracles/RaceAnalysisTest.cpp,
// tests/integrations/EmitterGoldenTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "backend/KernelTrace.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/KernelHarness.h"
#include "backend/pto/TraceShim.h"
#include "ir/Text.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace npufuzz;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// With `file` removed from `dir`, the harness `binary` there exits as the
/// machine's failure (a file it cannot read), never the kernel's.
void expectCannotRead(const std::string &dir, const std::string &binary, const std::string &file) {
  fs::remove(dir + "/" + file);
  ExternalToolchain limits;
  limits.timeoutSeconds = 300;
  const CommandEnd end =
      runCommand(limits, {dir + "/" + binary, dir}, dir + "/run.out", dir + "/run.err");
  EXPECT_EQ(end.exitCode, kExternalExitEnvironment) << end.stderrText;
  EXPECT_NE(end.stderrText.find("cannot read " + file), std::string::npos) << end.stderrText;
}

/// A stand-in for ptoas's output with its calling convention: pointers,
/// then the runtime valid shape. It adds the valid rows and columns of two
/// 4x8 f32 tiles and leaves the rest of the output alone, as TSTORE does.
const char *const kKernel = R"(
void npf_kernel(float *a, float *b, float *out, int32_t rows, int32_t cols) {
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t c = 0; c < cols; ++c)
      out[r * 8 + c] = a[r * 8 + c] + b[r * 8 + c];
}
)";

TEST(PtoHarness, BuffersAreTheInputsThenTheOutputsThenTheValidShapes) {
  Case c;
  TextError error;
  ASSERT_TRUE(parseCase(R"(npufuzz-case 1
%0 = input : f32[4,8]
%1 = input : f32[4,8]
%2 = add %0, %1 : f32[4,8]
%3 = set_validshape %2 : f32[4,8]{valid=3x5,dyn}
%4 = fillpad %3 {pad=zero} : f32[4,8]
return %4
)",
                        c, error))
      << error.format("case");
  const KernelBuffers b = kernelBuffers(c);
  EXPECT_EQ(b.bytes, (std::vector<size_t>{128, 128, 128}));
  EXPECT_EQ(b.isOutput, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(b.ints, (std::vector<int64_t>{3, 5}));
}

// The harness reads argK.bin, passes the valid shape, calls the kernel once
// and writes back only the outputs; built into a batch, the same kernel
// answers the same by its index.
TEST(PtoHarness, AHarnessRunsItsKernelOnTheCasesBuffers) {
  const std::string dir =
      (fs::temp_directory_path() / ("npufuzz-harness-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  KernelBuffers b;
  b.bytes = {128, 128, 128};
  b.isOutput = {false, false, true};
  b.ints = {3, 5};
  std::ofstream(dir + "/kernel.cpp") << kKernel;
  std::ofstream(dir + "/k0.cpp") << kKernel;
  std::ofstream(dir + "/k1.cpp") << kKernel;
  // What pto-isa's headers would bring in before the kernel.
  std::ofstream(dir + "/prelude.h") << "#include <cstdint>\n#include <cstdio>\n#include "
                                       "<cstdlib>\n#include <type_traits>\n#include <utility>\n";
  std::ofstream(dir + "/single.cpp") << singleHarness(b, false);
  std::ofstream(dir + "/batch.cpp") << batchHarness({b, b}, false);
  ExternalToolchain limits;
  limits.timeoutSeconds = 300;
  for (const char *which : {"single", "batch"}) {
    const CommandEnd built =
        runCommand(limits,
                   {"clang++-22", "-std=c++17", "-include", dir + "/prelude.h", "-I", dir,
                    dir + "/" + which + ".cpp", "-o", dir + "/" + which},
                   dir + "/cxx.out", dir + "/cxx.err");
    ASSERT_TRUE(built.kind == CommandEnd::Kind::Exited && built.exitCode == 0) << which << ":\n"
                                                                               << built.stderrText;
  }
  float a[32], bb[32], out[32];
  for (int e = 0; e < 32; ++e) {
    a[e] = static_cast<float>(e);
    bb[e] = 100.0f;
    out[e] = -1.0f;
  }
  for (const std::vector<std::string> &argv :
       {std::vector<std::string>{dir + "/single", dir},
        std::vector<std::string>{dir + "/batch", dir, "1"}}) {
    std::ofstream(dir + "/arg0.bin", std::ios::binary).write(reinterpret_cast<char *>(a), 128);
    std::ofstream(dir + "/arg1.bin", std::ios::binary).write(reinterpret_cast<char *>(bb), 128);
    std::ofstream(dir + "/arg2.bin", std::ios::binary).write(reinterpret_cast<char *>(out), 128);
    const CommandEnd ran = runCommand(limits, argv, dir + "/run.out", dir + "/run.err");
    ASSERT_TRUE(ran.kind == CommandEnd::Kind::Exited && ran.exitCode == 0) << ran.stderrText;
    const std::string got = slurp(dir + "/arg2.bin");
    ASSERT_EQ(got.size(), 128u);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c) {
        float v;
        std::memcpy(&v, got.data() + 4 * (r * 8 + c), 4);
        EXPECT_EQ(v, r < 3 && c < 5 ? a[r * 8 + c] + 100.0f : -1.0f)
            << argv[0] << " " << r << "," << c;
      }
    // The inputs are not written back.
    EXPECT_EQ(slurp(dir + "/arg0.bin"), std::string(reinterpret_cast<char *>(a), 128));
  }
  // An input it cannot read is the machine's, not the kernel's.
  expectCannotRead(dir, "single", "arg1.bin");
  fs::remove_all(dir);
}

/// A chain's two tasks as ptoas would emit them: task 0 doubles its input
/// into what it hands on, task 1 adds 1 to that (all 32 elements; its
/// second parameter is the stage the harness gives it).
const char *const kChainKernels = R"(
void npf_task0(float *in, float *out) {
  for (int e = 0; e < 32; ++e)
    out[e] = in[e] * 2.0f;
}
void npf_task1(float *in, float *out, int32_t rows, int32_t cols) {
  for (int32_t e = 0; e < rows * cols; ++e)
    out[e] = in[e] + 1.0f;
}
)";

// A chain's harness runs each task on each of its blocks and writes each
// block's share of what the task hands on, by scalar stores or by DMA: the
// outputs are the chain's, whatever the blocks, the order of shares and a
// planted cache bug (which only a cache would notice).
TEST(PtoHarness, AChainsHarnessRunsEachTaskOnEachBlockIntoItsShares) {
  const std::string dir =
      (fs::temp_directory_path() / ("npufuzz-chain-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/kernel.cpp") << kChainKernels;
  std::ofstream(dir + "/prelude.h") << "#include <cstdint>\n#include <cstdio>\n#include "
                                       "<cstdlib>\n#include <type_traits>\n#include <utility>\n";
  ExternalToolchain limits;
  limits.timeoutSeconds = 300;
  for (const HarnessBug bug : {HarnessBug::None, HarnessBug::PackShares, HarnessBug::DropFlush}) {
    KernelBuffers b;
    b.bytes = {128, 128};
    b.isOutput = {false, true};
    b.ints = {4, 8};
    b.gmBytes = {128, 128, 128};
    b.gmElementBytes = {4, 4, 4};
    HarnessTask t0, t1;
    t0.task = 0, t0.blocks = 3, t0.store = TaskStore::Scalar, t0.reads = {0}, t0.writes = {2};
    t1.task = 1, t1.blocks = 2, t1.store = TaskStore::Tile, t1.reads = {2}, t1.writes = {1};
    t1.firstInt = 0, t1.numInts = 2;
    b.tasks = {t0, t1};
    b.bug = bug;
    std::ofstream(dir + "/chain.cpp") << singleHarness(b, false);
    const CommandEnd built = runCommand(limits,
                                        {"clang++-22", "-std=c++17", "-include", dir + "/prelude.h",
                                         "-I", dir, dir + "/chain.cpp", "-o", dir + "/chain"},
                                        dir + "/cxx.out", dir + "/cxx.err");
    ASSERT_TRUE(built.kind == CommandEnd::Kind::Exited && built.exitCode == 0)
        << harnessBugName(bug) << ":\n"
        << built.stderrText;
    float in[32], out[32];
    for (int e = 0; e < 32; ++e)
      in[e] = static_cast<float>(e), out[e] = -1.0f;
    std::ofstream(dir + "/arg0.bin", std::ios::binary).write(reinterpret_cast<char *>(in), 128);
    std::ofstream(dir + "/arg1.bin", std::ios::binary).write(reinterpret_cast<char *>(out), 128);
    std::ofstream(dir + "/poison.bin", std::ios::binary) << "\xA5\x5A\xA5\x5A";
    const CommandEnd ran =
        runCommand(limits, {dir + "/chain", dir}, dir + "/run.out", dir + "/run.err");
    ASSERT_TRUE(ran.kind == CommandEnd::Kind::Exited && ran.exitCode == 0) << ran.stderrText;
    const std::string got = slurp(dir + "/arg1.bin");
    ASSERT_EQ(got.size(), 128u);
    for (int e = 0; e < 32; ++e) {
      float v;
      std::memcpy(&v, got.data() + 4 * e, 4);
      EXPECT_EQ(v, in[e] * 2.0f + 1.0f) << harnessBugName(bug) << " element " << e;
    }
  }
  // The tensors between tasks start as the run's poison, which it must read.
  expectCannotRead(dir, "chain", "poison.bin");
  fs::remove_all(dir);
}

// A chain's GM tensors are the case's buffers, then what its tasks hand on
// that the case does not return; each task reads and writes them by number.
TEST(PtoHarness, AChainsGmTensorsAreItsBuffersThenWhatItsTasksHandOn) {
  const Case c = npufuzz::testing::parseOrFail(R"(npufuzz-case 1
data seed=2 edge_rate=0
%0 = input : f32[4,8]
task t0 blocks=3 store=scalar
%1 = exp %0 : f32[4,8]
task t1 blocks=2 store=tile
%2 = neg %1 : f32[4,8]
%3 = neg %0 : f32[4,8]
return %2, %3
)");
  const KernelBuffers b = kernelBuffers(c);
  EXPECT_EQ(b.bytes, (std::vector<size_t>{128, 128, 128}));
  EXPECT_EQ(b.gmBytes, (std::vector<size_t>{128, 128, 128, 128}));
  ASSERT_EQ(b.tasks.size(), 2u);
  // Data seed 2: the last ready task first, which is t0 alone here.
  EXPECT_EQ(b.tasks[0].task, 0);
  EXPECT_EQ(b.tasks[0].reads, (std::vector<size_t>{0}));
  EXPECT_EQ(b.tasks[0].writes, (std::vector<size_t>{3}));
  EXPECT_EQ(b.tasks[0].store, TaskStore::Scalar);
  EXPECT_EQ(b.tasks[1].reads, (std::vector<size_t>{3, 0}));
  EXPECT_EQ(b.tasks[1].writes, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(b.tasks[1].blocks, 2);
}

TEST(PtoHarness, TracedHarnessesWriteTheTraceAfterTheCall) {
  KernelBuffers b;
  b.bytes = {4, 4};
  b.isOutput = {false, true};
  const std::string traced = singleHarness(b, true), plain = singleHarness(b, false);
  EXPECT_NE(traced.find("::npf_trace::write(dir)"), std::string::npos);
  EXPECT_EQ(plain.find("npf_trace"), std::string::npos);
  EXPECT_LT(traced.find("npfCall<2>(&npf_kernel"), traced.find("::npf_trace::write(dir)"));
}

// The shim traces T-ops by function-like macros: a call with explicit
// template arguments, or a T-op it has no pipe for, is reported, and a
// kernel with any is run without the race oracle.
TEST(PtoHarness, UntracedOpsAreTheCallsTheShimCannotSee) {
  EXPECT_TRUE(untracedOps("TADD(t0, t1, t2);\nTLOAD(t0, g0);\npto::Shape<1, 2> s;\n").empty());
  EXPECT_EQ(untracedOps("TLOAD<Tile<1>, G>(t0, g0);\nTNOSUCHOP(t0);\nTADD(t0, t1, t2);\n"),
            (std::vector<std::string>{"TLOAD<...>", "TNOSUCHOP"}));
}

TEST(KernelTrace, EachEventKindIsReadBack) {
  std::vector<TraceEvent> events;
  std::string error;
  ASSERT_TRUE(parseKernelTrace("I TLOAD 4 12 2 0 0 256 0 1 0 256 1\n"
                               "S 4 1 0 13\n"
                               "W 4 1 0 14\n"
                               "B 7 15\n",
                               events, error))
      << error;
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].kind, TraceEvent::Kind::Instruction);
  EXPECT_EQ(events[0].name, "TLOAD");
  EXPECT_EQ(events[0].pipe, Pipe::MTE3);
  EXPECT_EQ(events[0].line, 12);
  ASSERT_EQ(events[0].accesses.size(), 2u);
  EXPECT_EQ(events[0].accesses[1].memory, Memory::UB);
  EXPECT_TRUE(events[0].accesses[1].write);
  EXPECT_EQ(events[0].accesses[1].end, 256u);
  EXPECT_EQ(events[1].kind, TraceEvent::Kind::SetFlag);
  EXPECT_EQ(events[2].kind, TraceEvent::Kind::WaitFlag);
  EXPECT_EQ(events[2].src, Pipe::MTE3);
  EXPECT_EQ(events[2].dst, Pipe::V);
  EXPECT_EQ(events[3].kind, TraceEvent::Kind::Barrier);
  EXPECT_EQ(events[3].pipe, Pipe::FIX);
}

TEST(KernelTrace, ATornLastLineIsRefusedByNumber) {
  std::vector<TraceEvent> events;
  std::string error;
  EXPECT_FALSE(parseKernelTrace("S 4 1 0 13\nI TLOAD 4 12 2 0 0 256", events, error));
  EXPECT_NE(error.find("trace.txt line 2 "), std::string::npos) << error;
}

} // namespace
