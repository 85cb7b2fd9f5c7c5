//===- tests/driver/HostileInputTest.cpp - Bad input, clear errors --------===//
//
// Every subcommand that takes files or directories, given what a user might
// get wrong (a directory for a file, a missing or unwritable path, junk, an
// empty file, a corrupt campaign, an unterminated quote, input that crashes
// the compiler under test). Each row runs the real npufuzz binary and needs
// a non-zero exit with a message that names the problem: never a signal,
// never a silent exit 0.
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Row {
  const char *name;
  std::vector<std::string> args; ///< {tmp} is the scratch directory
  int exitCode;                  ///< 1: a finding or a failed check; 2: bad input
  const char *says;              ///< in stderr or stdout
};

class HostileInput : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    tmp = (fs::temp_directory_path() / ("npufuzz-hostile-" + std::to_string(::getpid()))).string();
    fs::remove_all(tmp);
    fs::create_directories(tmp + "/dir");
    put("junk", "this is not what any command expects\n");
    put("empty", "");
    put("bad.mlir", "garbage {\n");
    put("div.mlir", "func.func @npf_kernel(%a: memref<4xf32>, %b: memref<4xf32>) {\n"
                    "  %c0 = arith.constant 0 : index\n"
                    "  %x = memref.load %a[%c0] : memref<4xf32>\n"
                    "  %y = arith.divf %x, %x : f32\n"
                    "  memref.store %y, %b[%c0] : memref<4xf32>\n"
                    "  return\n}\n");
    // Deep enough to overflow the stack of MLIR's recursive parser (and of
    // mlir-opt-22): the crash must be a verdict.
    std::string deep = "func.func @f() {\n";
    for (int i = 0; i < 20000; ++i)
      deep += "scf.execute_region {\n";
    for (int i = 0; i < 20000; ++i)
      deep += "scf.yield\n}\n";
    put("deep.mlir", deep + "return\n}\n");
    put("case.npf", "npufuzz-case 1\n%0 = input {fill=rand} : f32[4,8]\n"
                    "%1 = exp %0 : f32[4,8]\nreturn %1\n");
    // A campaign directory whose one finding has a corrupt report.
    fs::create_directories(tmp + "/corrupt/findings/crash-0123456789abcdef");
    put("corrupt/summary.json", "{\"cases\": 1}\n");
    put("corrupt/findings/crash-0123456789abcdef/report.json", "{\"signature\": ");
    put("corrupt/findings/crash-0123456789abcdef/seeds.txt", "7\n");
    fs::create_directories(tmp + "/campaign/findings");
    put("campaign/summary.json", "{\"cases\": 0}\n");
  }
  static void TearDownTestSuite() { fs::remove_all(tmp); }

  static void put(const std::string &name, const std::string &text) {
    std::ofstream(tmp + "/" + name, std::ios::binary) << text;
  }

  static std::string tmp;
};
std::string HostileInput::tmp;

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Where nothing can be created, even by root.
const char *kUnwritable = "/proc/npufuzz-cannot-be-created/out";

std::vector<Row> rows() {
  const std::string plugin = NPUFUZZ_TEST_PLUGIN;
  return {
      {"from-bytes of a directory", {"from-bytes", "{tmp}/dir"}, 2, "is a directory"},
      {"from-bytes of a missing file", {"from-bytes", "{tmp}/missing"}, 2, "No such file"},
      {"check of a directory", {"check", "{tmp}/dir"}, 1, "is a directory"},
      {"check of an empty file", {"check", "{tmp}/empty"}, 1, "empty file"},
      {"check of junk", {"check", "{tmp}/junk"}, 1, "junk:1:"},
      {"ref of a directory", {"ref", "{tmp}/dir", "-o", "{tmp}/ref"}, 2, "is a directory"},
      {"run of a directory", {"run", "{tmp}/dir"}, 2, "is a directory"},
      {"gen with a directory as policy", {"gen", "--policy", "{tmp}/dir"}, 2, "is a directory"},
      {"gen with junk as policy", {"gen", "--policy", "{tmp}/junk"}, 2, "junk"},
      {"gen into a directory", {"gen", "--seed", "1", "-o", "{tmp}/dir"}, 2, "cannot write"},
      {"sweep with a missing policy", {"sweep", "--policy", "{tmp}/missing"}, 2, "No such file"},
      {"merge into a file",
       {"merge", "-o", "{tmp}/junk", "{tmp}/campaign"},
       2,
       "exists and is not a directory"},
      {"merge into an unwritable place",
       {"merge", "-o", kUnwritable, "{tmp}/campaign"},
       2,
       "cannot create"},
      {"merge of a corrupt report",
       {"merge", "-o", "{tmp}/merged1", "{tmp}/corrupt"},
       2,
       "not a finding report"},
      {"merge of a non-campaign",
       {"merge", "-o", "{tmp}/merged2", "{tmp}/dir"},
       2,
       "not a campaign directory"},
      {"report of a missing directory",
       {"report", "{tmp}/missing", "-o", "{tmp}/rep1"},
       2,
       "no such directory"},
      {"report of a file", {"report", "{tmp}/junk", "-o", "{tmp}/rep2"}, 2, "not a directory"},
      {"report of a corrupt campaign",
       {"report", "{tmp}/corrupt", "-o", "{tmp}/rep3"},
       2,
       "not a finding report"},
      {"report with a missing --known",
       {"report", "{tmp}/campaign", "-o", "{tmp}/rep4", "--known", "{tmp}/missing"},
       2,
       "--known"},
      {"report with junk --known",
       {"report", "{tmp}/campaign", "-o", "{tmp}/rep5", "--known", "{tmp}/junk"},
       2,
       "is not a signature id"},
      {"report with a directory as --known",
       {"report", "{tmp}/campaign", "-o", "{tmp}/rep6", "--known", "{tmp}/dir"},
       2,
       "is a directory"},
      {"report into an unwritable place",
       {"report", "{tmp}/campaign", "-o", kUnwritable},
       2,
       "cannot"},
      {"--seed into a file",
       {"--seed", "5", "-o", "{tmp}/junk"},
       2,
       "exists and is not a directory"},
      {"--seed with a bad pipeline", {"--seed", "5", "--pipeline", "random:x"}, 2, "random:SEED"},
      {"fuzz with random:x",
       {"fuzz", "-o", "{tmp}/f1", "--pipeline", "random:x"},
       2,
       "random:SEED"},
      {"fuzz with an unknown pass",
       {"fuzz", "-o", "{tmp}/f2", "--pipeline", "func.func(nope)"},
       2,
       "does not refer to a registered pass"},
      {"fuzz with an unterminated quote",
       {"fuzz", "-o", "{tmp}/f3", "--backend", "external", "--cmd", "sh 'abc"},
       2,
       "unterminated single quote"},
      {"fuzz with --cmd but no external backend",
       {"fuzz", "-o", "{tmp}/f4", "--cmd", "true"},
       2,
       "--cmd is for --backend external"},
      {"fuzz into a file", {"fuzz", "-o", "{tmp}/junk"}, 2, "cannot create"},
      {"fuzz into an unwritable place", {"fuzz", "-o", kUnwritable}, 2, "cannot create"},
      {"fuzz with a directory as policy",
       {"fuzz", "-o", "{tmp}/f5", "--policy", "{tmp}/dir"},
       2,
       "is a directory"},
      {"run --persistent with {dir} in --cmd",
       {"run", "{tmp}/case.npf", "--backend", "external", "--persistent", "--cmd", "sh x {dir}"},
       2,
       "remove {dir}"},
      {"run --persistent without an external backend",
       {"run", "{tmp}/case.npf", "--persistent"},
       2,
       "--persistent is for --backend external"},
      {"run --backend torch with a python that has no torch",
       {"run", "{tmp}/case.npf", "--backend", "torch", "--python", "{tmp}/missing"},
       2,
       "python3-torch"},
      {"run --backend pto with a missing ptoas",
       {"run", "{tmp}/case.npf", "--backend", "pto", "--ptoas", "{tmp}/missing", "--pto-isa",
        "{tmp}/dir"},
       2,
       "ci/install-pto.sh"},
      {"run --ptoas without --backend pto",
       {"run", "{tmp}/case.npf", "--ptoas", "{tmp}/junk"},
       2,
       "are for --backend pto"},
      {"run --backend pto with a memcheck share above 1",
       {"run", "{tmp}/case.npf", "--backend", "pto", "--pto-memcheck", "2"},
       2,
       "takes a share from 0 to 1"},
      {"run --backend pto with a memcheck share that is not a number",
       {"run", "{tmp}/case.npf", "--backend", "pto", "--pto-memcheck", "some"},
       2,
       "takes a share from 0 to 1"},
      {"replay --backend with an unknown name",
       {"replay", "{tmp}/dir", "--backend", "nope"},
       2,
       "unknown backend 'nope' (mlir-jit"},
      {"run with an unterminated quote",
       {"run", "{tmp}/case.npf", "--backend", "external", "--cmd", "sh \"abc"},
       2,
       "unterminated double quote"},
      {"reduce of a directory", {"reduce", "{tmp}/dir", "-o", "{tmp}/red1"}, 2, "is a directory"},
      {"reduce with an unterminated quote",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red2", "--interestingness-cmd", "x 'y"},
       2,
       "unterminated single quote"},
      {"replay of an empty directory", {"replay", "{tmp}/dir"}, 1, "holds no .npf"},
      {"replay of a missing directory", {"replay", "{tmp}/missing"}, 1, "cannot read"},
      {"external-mlir of an empty directory", {"external-mlir", "{tmp}/dir"}, 1, "manifest.json"},
      {"verify-pipeline of a directory",
       {"verify-pipeline", "{tmp}/dir", "--pipeline", "func.func(canonicalize)"},
       2,
       "is a directory"},
      {"verify-pipeline of unparseable MLIR",
       {"verify-pipeline", "{tmp}/bad.mlir", "--pipeline", "func.func(canonicalize)"},
       2,
       "bad.mlir\\\":1:1"},
      {"verify-pipeline of an empty file",
       {"verify-pipeline", "{tmp}/empty", "--pipeline", "func.func(canonicalize)"},
       2,
       "empty file"},
      {"verify-pipeline with an unknown pass",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "func.func(nope)"},
       2,
       "does not refer to a registered pass"},
      {"verify-pipeline whose input overflows MLIR's parser",
       {"verify-pipeline", "{tmp}/deep.mlir", "--pipeline", "func.func(canonicalize)"},
       1,
       "\"verdict\": \"crashed\""},
      {"verify-pipeline with a pass that calls report_fatal_error",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "func.func(npufuzz-test-fatal-error)",
        "--load-pass-plugin", plugin},
       1,
       "npufuzz-test-fatal-error saw divf"},
  };
}

TEST_F(HostileInput, EveryRowIsAClearErrorNeverASignalOrASilentSuccess) {
  for (const Row &row : rows()) {
    SCOPED_TRACE(row.name);
    std::vector<std::string> args = {NPUFUZZ_BINARY};
    for (std::string a : row.args) {
      for (size_t at = a.find("{tmp}"); at != std::string::npos; at = a.find("{tmp}"))
        a.replace(at, 5, tmp);
      args.push_back(a);
    }
    std::vector<llvm::StringRef> argv(args.begin(), args.end());
    const std::string out = tmp + "/stdout.txt", err = tmp + "/stderr.txt";
    const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef("/dev/null"),
                                                        llvm::StringRef(out), llvm::StringRef(err)};
    std::string message;
    const int status = llvm::sys::ExecuteAndWait(NPUFUZZ_BINARY, argv, std::nullopt, redirects,
                                                 /*SecondsToWait=*/300, 0, &message);
    const std::string said = slurp(err) + slurp(out);
    // ExecuteAndWait gives -2 for a process that died by a signal.
    EXPECT_EQ(status, row.exitCode) << message << "\n" << said;
    EXPECT_NE(said.find(row.says), std::string::npos) << said;
  }
}

} // namespace
