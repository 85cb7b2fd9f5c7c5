//===- tests/backend/PtoHarnessTest.cpp - The pto backend's own parts -----===//
//
// What --backend pto writes and reads itself, tested without ptoas or
// pto-isa: the harness around a kernel, the task wrappers and orchestration
// --backend simpler writes (compiled here against stand-ins for the three
// declarations of simpler's headers they use) (compiled here against a kernel
// this test writes, with the machine's clang++-22), the T-ops the trace
// shim cannot see, and the pipe trace's text. The race analysis and the
// emitter have tests of their own (tests/oracles/RaceAnalysisTest.cpp,
// tests/integrations/EmitterGoldenTest.cpp).
//
//===----------------------------------------------------------------------===//
#include "backend/KernelTrace.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/KernelHarness.h"
#include "backend/pto/SimplerSources.h"
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

/// kChainKernels' arguments: task 0 on 3 blocks by scalar stores, from the
/// input into the GM tensor between the tasks; task 1 on 2 blocks by tiles,
/// from there into the output, with a 4x8 runtime valid shape.
KernelBuffers chainBuffers() {
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
  return b;
}

/// A chain of two tasks, the second reading the first's value and an input.
const char *const kTwoTaskCase = R"(npufuzz-case 1
data seed=2 edge_rate=0
%0 = input : f32[4,8]
task t0 blocks=3 store=scalar
%1 = exp %0 : f32[4,8]
task t1 blocks=2 store=tile
%2 = neg %1 : f32[4,8]
%3 = neg %0 : f32[4,8]
return %2, %3
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
    KernelBuffers b = chainBuffers();
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
  const Case c = npufuzz::testing::parseOrFail(kTwoTaskCase);
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

/// simpler's headers as a task wrapper uses them: ChipTensor's buffer
/// address and offset, the block index (here args[31]), and pto-isa's CPU
/// stub, which has no dcci. tests/integrations/SimplerBackendTest.cpp runs
/// the wrappers on simpler itself where it is found.
const char *const kSimplerStandIns[][2] = {
    {"tensor.h", "#include <cstdint>\nstruct ChipTensor { struct { uint64_t addr; } buffer; "
                 "uint64_t start_offset; };\n"},
    {"intrinsic.h", "inline int32_t get_block_idx(int64_t *args) { return "
                    "static_cast<int32_t>(args[31]); }\n"},
    {"pto/pto-inst.hpp", "#define PTO_CPUSTUB_HPP\n"},
};

/// Runs one task wrapper as simpler would: kernel_entry once per block, its
/// args the ChipTensors of the files named after the block count.
const char *const kSimplerDriver = R"(
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "tensor.h"
extern "C" void kernel_entry(int64_t *args);
int main(int argc, char **argv) {
  const int blocks = std::atoi(argv[1]);
  std::vector<std::vector<unsigned char>> data;
  for (int k = 2; k < argc; ++k) {
    std::FILE *f = std::fopen(argv[k], "rb");
    std::vector<unsigned char> bytes(1 << 16);
    bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
    std::fclose(f);
    data.push_back(bytes);
  }
  std::vector<ChipTensor> tensors(data.size());
  int64_t args[32] = {};
  for (size_t k = 0; k < data.size(); ++k) {
    tensors[k].buffer.addr = reinterpret_cast<uint64_t>(data[k].data());
    tensors[k].start_offset = 0;
    args[k] = reinterpret_cast<int64_t>(&tensors[k]);
  }
  for (int blk = blocks - 1; blk >= 0; --blk) { // any order the runtime picks
    args[31] = blk;
    kernel_entry(args);
  }
  for (size_t k = 0; k < data.size(); ++k) {
    std::FILE *f = std::fopen(argv[k + 2], "wb");
    std::fwrite(data[k].data(), 1, data[k].size(), f);
    std::fclose(f);
  }
  return 0;
}
)";

/// The sources --backend simpler writes for `b`.
std::map<std::string, std::string> simplerFiles(const KernelBuffers &b) {
  std::map<std::string, std::string> files;
  std::string reason;
  EXPECT_TRUE(simplerSources(b, files, reason)) << reason;
  return files;
}

// simpler's task wrappers run ptoas's functions as the harness does: each
// block calls the task's function with its stage and writes its share of
// what the task hands on, so that a chain's outputs are the same whichever
// runs it, on however many blocks.
TEST(SimplerSources, EachTaskWrapperRunsItsFunctionOnEachBlockIntoItsShare) {
  const std::string dir =
      (fs::temp_directory_path() / ("npufuzz-simpler-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir + "/pto");
  std::ofstream(dir + "/kernel.cpp") << kChainKernels;
  std::ofstream(dir + "/driver.cpp") << kSimplerDriver;
  for (const auto &[name, text] : kSimplerStandIns)
    std::ofstream(dir + "/" + name) << text;
  const std::map<std::string, std::string> files = simplerFiles(chainBuffers());
  for (const auto &[name, text] : files)
    std::ofstream(dir + "/" + name) << text;
  ASSERT_TRUE(files.count("task0.cpp") && files.count("task1.cpp"));
  ExternalToolchain limits;
  limits.timeoutSeconds = 300;
  for (const char *task : {"task0", "task1"}) {
    const CommandEnd built =
        runCommand(limits,
                   {"clang++-22", "-std=c++17", "-D__aicore__=", "-I", dir,
                    dir + "/" + task + ".cpp", dir + "/driver.cpp", "-o", dir + "/" + task},
                   dir + "/cxx.out", dir + "/cxx.err");
    ASSERT_TRUE(built.kind == CommandEnd::Kind::Exited && built.exitCode == 0) << task << ":\n"
                                                                               << built.stderrText;
  }
  // The GM tensors as the adapter makes them: the host's from their files,
  // the one between the tasks and the stages from the poison.
  float in[32], out[32];
  for (int e = 0; e < 32; ++e)
    in[e] = static_cast<float>(e), out[e] = -1.0f;
  std::ofstream(dir + "/g0", std::ios::binary).write(reinterpret_cast<char *>(in), 128);
  std::ofstream(dir + "/g1", std::ios::binary).write(reinterpret_cast<char *>(out), 128);
  std::ofstream(dir + "/g2", std::ios::binary) << std::string(128, '\xA5');
  // Each block's slice of a stage holds each value on lines of its own.
  std::ofstream(dir + "/s0", std::ios::binary) << std::string(3 * 128, '\xA5');
  std::ofstream(dir + "/s1", std::ios::binary) << std::string(2 * 128, '\xA5');
  for (const std::vector<std::string> &argv :
       {std::vector<std::string>{dir + "/task0", "3", dir + "/g0", dir + "/g2", dir + "/s0"},
        std::vector<std::string>{dir + "/task1", "2", dir + "/g2", dir + "/g1", dir + "/s1"}}) {
    const CommandEnd ran = runCommand(limits, argv, dir + "/run.out", dir + "/run.err");
    ASSERT_TRUE(ran.kind == CommandEnd::Kind::Exited && ran.exitCode == 0) << ran.stderrText;
  }
  const std::string got = slurp(dir + "/g1");
  ASSERT_EQ(got.size(), 128u);
  for (int e = 0; e < 32; ++e) {
    float v;
    std::memcpy(&v, got.data() + 4 * e, 4);
    EXPECT_EQ(v, in[e] * 2.0f + 1.0f) << "element " << e;
  }
  fs::remove_all(dir);
}

// The orchestration submits a task per task, in the harness's order, each
// on its blocks with the GM tensors it reads, writes and stages in; what
// the adapter allocates and writes back is in simpler.json.
TEST(SimplerSources, TheOrchestrationSubmitsEachTaskOnItsBlocks) {
  const Case c = npufuzz::testing::parseOrFail(kTwoTaskCase);
  const std::map<std::string, std::string> files = simplerFiles(kernelBuffers(c));
  ASSERT_EQ(files.size(), 4u); // two tasks, the orchestration, simpler.json
  const std::string &orch = files.at("orchestration.cpp");
  // GM: input, two outputs, the value t0 hands on; then a stage per task.
  EXPECT_NE(orch.find(".expected_arg_count = 6"), std::string::npos) << orch;
  const size_t first = orch.find("t.add_input(g0);\n    t.add_output(g3);\n    t.add_output(g4);\n"
                                 "    t.launch_spec.set_block_num(3);\n    "
                                 "rt_submit_aiv_task(0, t);");
  const size_t second = orch.find("t.add_input(g3);\n    t.add_input(g0);\n    t.add_output(g1);\n"
                                  "    t.add_output(g2);\n    t.add_output(g5);\n"
                                  "    t.launch_spec.set_block_num(2);\n    "
                                  "rt_submit_aiv_task(1, t);");
  EXPECT_NE(first, std::string::npos) << orch;
  EXPECT_NE(second, std::string::npos) << orch;
  EXPECT_LT(first, second);
  const std::string &json = files.at("simpler.json");
  // Stages: 3 blocks of one 128-byte value, 2 blocks of two.
  EXPECT_NE(json.find("\"bytes\": 384"), std::string::npos) << json;
  EXPECT_NE(json.find("\"bytes\": 512"), std::string::npos) << json;
  EXPECT_NE(json.find("\"write_back\": \"arg1.bin\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"write_back\": \"arg2.bin\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"write_back\": \"arg0.bin\""), std::string::npos) << json;
  EXPECT_NE(files.at("task0.cpp").find("npfCall<2>(&npf_task0, bufs, ints);"), std::string::npos);
  EXPECT_NE(files.at("task1.cpp").find("npfCall<4>(&npf_task1, bufs, ints);"), std::string::npos);

  // A case that is one kernel is one task on one block, storing into its
  // outputs with no stage.
  const Case one = npufuzz::testing::parseOrFail(R"(npufuzz-case 1
%0 = input : f32[4,8]
%1 = exp %0 : f32[4,8]
return %1
)");
  const std::map<std::string, std::string> single = simplerFiles(kernelBuffers(one));
  ASSERT_EQ(single.size(), 3u);
  EXPECT_NE(single.at("task0.cpp").find("npfCall<2>(&npf_kernel, bufs, ints);"), std::string::npos);
  EXPECT_EQ(single.at("task0.cpp").find("= get_block_idx(args);"), std::string::npos);
  EXPECT_NE(single.at("orchestration.cpp").find("set_block_num(1)"), std::string::npos);
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
