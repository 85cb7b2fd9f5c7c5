//===- tests/backend/ToolchainTest.cpp - Finding the user's toolchains ----===//
//
// Discovery's order (flag, environment, config file, PATH and the usual
// places), a named place that holds nothing being an error rather than a
// reason to look on, the config file's errors, and canaries that tell the
// real tool from one that is not it. Needs no third-party toolchain: the
// tools that pass are Debian's MLIR 22 tools, and what fails is /bin/true,
// /bin/false and files this test writes.
//
//===----------------------------------------------------------------------===//
#include "backend/toolchains/Toolchain.h"
#include "backend/toolchains/Canary.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace npufuzz;
namespace fs = std::filesystem;

namespace {

/// A scratch directory, and the environment discovery reads, both restored
/// after each test.
class Toolchains : public ::testing::Test {
protected:
  /// What discovery reads from the environment.
  static constexpr const char *kEnvironment[] = {
      "NPUFUZZ_CONFIG",      "XDG_CONFIG_HOME", "NPUFUZZ_PTOAS",
      "NPUFUZZ_PTO_ISA",     "NPUFUZZ_PYTHON",  "NPUFUZZ_MLIR_OPT",
      "NPUFUZZ_MLIR_RUNNER", "NPUFUZZ_CACHE",   "PATH"};
  void SetUp() override {
    dir =
        (fs::temp_directory_path() / ("npufuzz-toolchains-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir + "/bin");
    for (const char *name : kEnvironment)
      if (const char *v = std::getenv(name))
        saved[name] = v;
    // No config or variable of the machine's own leaks in.
    for (const char *name : kEnvironment)
      if (std::string(name) != "PATH")
        ::unsetenv(name);
    ::setenv("NPUFUZZ_CONFIG", write("none.json", "{}").c_str(), 1);
  }
  void TearDown() override {
    for (const char *name : kEnvironment) {
      auto it = saved.find(name);
      if (it == saved.end())
        ::unsetenv(name);
      else
        ::setenv(name, it->second.c_str(), 1);
    }
    fs::remove_all(dir);
  }
  std::string write(const std::string &name, const std::string &text, bool executable = false) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    if (executable)
      fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
    return path;
  }
  /// Where locateToolchain finds ptoas, and from what.
  std::string located(const std::string &flag = "") {
    ToolchainConfig config;
    std::string error;
    EXPECT_TRUE(loadToolchainConfig(config, error)) << error;
    LocatedToolchain out;
    if (!locateToolchain(ToolchainKind::Ptoas, flag, config, out, error))
      return "error: " + error;
    return out.path + " from " + out.source;
  }
  std::string dir;
  std::map<std::string, std::string> saved;
};

TEST_F(Toolchains, FlagThenEnvironmentThenConfigThenPath) {
  const std::string a = write("a", "#!/bin/sh\n", true), b = write("b", "#!/bin/sh\n", true),
                    c = write("c", "#!/bin/sh\n", true),
                    onPath = write("bin/ptoas", "#!/bin/sh\n", true);
  ::setenv("PATH", (dir + "/bin").c_str(), 1);
  EXPECT_EQ(located(), onPath + " from PATH");
  ::setenv("NPUFUZZ_CONFIG", write("t.json", "{\"ptoas\": \"" + c + "\"}").c_str(), 1);
  EXPECT_EQ(located(), c + " from config " + dir + "/t.json");
  ::setenv("NPUFUZZ_PTOAS", b.c_str(), 1);
  EXPECT_EQ(located(), b + " from $NPUFUZZ_PTOAS");
  EXPECT_EQ(located(a), a + " from --ptoas");
}

TEST_F(Toolchains, ANamedPlaceThatHoldsNothingIsAnErrorNotAReasonToLookOn) {
  write("bin/ptoas", "#!/bin/sh\n", true);
  ::setenv("PATH", (dir + "/bin").c_str(), 1);
  const std::string notExecutable = write("plain", "text");
  EXPECT_EQ(located(notExecutable), "error: ptoas from --ptoas: " + notExecutable +
                                        " is not an executable file; see docs/toolchains.md#ptoas");
  ::setenv("NPUFUZZ_PTOAS", dir.c_str(), 1);
  EXPECT_EQ(located(), "error: ptoas from $NPUFUZZ_PTOAS: " + dir +
                           " is a directory, not a program; see docs/toolchains.md#ptoas");
}

TEST_F(Toolchains, NothingFoundSaysWhereToLookAndWhereToRead) {
  ::setenv("PATH", (dir + "/bin").c_str(), 1);
  const std::string said = located();
  for (const char *part : {"ptoas (the PTO tile assembler, for --backend pto) not found",
                           "give --ptoas", "$NPUFUZZ_PTOAS", "docs/toolchains.md#ptoas"})
    EXPECT_NE(said.find(part), std::string::npos) << said;
}

TEST_F(Toolchains, PtoIsaIsItsIncludeDirectoryOrTheRepositoryHoldingIt) {
  fs::create_directories(dir + "/isa/include/pto/common");
  write("isa/include/pto/pto-inst.hpp", "");
  write("isa/include/pto/common/type.hpp", "");
  write("isa/version.cmake", "set_cann_package(pto-isa VERSION \"9.1.0\")\n");
  ToolchainConfig config;
  LocatedToolchain out;
  std::string error;
  for (const std::string &given : {dir + "/isa", dir + "/isa/include"}) {
    ASSERT_TRUE(locateToolchain(ToolchainKind::PtoIsa, given, config, out, error)) << error;
    EXPECT_EQ(out.path, dir + "/isa/include");
    const CanaryResult r = runCanary(ToolchainKind::PtoIsa, out.path);
    EXPECT_TRUE(r.passed) << r.error;
    EXPECT_EQ(r.version, "pto-isa 9.1.0");
  }
  EXPECT_FALSE(locateToolchain(ToolchainKind::PtoIsa, dir, config, out, error));
  EXPECT_NE(error.find("no pto/pto-inst.hpp under " + dir), std::string::npos) << error;
  fs::remove(dir + "/isa/include/pto/common/type.hpp");
  const CanaryResult partial = runCanary(ToolchainKind::PtoIsa, dir + "/isa/include");
  EXPECT_FALSE(partial.passed);
  EXPECT_NE(partial.error.find("no pto/common/type.hpp"), std::string::npos) << partial.error;
}

TEST_F(Toolchains, AConfigFileThatCannotBeUsedIsAnError) {
  const struct {
    const char *text, *says;
  } bad[] = {
      {"{\"ptoas\": ", "does not parse"},
      {"[\"/opt/ptoas\"]", "is not a JSON object"},
      {"{\"ptoass\": \"/opt/ptoas\"}", "names an unknown toolchain 'ptoass' (ptoas, pto-isa"},
      {"{\"ptoas\": 3}", "\"ptoas\" must be a non-empty path"},
      {"{\"ptoas\": \"\"}", "\"ptoas\" must be a non-empty path"},
  };
  for (const auto &b : bad) {
    ::setenv("NPUFUZZ_CONFIG", write("bad.json", b.text).c_str(), 1);
    ToolchainConfig config;
    std::string error;
    EXPECT_FALSE(loadToolchainConfig(config, error)) << b.text;
    EXPECT_NE(error.find(b.says), std::string::npos) << b.text << ": " << error;
  }
  // Named by the environment, it must be there; in the default place it
  // need not be.
  ::setenv("NPUFUZZ_CONFIG", (dir + "/missing.json").c_str(), 1);
  ToolchainConfig config;
  std::string error;
  EXPECT_FALSE(loadToolchainConfig(config, error));
  EXPECT_NE(error.find(dir + "/missing.json"), std::string::npos) << error;
  ::unsetenv("NPUFUZZ_CONFIG");
  ::setenv("XDG_CONFIG_HOME", (dir + "/xdg").c_str(), 1);
  EXPECT_EQ(toolchainConfigPath(), dir + "/xdg/npufuzz/toolchains.json");
  EXPECT_TRUE(loadToolchainConfig(config, error)) << error;
  EXPECT_TRUE(config.file.empty());
}

// Each program toolchain's canary refuses what is not the tool: a program
// that does nothing and exits 0, one that fails, and a real program of
// another kind (Debian's mlir-opt is not an mlir-runner, nor a ptoas).
TEST_F(Toolchains, CanariesRefuseWhatIsNotTheTool) {
  for (const ToolchainInfo &t : allToolchains()) {
    if (t.shape != ToolchainShape::Program)
      continue;
    for (const char *impostor : {"/bin/true", "/bin/false"}) {
      const CanaryResult r = runCanary(t.kind, impostor);
      EXPECT_FALSE(r.passed) << t.name << " " << impostor;
      EXPECT_EQ(r.error.rfind(std::string(t.name) + " " + impostor + " failed its canary: ", 0), 0u)
          << r.error;
      EXPECT_NE(r.error.find(std::string("docs/toolchains.md#") + t.name), std::string::npos)
          << r.error;
    }
  }
  ToolchainConfig none;
  LocatedToolchain opt;
  std::string error;
  ASSERT_TRUE(locateToolchain(ToolchainKind::MlirOpt, "", none, opt, error)) << error;
  for (const ToolchainKind k : {ToolchainKind::MlirRunner, ToolchainKind::Ptoas})
    EXPECT_FALSE(runCanary(k, opt.path).passed) << toolchainInfo(k).name;
  // Debian's Python runs, and has no simpler.
  const CanaryResult python = runCanary(ToolchainKind::Simpler, "/usr/bin/python3");
  EXPECT_FALSE(python.passed);
  EXPECT_NE(python.error.find("cannot import simpler"), std::string::npos) << python.error;
}

// A PyTorchSim checkout is told by its frontend: a directory without one is
// refused where it was named, with what is missing; one with it passes the
// checkout's canary, whose version says it has no git when it has none.
TEST_F(Toolchains, APyTorchSimCheckoutIsToldByItsFrontend) {
  const std::string dir = ::testing::TempDir() + "/npufuzz-pytorchsim-checkout";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/PyTorchSimFrontend/mlir");
  std::filesystem::create_directories(dir + "/Scheduler");
  ToolchainConfig none;
  LocatedToolchain found;
  std::string error;
  EXPECT_FALSE(locateToolchain(ToolchainKind::PyTorchSim, dir, none, found, error));
  EXPECT_NE(error.find("no PyTorchSimFrontend/extension_codecache.py under " + dir),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("docs/toolchains.md#pytorchsim"), std::string::npos) << error;
  // The torch 2.2 line: its C++ extension device and scheduler.
  for (const char *file : {"PyTorchSimFrontend/extension_codecache.py",
                           "PyTorchSimFrontend/mlir/mlir_codegen_backend.py",
                           "Scheduler/scheduler.py", "PyTorchSimFrontend/extension_device.cpp"}) {
    const CanaryResult before = runCanary(ToolchainKind::PyTorchSim, dir);
    EXPECT_FALSE(before.passed) << file;
    std::ofstream(dir + "/" + file) << "# recorded\n";
  }
  ASSERT_TRUE(locateToolchain(ToolchainKind::PyTorchSim, dir, none, found, error)) << error;
  const CanaryResult r = runCanary(ToolchainKind::PyTorchSim, found.path);
  EXPECT_TRUE(r.passed) << r.error;
  EXPECT_EQ(r.version, "PyTorchSim (not a git checkout, so no commit to name: clone it with git to "
                       "have one), the C++ extension device (the torch 2.2 line)");
  // Master v1.1.0's line: its torch_openreg device, told from the same
  // frontend without the torch 2.2 line's files.
  std::filesystem::remove(dir + "/PyTorchSimFrontend/extension_device.cpp");
  std::filesystem::remove_all(dir + "/Scheduler");
  EXPECT_FALSE(runCanary(ToolchainKind::PyTorchSim, dir).passed);
  std::filesystem::create_directories(dir + "/PyTorchSimDevice/torch_openreg");
  std::ofstream(dir + "/PyTorchSimDevice/torch_openreg/__init__.py") << "# recorded\n";
  const CanaryResult v110 = runCanary(ToolchainKind::PyTorchSim, dir);
  EXPECT_TRUE(v110.passed) << v110.error;
  EXPECT_NE(v110.version.find("the openreg device (master v1.1.0's line, torch 2.8)"),
            std::string::npos)
      << v110.version;
  // Debian's Python has no torch: not PyTorchSim's Python.
  const CanaryResult python = runCanary(ToolchainKind::PyTorchSimPython, "/usr/bin/python3");
  EXPECT_FALSE(python.passed);
  EXPECT_NE(python.error.find("cannot import torch"), std::string::npos) << python.error;
  std::filesystem::remove_all(dir);
}

// Debian's MLIR 22 tools, which ci/install-deps.sh installs, pass theirs.
TEST_F(Toolchains, DebiansMlirToolsPassTheirCanaries) {
  for (const ToolchainKind k : {ToolchainKind::MlirOpt, ToolchainKind::MlirRunner}) {
    LocatedToolchain found;
    std::string error, version;
    ASSERT_TRUE(findWorkingToolchain(k, "", found, error, &version)) << error;
    EXPECT_EQ(found.source, "PATH");
    EXPECT_NE(version.find("LLVM version 22"), std::string::npos) << version;
  }
}

} // namespace
