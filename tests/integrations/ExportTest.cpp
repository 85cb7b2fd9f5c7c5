//===- tests/integrations/ExportTest.cpp - Reproducers in the compiler's API ===//
//
// `npufuzz export` writes a case as a script its compiler's maintainers can
// run without npufuzz: for torch, TVM, IREE and PyTorchSim a Python script
// that exits 1 when the bug shows and 0 when it does not, for MLIR the
// kernel and the mlir-opt line of its pipeline. Each form is run here with
// the toolchain ci/test.sh installs (PyTorchSim where it is found): a bug
// live in it shows, a case without one does not.
//
//===----------------------------------------------------------------------===//
#include "driver/Export.h"
#include "backend/emit/PyTorchEmitter.h"
#include "backend/pytorchsim/DmaStart.h"
#include "backend/pytorchsim/PyTorchSimBackend.h"
#include "backend/toolchains/BackendToolchains.h"
#include "ir/Npy.h"
#include "ir/Text.h"
#include "reference/Executor.h"
#include "tests/TestSupport.h"
#include "tests/integrations/ToolchainsFound.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

using namespace npufuzz;

namespace {
std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The exit status of `argv`, its output to `log`.
int run(const std::vector<std::string> &argv, const std::string &log) {
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  const std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                      llvm::StringRef(log)};
  return llvm::sys::ExecuteAndWait(argv[0], args, std::nullopt, redirects, 900);
}

/// The exit status of `argv` run with `extra` added to the environment.
int runWith(const std::vector<std::string> &argv, const std::vector<std::string> &extra,
            const std::string &log) {
  std::vector<std::string> env(extra);
  for (char **e = environ; *e; ++e)
    env.emplace_back(*e);
  std::vector<llvm::StringRef> args(argv.begin(), argv.end()), envRefs(env.begin(), env.end());
  const std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                      llvm::StringRef(log)};
  return llvm::sys::ExecuteAndWait(argv[0], args, envRefs, redirects, 900);
}

/// `npufuzz export CASE --as FORM -o OUT`: its exit status.
int exportTo(const std::string &casePath, const std::string &form, const std::string &out) {
  return run({NPUFUZZ_BINARY, "export", casePath, "--as", form, "-o", out}, out + ".log");
}

std::string scratch() {
  const std::string dir = ::testing::TempDir() + "/npufuzz-export";
  std::filesystem::create_directories(dir);
  return dir;
}

std::string torchPython() {
  std::string python, error;
  EXPECT_TRUE(findTorchPython("", python, error)) << error;
  return python;
}

std::string tvmPython() {
  std::string python, error;
  EXPECT_TRUE(findTvmPython("", python, error)) << error;
  return python;
}

/// The Python that has IREE's compiler and runtime packages.
std::string ireePython() {
  std::string compiler, python, error;
  EXPECT_TRUE(findIreeTools("", "", compiler, python, error)) << error;
  return python;
}

std::string writeCase(const std::string &name, const std::string &text) {
  const std::string path = scratch() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// torch 2.15's remove_no_ops folds a matmul's zeros accumulator: -0 stays
// -0 where eager gives +0 (pytorch/pytorch#189799, open).
const std::string kSignedZeroMatmul =
    npufuzz::testing::sourceDir() + "/corpus/upstream/inductor/remove_no_ops_signed_zero.npf";
} // namespace

TEST(Export, ATorchScriptShowsALiveInductorBugAndNothingElse) {
  const std::string dir = scratch();
  ASSERT_EQ(exportTo(kSignedZeroMatmul, "torch-harness", dir + "/bug.py"), 0)
      << readFile(dir + "/bug.py.log");
  const std::string script = readFile(dir + "/bug.py");
  // Nothing of npufuzz is imported: the program, its data and the check
  // are in the file.
  EXPECT_EQ(script.find("npufuzz_"), std::string::npos);
  EXPECT_EQ(script.find("import case_loop"), std::string::npos);
  EXPECT_NE(script.find("torch.compile(kernel, backend=\"inductor\""), std::string::npos);
  EXPECT_EQ(run({torchPython(), dir + "/bug.py"}, dir + "/bug.out"), 1)
      << readFile(dir + "/bug.out");
  EXPECT_NE(readFile(dir + "/bug.out").find("expected 0.0, got -0.0"), std::string::npos)
      << readFile(dir + "/bug.out");
  // A seed case that Inductor gets right: the script says so with 0.
  const std::string seed = npufuzz::testing::sourceDir() + "/corpus/seeds/moe_expert_mask.npf";
  ASSERT_EQ(exportTo(seed, "torch-harness", dir + "/ok.py"), 0);
  EXPECT_EQ(run({torchPython(), dir + "/ok.py"}, dir + "/ok.out"), 0) << readFile(dir + "/ok.out");
  // Same case, same bytes.
  ASSERT_EQ(exportTo(seed, "torch-harness", dir + "/again.py"), 0);
  EXPECT_EQ(readFile(dir + "/again.py"), readFile(dir + "/ok.py"));
}

/// Runs `script` with `python`, a bug of tests/integrations/ planted first
/// (as the adapter plants it: the module run before the script).
int runPlanted(const std::string &python, const std::string &plant, const std::string &script,
               const std::string &log) {
  return run({python, "-c",
              "import os, runpy, sys\n"
              "# Inductor's caches would hand back what the unplanted compiler made.\n"
              "os.environ['TORCHINDUCTOR_FORCE_DISABLE_CACHES'] = '1'\n"
              "plant, script = sys.argv[1], sys.argv[2]\n"
              "sys.argv = [script]\n"
              "exec(compile(open(plant).read(), plant, 'exec'), {'__name__': 'plant'})\n"
              "runpy.run_path(script, run_name='__main__')\n",
              plant, script},
             log);
}

// The brief form, what a maintainer reads: under 40 lines, the compiled
// call beside eager, one comparison. It exits 1 with a bug planted in the
// compiler and 0 without it: Inductor's pattern matcher swapping a sub's
// operands when a view feeds it, and TVM's floor division skipping its
// remainder test.
TEST(Export, ABriefScriptShowsAPlantedBugAndNotItsAbsence) {
  const std::string dir = scratch();
  const std::string inductorCase = writeCase("view_sub.npf", "npufuzz-case 1\n"
                                                             "data seed=1 edge_rate=0\n"
                                                             "%0 = input : f32[4,8]\n"
                                                             "%1 = input : f32[4,4]\n"
                                                             "%2 = slice %0 {offsets=[0,4], "
                                                             "sizes=[4,4], strides=[1,1]} : "
                                                             "f32[4,4]\n"
                                                             "%3 = sub %2, %1 : f32[4,4]\n"
                                                             "return %3\n");
  const std::string tvmCase = writeCase("floordiv.npf", "npufuzz-case 1\n"
                                                        "%0 = input : i32[64]\n"
                                                        "%1 = input : i32[64]\n"
                                                        "%2 = div %0, %1 : i32[64]\n"
                                                        "return %2\n");
  const std::string source = npufuzz::testing::sourceDir() + "/tests/integrations/";
  const struct {
    const char *form, *plant;
    std::string casePath, python;
  } rows[] = {{"torch", "inductor/sub_swaps_view_operands.py", inductorCase, torchPython()},
              {"tvm", "tvm/fused_floordiv_skips_remainder.py", tvmCase, tvmPython()}};
  for (const auto &row : rows) {
    const std::string script = dir + "/brief_" + row.form + ".py";
    ASSERT_EQ(exportTo(row.casePath, row.form, script), 0) << readFile(script + ".log");
    const std::string text = readFile(script);
    EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 40) << text;
    EXPECT_EQ(text.find("npufuzz_"), std::string::npos);
    EXPECT_EQ(run({row.python, script}, script + ".out"), 0) << readFile(script + ".out");
    EXPECT_EQ(runPlanted(row.python, source + row.plant, script, script + ".planted"), 1)
        << readFile(script + ".planted");
    EXPECT_NE(readFile(script + ".planted").find("differs"), std::string::npos)
        << readFile(script + ".planted");
  }
}

// The brief IREE script: the tensor kernel, the flags, inputs and the
// expected values written out, one comparison. A live IREE bug (a gather at
// i + i read as contiguous) exits 1, a matmul IREE computes right 0.
TEST(Export, ABriefIreeScriptShowsALiveIreeBugAndNotACorrectKernel) {
  const std::string dir = scratch();
  const std::string bug = npufuzz::testing::sourceDir() +
                          "/corpus/upstream/iree/index_sum_with_itself_read_as_contiguous.npf";
  const std::string fine = writeCase("small_matmul.npf", "npufuzz-case 1\n"
                                                         "data seed=1 edge_rate=0\n"
                                                         "%0 = input : f32[4,2]\n"
                                                         "%1 = input : f32[2,4]\n"
                                                         "%2 = matmul %0, %1 : f32[4,4]\n"
                                                         "return %2\n");
  ASSERT_EQ(exportTo(bug, "iree", dir + "/iree_brief_bug.py"), 0)
      << readFile(dir + "/iree_brief_bug.py.log");
  EXPECT_EQ(readFile(dir + "/iree_brief_bug.py").find("npufuzz_"), std::string::npos);
  EXPECT_EQ(run({ireePython(), dir + "/iree_brief_bug.py"}, dir + "/iree_brief_bug.out"), 1)
      << readFile(dir + "/iree_brief_bug.out");
  ASSERT_EQ(exportTo(fine, "iree", dir + "/iree_brief_ok.py"), 0);
  EXPECT_EQ(run({ireePython(), dir + "/iree_brief_ok.py"}, dir + "/iree_brief_ok.out"), 0)
      << readFile(dir + "/iree_brief_ok.out");
  // The same matmul with a bug planted in IREE (tests/integrations/iree/:
  // under data tiling its inputs are demoted to bf16) exits 1. IREE's
  // Python API runs the iree-compile it finds first on IREE_TOOL_PATH:
  // there, the wrapper that plants it, around the package's own binary.
  const std::string tools = dir + "/planted-iree-tools", real = dir + "/real-iree-compile";
  std::filesystem::create_directories(tools);
  std::filesystem::remove(tools + "/iree-compile");
  std::filesystem::create_symlink(
      npufuzz::testing::sourceDir() +
          "/tests/integrations/iree/data_tiling_demotes_contractions.sh",
      tools + "/iree-compile");
  ASSERT_EQ(
      run({ireePython(), "-c",
           "import iree.compiler.tools.binaries as b; print(b._get_builtin_tool('iree-compile'))"},
          real),
      0)
      << readFile(real);
  std::string realPath = readFile(real);
  realPath.erase(realPath.find_last_not_of("\n") + 1);
  EXPECT_NE(readFile(dir + "/iree_brief_ok.py").find("--iree-opt-data-tiling=true"),
            std::string::npos);
  EXPECT_EQ(runWith({ireePython(), dir + "/iree_brief_ok.py"},
                    {"IREE_TOOL_PATH=" + tools, "NPUFUZZ_REAL_IREE_COMPILE=" + realPath},
                    dir + "/iree_brief_planted.out"),
            1)
      << readFile(dir + "/iree_brief_planted.out");
  EXPECT_NE(readFile(dir + "/iree_brief_planted.out").find("output 0 differs"), std::string::npos)
      << readFile(dir + "/iree_brief_planted.out");
}

namespace {
/// What a report must not carry to be filed as it is: a path of the machine
/// it ran on, npufuzz's name or its case files, a signature's hash.
std::string unfileable(const std::string &report) {
  static const std::regex kMachinePath(R"((^|[\s"'(=])/(tmp|work|root|home|usr|opt|var)/)");
  static const std::regex kHash("[a-z]-[0-9a-f]{16}\\b"); // a signature's id
  // Debian's LLVM libraries are where every user of mlir-runner-22 has
  // them: a brief's RUN line names them, as a maintainer runs it.
  std::string text = report;
  for (size_t at; (at = text.find("/usr/lib/llvm-22/lib/")) != std::string::npos;)
    text.erase(at, std::string("/usr/lib/llvm-22/lib/").size());
  std::smatch m;
  if (std::regex_search(text, m, kMachinePath))
    return "a machine's path: " + m.str();
  if (std::regex_search(text, m, kHash))
    return "a hash: " + m.str();
  for (const char *word : {"npufuzz", ".npf", "signature"})
    if (text.find(word) != std::string::npos)
      return std::string("npufuzz's own word: ") + word;
  return "";
}

/// The report of `path` (a case, or a finding directory), exported.
std::string reportOf(const std::string &path, const std::string &name,
                     const std::vector<std::string> &extra = {}) {
  const std::string out = scratch() + "/" + name;
  std::vector<std::string> argv = {NPUFUZZ_BINARY, "export", path, "--as", "report", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  EXPECT_EQ(run(argv, out + ".log"), 0) << readFile(out + ".log");
  return readFile(out);
}
} // namespace

// A report is filed as it is: the symptom for a title, the brief script,
// what it really printed here, what is expected, the versions; nothing of
// npufuzz or of this machine. A root the tracker has already is a comment
// for that issue.
TEST(Export, AReportReadsAsFiled) {
  const std::string upstream = npufuzz::testing::sourceDir() + "/corpus/upstream";
  // Live and new on TVM: the ledger's title, its committed brief, the
  // LLVM verifier's error pasted.
  const std::string tvm = reportOf(upstream + "/tvm/bool_not_equal_fcmp_i1.npf", "tvm.md");
  EXPECT_EQ(unfileable(tvm), "") << tvm;
  EXPECT_EQ(tvm.rfind("# [Bug][Relax] not_equal of two bool tensors", 0), 0) << tvm;
  for (const char *part : {"### Reproducer", "```python\n\"\"\"Apache TVM", "### Actual",
                           "Invalid operand types for FCmp instruction", "### Expected",
                           "torch 2.15.0", "### Analysis"})
    EXPECT_NE(tvm.find(part), std::string::npos) << part << "\n" << tvm;
  // Already reported: a comment for that issue, with the values it printed.
  const std::string torch =
      reportOf(upstream + "/inductor/index_by_arange_floordiv_drops_tail.npf", "torch.md");
  EXPECT_EQ(unfileable(torch), "") << torch;
  EXPECT_EQ(torch.rfind("<!-- a comment for pytorch/pytorch#195582, not a new issue -->\nSeen on "
                        "torch 2.15.0",
                        0),
            0)
      << torch;
  EXPECT_NE(torch.find("output 0 differs"), std::string::npos) << torch;
  EXPECT_NE(torch.find("### Versions and flags\n\ntorch 2.15.0"), std::string::npos) << torch;
  // An MLIR root, named by its id: its .mlir brief, its RUN line run, what
  // FileCheck said pasted, its CHECK lines for what is expected. One
  // already reported is a comment for the pull request that has it.
  const std::string mlir = reportOf("mlir-affine-loop-unroll-cleanup-shared-init", "mlir.md");
  EXPECT_EQ(unfileable(mlir), "") << mlir;
  for (const char *part : {"# [mlir][affine] affine-loop-unroll",
                           "```mlir\n// RUN: ", "error: CHECK: expected string not found",
                           "What its CHECK lines say", "MLIR 22.1.8"})
    EXPECT_NE(mlir.find(part), std::string::npos) << part << "\n" << mlir;
  const std::string fused = reportOf(
      "corpus/upstream/mlir/brief/affine_loop_fusion_ignores_memref_store.mlir", "fused.md");
  EXPECT_EQ(fused.rfind("<!-- a comment for llvm/llvm-project#196604, not a new issue -->\n", 0), 0)
      << fused;
  // A finding the ledger does not hold: a title of the compiler's error, and
  // of the flags the run had only those the bug needs (data tiling, which
  // IREE 3.13 leaves off), the others at IREE's defaults.
  const std::string finding = scratch() + "/iree-finding";
  std::filesystem::create_directories(finding);
  std::filesystem::copy_file(upstream + "/iree/data_tiling_packs_rank0_bitcast.npf",
                             finding + "/case.npf",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(finding + "/report.json") << "{\"backend\": \"iree\"}\n";
  std::ofstream(scratch() + "/empty-ledger.json") << "{\"format\": 1, \"roots\": []}\n";
  const std::string iree =
      reportOf(finding, "iree.md", {"--ledger", scratch() + "/empty-ledger.json"});
  EXPECT_EQ(unfileable(iree), "") << iree;
  EXPECT_EQ(iree.rfind("# IREE (llvm-cpu): ", 0), 0) << iree;
  EXPECT_NE(iree.substr(0, iree.find('\n')).find("tiling factors"), std::string::npos) << iree;
  EXPECT_NE(iree.find("FLAGS = [\"--iree-hal-target-device=local\", "
                      "\"--iree-hal-local-target-device-backends=llvm-cpu\", "
                      "\"--iree-opt-data-tiling=true\"]"),
            std::string::npos)
      << iree;
  // A case the ledger does not hold, with no finding's backend, names no
  // compiler: a clear error.
  EXPECT_EQ(exportTo(writeCase("loose.npf", "npufuzz-case 1\n%0 = input : f32[4]\n"
                                            "%1 = abs %0 : f32[4]\nreturn %1\n"),
                     "report", scratch() + "/loose.md"),
            2);
  EXPECT_NE(readFile(scratch() + "/loose.md.log").find("no compiler to report to"),
            std::string::npos)
      << readFile(scratch() + "/loose.md.log");
}

TEST(Export, ATvmScriptShowsALiveTvmBug) {
  const std::string dir = scratch();
  // apache-tvm 0.27: not_equal of two bool tensors is `fcmp one i1`, which
  // LLVM's verifier refuses.
  const std::string bug = writeCase("bool_ne.npf", "npufuzz-case 1\n"
                                                   "%0 = input : i1[16]\n"
                                                   "%1 = input : i1[16]\n"
                                                   "%2 = ne %0, %1 : i1[16]\n"
                                                   "return %2\n");
  ASSERT_EQ(exportTo(bug, "tvm-harness", dir + "/tvm_bug.py"), 0);
  EXPECT_EQ(run({tvmPython(), dir + "/tvm_bug.py"}, dir + "/tvm_bug.out"), 1)
      << readFile(dir + "/tvm_bug.out");
  EXPECT_NE(readFile(dir + "/tvm_bug.out").find("Invalid operand types for FCmp"),
            std::string::npos)
      << readFile(dir + "/tvm_bug.out");
  const std::string fine = writeCase("int_ne.npf", "npufuzz-case 1\n"
                                                   "%0 = input : i32[16]\n"
                                                   "%1 = input : i32[16]\n"
                                                   "%2 = ne %0, %1 : i1[16]\n"
                                                   "return %2\n");
  ASSERT_EQ(exportTo(fine, "tvm-harness", dir + "/tvm_ok.py"), 0);
  EXPECT_EQ(run({tvmPython(), dir + "/tvm_ok.py"}, dir + "/tvm_ok.out"), 0)
      << readFile(dir + "/tvm_ok.out");
}

// The IREE form: the tensor kernel the backend emits, iree-compile with
// the flags of the case's lowering seed, IREE's runtime.
TEST(Export, AnIreeScriptShowsALiveIreeBugAndNothingElse) {
  const std::string dir = scratch();
  // IREE 3.13's llvm-cpu erf gives +0 for -0 (the case of seed 700194).
  const std::string bug =
      npufuzz::testing::sourceDir() + "/corpus/upstream/iree/erf_negative_zero.npf";
  ASSERT_EQ(exportTo(bug, "iree-harness", dir + "/iree_bug.py"), 0)
      << readFile(dir + "/iree_bug.py.log");
  const std::string script = readFile(dir + "/iree_bug.py");
  EXPECT_EQ(script.find("npufuzz."), std::string::npos) << "it imports nothing of npufuzz";
  EXPECT_NE(script.find("--iree-opt-level="), std::string::npos) << script.substr(0, 2000);
  EXPECT_EQ(run({ireePython(), dir + "/iree_bug.py"}, dir + "/iree_bug.out"), 1)
      << readFile(dir + "/iree_bug.out");
  EXPECT_NE(readFile(dir + "/iree_bug.out").find("expected -0.0, got 0.0"), std::string::npos)
      << readFile(dir + "/iree_bug.out");
  // A valid shape travels as an argument, a reduction may be reassociated
  // within its bound: none is a difference.
  const std::string fine = writeCase("iree_ok.npf", "npufuzz-case 1\n"
                                                    "%0 = input : f32[8,16]{valid=5x16,dyn}\n"
                                                    "%1 = reduce_sum %0 {axis=1} : f32[8,1]\n"
                                                    "%2 = input : bf16[8,16]\n"
                                                    "%3 = neg %2 : bf16[8,16]\n"
                                                    "%4 = abs %0 : f32[8,16]{valid=5x16,dyn}\n"
                                                    "return %1, %3, %4\n");
  ASSERT_EQ(exportTo(fine, "iree-harness", dir + "/iree_ok.py"), 0)
      << readFile(dir + "/iree_ok.py.log");
  EXPECT_EQ(run({ireePython(), dir + "/iree_ok.py"}, dir + "/iree_ok.out"), 0)
      << readFile(dir + "/iree_ok.out");
}

// A machine without the script's modules cannot show the bug or its
// absence: every Python form exits 2 there, as a tool that cannot start
// does. `-I -S` keeps site-packages and PYTHONPATH (numpy, torch, TVM,
// IREE) out of reach.
TEST(Export, AScriptWithoutItsModulesExitsTwo) {
  const std::string dir = scratch();
  const std::string path = writeCase("plain_abs.npf", "npufuzz-case 1\n"
                                                      "%0 = input : f32[8]\n"
                                                      "%1 = abs %0 : f32[8]\n"
                                                      "return %1\n");
  const std::pair<const char *, std::string> forms[] = {
      {"torch", torchPython()},     {"tvm", tvmPython()},   {"torch-harness", torchPython()},
      {"tvm-harness", tvmPython()}, {"iree", ireePython()}, {"iree-harness", ireePython()}};
  for (const auto &[form, python] : forms) {
    const std::string script = dir + "/bare_" + form + ".py";
    ASSERT_EQ(exportTo(path, form, script), 0) << readFile(script + ".log");
    EXPECT_EQ(run({python, "-I", "-S", script}, script + ".out"), 2) << readFile(script + ".out");
    EXPECT_NE(readFile(script + ".out").find("is not installed"), std::string::npos)
        << readFile(script + ".out");
  }
}

// The PyTorchSim form puts PyTorchSim's dma_starts in generic form in
// Python, for upstream mlir-opt: on every kernel recorded from PyTorchSim
// it writes what npufuzz's own rewrite (backend/pytorchsim/DmaStart.h)
// writes, byte for byte. Needs only a Python.
TEST(Export, APyTorchSimScriptRewritesDmaStartsAsNpufuzzDoes) {
  const std::string dir = scratch();
  const std::string seed0 = npufuzz::testing::sourceDir() +
                            "/corpus/upstream/pytorchsim/seed000_ids_eq_arange_cmpi_index_i64.npf";
  ASSERT_EQ(exportTo(seed0, "pytorchsim", dir + "/ps.py"), 0) << readFile(dir + "/ps.py.log");
  const std::string script = readFile(dir + "/ps.py");
  const size_t from = script.find("class _Cursor:"), to = script.find("\n\ndef _mlir_opt");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  std::ofstream(dir + "/rewrite.py")
      << "import re\nimport sys\n\n\n"
      << script.substr(from, to - from)
      << "\n\nfor path in sys.argv[1:]:\n"
         "    with open(path) as f, open(path + '.generic', 'w') as out:\n"
         "        try:\n"
         "            out.write(_generic_dma_starts(f.read()))\n"
         "        except ValueError:\n"
         "            out.write('ValueError')\n";
  std::vector<std::string> argv = {torchPython(), dir + "/rewrite.py"};
  std::vector<std::string> kernels;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(
           npufuzz::testing::sourceDir() + "/tests/backend/pytorchsim"))
    if (entry.path().extension() == ".mlir") {
      const std::string copy = dir + "/" + entry.path().parent_path().filename().string() + "_" +
                               entry.path().filename().string();
      std::filesystem::copy_file(entry.path(), copy,
                                 std::filesystem::copy_options::overwrite_existing);
      kernels.push_back(copy);
      argv.push_back(copy);
    }
  ASSERT_GE(kernels.size(), 5u);
  // A dma_start in no form PyTorchSim writes: both refuse it (the script
  // then exits 2, not 1: it is no bug of PyTorchSim's it can show).
  const std::string odd = dir + "/odd_dma.mlir";
  std::ofstream(odd) << "func.func @kernel() {\n"
                        "  memref.dma_start %a[%i], %b : memref<4xf32>\n"
                        "  return\n}\n";
  argv.push_back(odd);
  ASSERT_EQ(run(argv, dir + "/rewrite.out"), 0) << readFile(dir + "/rewrite.out");
  for (const std::string &k : kernels) {
    std::string want, error;
    ASSERT_TRUE(genericDmaStarts(readFile(k), want, error)) << k << ": " << error;
    EXPECT_EQ(readFile(k + ".generic"), want) << k;
  }
  std::string generic, error;
  EXPECT_FALSE(genericDmaStarts(readFile(odd), generic, error));
  EXPECT_EQ(readFile(odd + ".generic"), "ValueError");
}

// A PyTorchSim finding read from its DMAs (the footprint oracle) has no
// script: the script would run no simulator and show nothing.
TEST(Export, APyTorchSimFootprintFindingIsNoScript) {
  const std::string dir = scratch();
  const std::string path = npufuzz::testing::sourceDir() +
                           "/corpus/upstream/pytorchsim/gemm_epilogue_drops_matmul_output.npf";
  EXPECT_EQ(exportTo(path, "pytorchsim", dir + "/footprint.py"), 2);
  EXPECT_NE(readFile(dir + "/footprint.py.log").find("footprint oracle"), std::string::npos)
      << readFile(dir + "/footprint.py.log");
}

// With the user's PyTorchSim found: seed 000's script shows the kernel
// MLIR refuses; a case PyTorchSim gets right gives 0.
TEST(Export, APyTorchSimScriptShowsSeedZerosBugAndNothingElse) {
  NPUFUZZ_SKIP_UNLESS_FOUND("PyTorchSim",
                            npufuzz::testing::toolchainsMissing(
                                {ToolchainKind::PyTorchSim, ToolchainKind::PyTorchSimPython}));
  PyTorchSimToolchain pytorchsim;
  std::string error;
  ASSERT_TRUE(setUpPyTorchSimToolchain(pytorchsim, error)) << error;
  const std::string dir = scratch();
  const std::string seed0 = npufuzz::testing::sourceDir() +
                            "/corpus/upstream/pytorchsim/seed000_ids_eq_arange_cmpi_index_i64.npf";
  ASSERT_EQ(exportTo(seed0, "pytorchsim", dir + "/ps_bug.py"), 0);
  EXPECT_EQ(run({pytorchsim.python, dir + "/ps_bug.py", pytorchsim.checkout}, dir + "/ps_bug.out"),
            1)
      << readFile(dir + "/ps_bug.out");
  EXPECT_NE(readFile(dir + "/ps_bug.out").find("expects different type than prior uses"),
            std::string::npos)
      << readFile(dir + "/ps_bug.out");
  const std::string fine = writeCase("ps_ok.npf", "npufuzz-case 1\n"
                                                  "%0 = input : f32[8,64]\n"
                                                  "%1 = input : f32[8,64]\n"
                                                  "%2 = add %0, %1 : f32[8,64]\n"
                                                  "return %2\n");
  ASSERT_EQ(exportTo(fine, "pytorchsim", dir + "/ps_ok.py"), 0);
  EXPECT_EQ(run({pytorchsim.python, dir + "/ps_ok.py", pytorchsim.checkout}, dir + "/ps_ok.out"), 0)
      << readFile(dir + "/ps_ok.out");
}

// A cast torch cannot round as the case says is the backend's
// `unsupported`: no script, which would only show the program's own raise.
TEST(Export, WhatTorchCannotWriteExactlyIsNoScript) {
  const std::string dir = scratch();
  const std::string path = writeCase("rtz_cast.npf", "npufuzz-case 1\n"
                                                     "%0 = input : i32[4]\n"
                                                     "%1 = cast %0 {round=rtz} : f32[4]\n"
                                                     "return %1\n");
  for (const char *form : {"torch", "tvm", "torch-harness", "tvm-harness"}) {
    EXPECT_EQ(exportTo(path, form, dir + "/rtz.py"), 2) << form;
    EXPECT_NE(readFile(dir + "/rtz.py.log").find("cast i32 -> f32 rounding rtz"), std::string::npos)
        << readFile(dir + "/rtz.py.log");
  }
}

// The MLIR form: the case's kernel in its style, with the passes of its
// pipeline on the RUN line, which Debian's mlir-opt runs.
TEST(Export, AnMlirFileCarriesItsPipeline) {
  const std::string dir = scratch();
  const std::string path = writeCase("affine_o2.npf", "// expect: ok style=affine pipeline=O2\n"
                                                      "npufuzz-case 1\n"
                                                      "%0 = input : f32[4,8]\n"
                                                      "%1 = transpose %0 {perm=[1,0]} : f32[8,4]\n"
                                                      "%2 = exp %1 : f32[8,4]\n"
                                                      "return %2\n");
  ASSERT_EQ(exportTo(path, "mlir", dir + "/repro.mlir"), 0) << readFile(dir + "/repro.mlir.log");
  const std::string text = readFile(dir + "/repro.mlir");
  const std::string marker = "// RUN: mlir-opt --pass-pipeline='builtin.module(";
  const size_t at = text.find(marker);
  ASSERT_NE(at, std::string::npos) << text;
  const size_t from = at + marker.size();
  const std::string pipeline = text.substr(from, text.find(")'", from) - from);
  EXPECT_NE(pipeline.find("affine-loop-fusion"), std::string::npos) << pipeline;
  const llvm::ErrorOr<std::string> opt = llvm::sys::findProgramByName("mlir-opt-22");
  ASSERT_TRUE(opt) << "mlir-opt-22 is not on PATH (ci/install-deps.sh installs it)";
  EXPECT_EQ(run({*opt, "--pass-pipeline=builtin.module(" + pipeline + ")", dir + "/repro.mlir",
                 "-o", dir + "/out.mlir"},
                dir + "/opt.log"),
            0)
      << readFile(dir + "/opt.log");
}

// The model form (PyTorchSim's programs, and its exported scripts) guards
// an integer divisor, as a model would, and must still compute the case:
// x div 0 is 0 in a case, and the form gave x, which PyTorchSim then
// computed faithfully, a false mismatch (development seed 9200227). Run
// with real torch on divisors -3..4, and against the reference.
/// Runs `text`'s model form with real torch; its outputs as the reference's
/// types, or false.
bool runModelForm(const std::string &text, const std::string &name, RefRun &ref,
                  std::vector<RefTensor> &got) {
  Case c;
  TextError parseError;
  EXPECT_TRUE(parseCase(text, c, parseError)) << parseError.message;
  ref = runReference(c);
  EXPECT_TRUE(ref.ok()) << ref.error;
  std::string program, reason, error;
  EXPECT_TRUE(emitPyTorch(c, program, reason, PyTorchForm::Model)) << reason;
  if (c.ops.empty() || !ref.ok() || program.empty())
    return false;
  const std::string dir = scratch() + "/" + name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/program.py") << program;
  for (size_t k = 0; k < ref.inputs.size(); ++k)
    EXPECT_TRUE(writeNpy(dir + "/in" + std::to_string(k) + ".npy", ref.inputs[k], error)) << error;
  EXPECT_EQ(run({torchPython(), dir + "/program.py", dir}, dir + "/run.log"), 0)
      << readFile(dir + "/run.log");
  got.resize(ref.outputs.size());
  for (size_t k = 0; k < ref.outputs.size(); ++k)
    if (!readNpy(dir + "/out" + std::to_string(k) + ".npy", ref.outputs[k].type.dtype, got[k],
                 error))
      return false;
  return true;
}

TEST(Export, TheModelFormsConversionsRoundAsTheCasesModesSay) {
  // A model's x.to(int) truncates; each mode must round as the reference
  // does, ties and negatives included (values are compared on PyTorchSim's
  // NPU model).
  RefRun ref;
  std::vector<RefTensor> got;
  ASSERT_TRUE(runModelForm("npufuzz-case 1\n"
                           "data seed=1 edge_rate=0\n"
                           "%0 = input {fill=range(-10,10)} : f32[40]\n"
                           "%1 = const {value=0.25} : f32[40]\n"
                           "%2 = mul %0, %1 : f32[40]\n"
                           "%3 = cast %2 {round=rne} : i32[40]\n"
                           "%4 = cast %2 {round=rna} : i32[40]\n"
                           "%5 = cast %2 {round=rtz} : i64[40]\n"
                           "%6 = cast %2 {round=rdn} : i64[40]\n"
                           "%7 = cast %2 {round=rup} : i8[40]\n"
                           "%8 = round %2 {mode=rna} : f32[40]\n"
                           "return %3, %4, %5, %6, %7, %8\n",
                           "model-form-casts", ref, got));
  // The inputs hold negative ties (x * 0.25 == -k.5), where the modes part.
  ASSERT_GT(std::count_if(ref.inputs[0].f.begin(), ref.inputs[0].f.end(),
                          [](float v) { return v < 0 && std::fmod(v, 4.0f) == -2.0f; }),
            0);
  for (size_t k = 0; k + 1 < ref.outputs.size(); ++k)
    EXPECT_EQ(got[k].i, ref.outputs[k].i) << "output " << k;
  ASSERT_EQ(got.back().f.size(), ref.outputs.back().f.size());
  ASSERT_TRUE(std::any_of(ref.outputs.back().f.begin(), ref.outputs.back().f.end(), [](float v) {
    return v == 0 && std::signbit(v);
  })) << "no -0 to keep";
  for (size_t e = 0; e < got.back().f.size(); ++e) // bit for bit: -0.25 rounds to -0
    EXPECT_EQ(std::signbit(got.back().f[e]), std::signbit(ref.outputs.back().f[e])) << e;
  EXPECT_EQ(got.back().f, ref.outputs.back().f);
}

TEST(Export, TheModelFormsIntegerDivisionIsTheCasesAtAZeroDivisor) {
  RefRun ref;
  std::vector<RefTensor> got;
  ASSERT_TRUE(runModelForm("npufuzz-case 1\n"
                           "data seed=1 edge_rate=0\n"
                           "%0 = input {fill=range(5,12)} : i32[8]\n"
                           "%1 = input {fill=range(-3,4)} : i32[8]\n"
                           "%2 = div %0, %1 : i32[8]\n"
                           "return %2\n",
                           "model-form-idiv", ref, got));
  ASSERT_TRUE(std::count(ref.inputs[1].i.begin(), ref.inputs[1].i.end(), 0) > 0)
      << "the divisors hold no zero";
  EXPECT_EQ(got[0].i, ref.outputs[0].i);
}
