//===- tests/backend/PtoasCoverageTest.cpp - What an instrumented ptoas reached ===//
//
// backend/pto/PtoasCoverage.h on a real profile: a stand-in for ptoas,
// built here with clang++-22's source-based coverage in a build directory
// of its own (CMakeCache.txt naming its sources), run the way the pto
// backend runs ptoas, and read with the machine's llvm-profdata and
// llvm-cov. The report must be the adapters' format, hold the stand-in's
// own files alone, say each line once, and say why when ptoas is not
// instrumented; the backend's own ptoas step must keep each profile in its
// run's directory or with the campaign's, which wait, are read together,
// and wait again when a read fails; summing raw profiles must give what
// llvm-profdata merges.
//
//===----------------------------------------------------------------------===//
#include "backend/pto/PtoasCoverage.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/PtoBackend.h"
#include "driver/CompilerCoverage.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace npufuzz;
namespace fs = std::filesystem;

namespace {

/// The stand-in's pass: which of its lines run depends on its argument.
/// Line numbers matter below: kLineOfA and kLineOfB.
const char *const kPass = R"(#include "Shared.h"
#include <cstdio>
#include <cstring>
int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "a") == 0)
    std::puts("lowered a");
  else
    std::puts(lowerOther());
  return 0;
}
)";
constexpr int64_t kLineOfA = 6, kLineOfB = 8;

/// A header outside the stand-in's sources, as LLVM's are outside ptoas's.
const char *const kShared = R"(inline const char *lowerOther() {
  return "lowered b";
}
)";

void write(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class PtoasCoverage : public ::testing::Test {
protected:
  void SetUp() override {
    root = fs::path(::testing::TempDir()) / ("ptoas-coverage-" + std::to_string(::getpid()));
    fs::remove_all(root);
    write(root / "src/lib/Pass.cpp", kPass);
    write(root / "llvm/include/Shared.h", kShared);
    write(root / "src/build/CMakeCache.txt",
          "CMAKE_HOME_DIRECTORY:INTERNAL=" + (root / "src").string() + "\n");
    instrumented = (root / "src/build/tools/ptoas/ptoas").string();
    plain = (root / "plain/ptoas").string();
    fs::create_directories(fs::path(instrumented).parent_path());
    fs::create_directories(fs::path(plain).parent_path());
    compile({"-fprofile-instr-generate", "-fcoverage-mapping"}, instrumented);
    compile({}, plain);
  }
  void TearDown() override { fs::remove_all(root); }

  void compile(std::vector<std::string> flags, const std::string &out,
               const std::string &source = "lib/Pass.cpp") {
    std::vector<std::string> argv = {"clang++-22", "-O0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-I", (root / "llvm/include").string(),
                             (root / "src" / source).string(), "-o", out});
    ExternalToolchain limits;
    limits.timeoutSeconds = 300;
    const CommandEnd end =
        runCommand(limits, argv, (root / "cxx.out").string(), (root / "cxx.err").string());
    ASSERT_EQ(end.exitCode, 0) << end.stderrText;
  }

  /// Runs `ptoas arg` in a directory of its own as the pto backend does,
  /// and reads what it reached.
  std::string run(const std::string &ptoas, const std::string &arg) {
    const std::string dir = runOnly(ptoas, arg);
    return takePtoasProfile(ptoas, dir, "", 300);
  }
  /// The run alone: its directory, which holds its profile.
  std::string runOnly(const std::string &ptoas, const std::string &arg) {
    const fs::path dir = root / ("run" + std::to_string(runs++));
    fs::create_directories(dir);
    ExternalToolchain limits;
    limits.timeoutSeconds = 300;
    limits.environment.push_back(ptoasProfileVariable(dir.string()));
    const CommandEnd end =
        runCommand(limits, {ptoas, arg}, (dir / "out").string(), (dir / "err").string());
    EXPECT_EQ(end.exitCode, 0) << end.stderrText;
    return dir.string();
  }

  fs::path root;
  std::string instrumented, plain;
  int runs = 0;
};

bool hasLine(const CaseCoverage &c, int64_t line, const std::string &file = "ptoas/lib/Pass.cpp") {
  const auto it = c.lines.find(file);
  return it != c.lines.end() && std::count(it->second.begin(), it->second.end(), line) == 1;
}

TEST_F(PtoasCoverage, ReportsItsOwnLinesAndBranchesEachOnce) {
  CaseCoverage a, again, b;
  std::string error;
  ASSERT_TRUE(CaseCoverage::parse(run(instrumented, "a"), a, error)) << error;
  ASSERT_TRUE(a.measured()) << a.off;
  EXPECT_EQ(a.tool.rfind("llvm-cov ", 0), 0u) << a.tool;
  EXPECT_EQ(a.packages, std::vector<std::string>{"ptoas"});
  // Its own source alone: not the header outside its sources.
  ASSERT_EQ(a.lines.size(), 1u);
  EXPECT_TRUE(hasLine(a, kLineOfA));
  EXPECT_FALSE(hasLine(a, kLineOfB));
  EXPECT_GE(a.branchCount(), 1u);

  // The same run again reaches nothing new.
  ASSERT_TRUE(CaseCoverage::parse(run(instrumented, "a"), again, error)) << error;
  EXPECT_TRUE(again.measured());
  EXPECT_EQ(again.lineCount(), 0u);
  EXPECT_EQ(again.branchCount(), 0u);

  // The other way through reports the other line and an outcome the first
  // run did not take, and not the lines they share.
  ASSERT_TRUE(CaseCoverage::parse(run(instrumented, "b"), b, error)) << error;
  EXPECT_TRUE(hasLine(b, kLineOfB));
  EXPECT_FALSE(hasLine(b, kLineOfA));
  EXPECT_FALSE(hasLine(b, kLineOfA - 1));
  EXPECT_GE(b.branchCount(), 1u);
}

TEST_F(PtoasCoverage, ACampaignsProfilesWaitAndAreReadTogether) {
  // A source of its own: what the test above reported is not this one's.
  write(root / "src/lib/Batch.cpp", kPass);
  const std::string batch = (root / "src/build/tools/ptoas/ptoas-batch").string();
  compile({"-fprofile-instr-generate", "-fcoverage-mapping"}, batch, "lib/Batch.cpp");
  const std::string waiting = (root / "campaign/ptoas-profiles").string();
  std::string error;
  for (const char *arg : {"a", "b"}) {
    // Each run's case: measured, nothing of its own; its profile waits.
    CaseCoverage one;
    ASSERT_TRUE(
        CaseCoverage::parse(takePtoasProfile(batch, runOnly(batch, arg), waiting, 300), one, error))
        << error;
    EXPECT_TRUE(one.measured()) << one.off;
    EXPECT_EQ(one.lineCount(), 0u);
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(waiting), fs::directory_iterator()), 2);
  CaseCoverage both;
  ASSERT_TRUE(CaseCoverage::parse(readPtoasProfiles(batch, waiting, 300), both, error)) << error;
  ASSERT_TRUE(both.measured()) << both.off;
  EXPECT_TRUE(hasLine(both, kLineOfA, "ptoas/lib/Batch.cpp"));
  EXPECT_TRUE(hasLine(both, kLineOfB, "ptoas/lib/Batch.cpp"));
  // Read once: nothing waits, and nothing is left beside it.
  EXPECT_EQ(readPtoasProfiles(batch, waiting, 300), "");
  EXPECT_EQ(std::distance(fs::directory_iterator(root / "campaign"), fs::directory_iterator()), 1);
}

/// What llvm-profdata makes of `profiles` merged, as its text listing.
std::string mergedCounts(const fs::path &dir, const std::string &name,
                         const std::vector<std::string> &profiles) {
  ExternalToolchain limits;
  limits.timeoutSeconds = 300;
  const std::string indexed = (dir / (name + ".profdata")).string();
  std::vector<std::string> merge = {"llvm-profdata-22", "merge", "-o", indexed};
  merge.insert(merge.end(), profiles.begin(), profiles.end());
  CommandEnd end = runCommand(limits, merge, (dir / "m.out").string(), (dir / "m.err").string());
  EXPECT_EQ(end.exitCode, 0) << end.stderrText;
  const std::string listing = (dir / (name + ".txt")).string();
  end = runCommand(limits, {"llvm-profdata-22", "show", "-all-functions", "-counts", indexed},
                   listing, (dir / "s.err").string());
  EXPECT_EQ(end.exitCode, 0) << end.stderrText;
  std::ifstream in(listing);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_F(PtoasCoverage, SummedRawProfilesAreWhatLlvmProfdataMerges) {
  const std::vector<std::string> runs = {ptoasProfileFile(runOnly(instrumented, "a")),
                                         ptoasProfileFile(runOnly(instrumented, "b")),
                                         ptoasProfileFile(runOnly(instrumented, "a"))};
  const std::string summed = (root / "summed.profraw").string();
  ASSERT_TRUE(sumRawProfiles(runs, summed));
  const std::string both = mergedCounts(root, "both", runs);
  EXPECT_NE(both.find("Function count: 3"), std::string::npos) << both; // main ran three times
  EXPECT_EQ(mergedCounts(root, "summed", {summed}), both);
  // Two binaries' profiles are not summed.
  write(root / "src/lib/Other.cpp", std::string(kPass) + "int unused() { return 1; }\n");
  const std::string other = (root / "src/build/tools/ptoas/ptoas-other").string();
  compile({"-fprofile-instr-generate", "-fcoverage-mapping"}, other, "lib/Other.cpp");
  EXPECT_FALSE(sumRawProfiles({runs[0], ptoasProfileFile(runOnly(other, "a"))},
                              (root / "mixed.profraw").string()));
  EXPECT_FALSE(fs::exists(root / "mixed.profraw"));
}

TEST_F(PtoasCoverage, APtoasWithoutCoverageSaysSo) {
  CaseCoverage c;
  std::string error;
  ASSERT_TRUE(CaseCoverage::parse(run(plain, "a"), c, error)) << error;
  EXPECT_FALSE(c.measured());
  EXPECT_NE(c.off.find("not built with clang's source-based coverage"), std::string::npos) << c.off;
}

TEST_F(PtoasCoverage, TheBackendsPtoasRunsKeepTheirProfilesWhereTheCampaignReadsThem) {
  // The pto backend's own ptoas step, with the stand-in as ptoas (it
  // exits 0 whatever it is given).
  PtoToolchain t;
  t.ptoas = instrumented;
  t.batchDir = (root / "campaign").string();
  fs::create_directories(t.batchDir);
  const Case c = npufuzz::testing::parseOrFail("npufuzz-case 1\n"
                                               "%0 = input {fill=rand} : f32[16,16]\n"
                                               "%1 = input {fill=rand} : f32[16,16]\n"
                                               "%2 = add %0, %1 : f32[16,16]\n"
                                               "return %2\n");
  const fs::path cwd = fs::current_path();
  const std::string notAsked = (root / "not-asked").string(), asked = (root / "asked").string();
  fs::create_directories(notAsked);
  fs::create_directories(asked);
  BackendRun r;
  ::unsetenv(kCompilerCoverageVariable);
  ASSERT_TRUE(assemblePto(t, c, notAsked, r)) << r.message;
  // Not asked: the profile stays in the run's directory, removed with it.
  EXPECT_TRUE(fs::exists(ptoasProfileFile(notAsked)));
  EXPECT_EQ(r.compilerCoverage, "");
  EXPECT_FALSE(fs::exists(cwd / "default.profraw"));
  // Asked, in a campaign: the profile waits with the campaign's, and the
  // case says it was measured, with nothing of its own.
  ::setenv(kCompilerCoverageVariable, "on", 1);
  BackendRun measured;
  ASSERT_TRUE(assemblePto(t, c, asked, measured)) << measured.message;
  ::unsetenv(kCompilerCoverageVariable);
  EXPECT_FALSE(fs::exists(ptoasProfileFile(asked)));
  const fs::path waiting = ptoasProfilesDir(t.batchDir);
  EXPECT_EQ(std::distance(fs::directory_iterator(waiting), fs::directory_iterator()), 1);
  CaseCoverage reported;
  std::string error;
  ASSERT_TRUE(CaseCoverage::parse(measured.compilerCoverage, reported, error)) << error;
  EXPECT_TRUE(reported.measured()) << reported.off;
  EXPECT_EQ(reported.lineCount(), 0u);
  EXPECT_FALSE(fs::exists(cwd / "default.profraw"));
}

TEST_F(PtoasCoverage, AFailedReadLeavesItsProfilesForTheNext) {
  // A ptoas whose sources cannot be told: the read fails, and its profile
  // is back where it waited, as is one a killed read left beside it.
  const std::string waiting = (root / "campaign/ptoas-profiles").string();
  const std::string killed = (root / "campaign/ptoas-reading-abc123").string();
  fs::create_directories(waiting);
  fs::create_directories(killed);
  fs::rename(ptoasProfileFile(runOnly(instrumented, "b")), killed + "/x.profraw");
  fs::rename(ptoasProfileFile(runOnly(instrumented, "a")), waiting + "/y.profraw");
  const std::string json = readPtoasProfiles(plain, waiting, 300);
  EXPECT_EQ(json.rfind("{\"off\":", 0), 0u) << json;
  EXPECT_EQ(std::distance(fs::directory_iterator(waiting), fs::directory_iterator()), 2);
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_EQ(std::distance(fs::directory_iterator(root / "campaign"), fs::directory_iterator()), 1);
}

} // namespace
