//===- tests/driver/HostileInputTest.cpp - Bad input, clear errors --------===//
//
// Every subcommand, given what a user might get wrong or a hostile one might
// try (a directory, FIFO or device for a file, a missing or unwritable path,
// junk, an empty file, numbers out of range or not numbers at all, a corrupt
// or foreign campaign directory, a directory another run holds, a tool that
// cannot start, a plugin that is not one or registers a taken pass name, a
// full disk, input that crashes the compiler under test). Each row runs the
// real npufuzz binary and needs the exit status README gives (2: an error in
// what npufuzz was given or a machine that refused; 1: a finding) with a
// message that names the problem: never a signal, never a silent exit 0,
// never a finding for what is not the tool's fault.
//
//===----------------------------------------------------------------------===//
#include "ir/Case.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Row {
  const char *name;
  /// npufuzz's arguments; {tmp} is the scratch directory. A row whose first
  /// argument is "{sh}" runs its second with /bin/sh -c instead, where
  /// {npufuzz} is the binary (to set a limit before npufuzz starts).
  std::vector<std::string> args;
  int exitCode;                      ///< 0 ok; 1: a finding; 2: bad input, a refusing machine
  const char *says;                  ///< in stderr or stdout
  std::vector<std::string> env = {}; ///< NAME=VALUE added to the environment
};

class HostileInput : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    tmp = (fs::temp_directory_path() / ("npufuzz-hostile-" + std::to_string(::getpid()))).string();
    fs::remove_all(tmp);
    fs::create_directories(tmp + "/dir");
    put("junk", "this is not what any command expects\n");
    put("empty", "");
    // Headers where pto-isa's are looked for: enough for discovery, so that
    // the ptoas rows fail on ptoas on any machine.
    fs::create_directories(tmp + "/isa/pto/common");
    put("isa/pto/pto-inst.hpp", "");
    put("isa/pto/common/type.hpp", "");
    put("typo.json", "{\"ptoass\": \"/opt/ptoas\"}\n");
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
    // A regression whose pipeline names a pass no plugin loaded registers.
    fs::create_directories(tmp + "/plugin-regressions");
    put("plugin-regressions/a.npf", "// expect: ok style=affine pipeline=func.func(planted-pass)\n"
                                    "npufuzz-case 1\n%0 = input {fill=rand} : f32[4]\n"
                                    "%1 = exp %0 : f32[4]\nreturn %1\n");
    // A campaign directory whose one finding has a corrupt report.
    fs::create_directories(tmp + "/corrupt/findings/crash-0123456789abcdef");
    put("corrupt/summary.json", "{\"cases\": 1}\n");
    put("corrupt/findings/crash-0123456789abcdef/report.json", "{\"signature\": ");
    put("corrupt/findings/crash-0123456789abcdef/seeds.txt", "7\n");
    fs::create_directories(tmp + "/campaign/findings");
    put("campaign/summary.json", "{\"cases\": 0}\n");
    ::mkfifo((tmp + "/fifo").c_str(), 0644);
    // An offset and a stride whose sum wraps int64 to a small number.
    put("overflow.npf", "npufuzz-case 1\n%0 = input {fill=rand} : f32[4,8]\n"
                        "%1 = slice %0 {offsets=[0,9223372036854775807], sizes=[1,2], "
                        "strides=[1,9223372036854775807]} : f32[1,2]\nreturn %1\n");
    put("badinterp.sh", "#!/nonexistent/interpreter\n");
    fs::permissions(tmp + "/badinterp.sh", fs::perms::owner_all);
    // A copy of the test plugin registers the same pass names with other
    // TypeIDs: MLIR aborts the process that loads both.
    fs::copy_file(NPUFUZZ_TEST_PLUGIN, tmp + "/plugin-copy.so");
    // Campaign directories in the states a run, a kill, an old build or a
    // hand can leave.
    const std::string state = "{\"format\": 2, \"seed_start\": 0, \"shard_index\": 0, "
                              "\"shard_count\": 1, \"next\": 7, \"ahead\": [], "
                              "\"total_cases\": 7, \"total_seconds\": 1.5, "
                              "\"verdicts\": {\"ok\": 7}, \"features\": {}}\n";
    fs::create_directories(tmp + "/killed/findings");
    put("killed/campaign.json", "{}\n");
    put("killed/state.json", state);
    // A copy of that shard, to be merged beside it; and the shard with a
    // directory in findings/ that npufuzz did not file.
    fs::copy(tmp + "/killed", tmp + "/killedcopy", fs::copy_options::recursive);
    fs::copy(tmp + "/killed", tmp + "/foreignfinding", fs::copy_options::recursive);
    fs::create_directories(tmp + "/foreignfinding/findings/notes");
    // A campaign whose kept compiler coverage is not one.
    fs::create_directories(tmp + "/badcoverage");
    put("badcoverage/compiler-coverage.json", "[1, 2]\n");
    fs::create_directories(tmp + "/nonext");
    std::string noNext = state;
    noNext.erase(noNext.find("\"next\": 7, "), 11);
    put("nonext/state.json", noNext);
    // Hand-edited states: a negative count, counts that do not add up, and
    // deferred cases counted already or outside the campaign.
    auto edited = [&](const std::string &dir, const std::string &from, const std::string &to) {
      fs::create_directories(tmp + "/" + dir);
      put(dir + "/campaign.json", "{}\n");
      std::string text = state;
      text.replace(text.find(from), from.size(), to);
      put(dir + "/state.json", text);
    };
    edited("negative", "{\"ok\": 7}", "{\"ok\": 10, \"mismatch\": -3}");
    edited("unsummed", "{\"ok\": 7}", "{\"ok\": 2}");
    edited("notaverdict", "{\"ok\": 7}", "{\"ok\": 6, \"fine\": 1}");
    edited("deferred", "\"ahead\": []", "\"ahead\": [], \"deferred\": [3, 5, 1000000]");
    edited("twice", "\"ahead\": []", "\"ahead\": [], \"deferred\": [3, 3]");
    // Campaign files that are /dev/zero: read with a cap, never forever.
    for (const char *file : {"campaign.json", "state.json"}) {
      const std::string d = tmp + "/zero-" + file;
      fs::create_directories(d);
      if (std::string(file) == "state.json")
        put("zero-state.json/campaign.json", "{}\n");
      fs::create_symlink("/dev/zero", d + "/" + file);
    }
    // A campaign whose one finding's report is /dev/zero.
    fs::create_directories(tmp + "/zero-report/findings/crash-0123456789abcdef");
    put("zero-report/summary.json", "{\"cases\": 1}\n");
    put("zero-report/findings/crash-0123456789abcdef/seeds.txt", "7\n");
    fs::create_symlink("/dev/zero",
                       tmp + "/zero-report/findings/crash-0123456789abcdef/report.json");
    // Findings of some other campaign, with no campaign.json to say which.
    fs::create_directories(tmp + "/orphan/findings/crash-0123456789abcdef");
    put("orphan/findings/crash-0123456789abcdef/seeds.txt", "7\n");
    fs::create_directories(tmp + "/stateonly");
    put("stateonly/state.json", state);
    fs::create_directories(tmp + "/newer");
    std::string newer = state;
    newer.replace(newer.find("\"format\": 2"), 11, "\"format\": 9");
    put("newer/state.json", newer);
    fs::create_directories(tmp + "/foreign");
    put("foreign/campaign.json", "{\"format\": 2, \"style\": \"affine\", \"pipeline\": \"O0\", "
                                 "\"unrolled_by\": 4}\n");
    // Shards of two different campaigns.
    for (const char *pipeline : {"O0", "O2"}) {
      const std::string d = std::string("shard-") + pipeline;
      fs::create_directories(tmp + "/" + d + "/findings");
      put(d + "/campaign.json", std::string("{\"format\": 2, \"style\": \"affine\", "
                                            "\"pipeline\": \"") +
                                    pipeline + "\"}\n");
    }
    // A campaign directory that another run holds.
    fs::create_directories(tmp + "/held");
    put("held/lock", "pid 1, npufuzz fuzz\n");
    heldLock = ::open((tmp + "/held/lock").c_str(), O_RDWR | O_CLOEXEC);
    struct flock whole = {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    ::fcntl(heldLock, F_SETLK, &whole);
    // An external case directory, written by npufuzz itself (the command
    // copies it away), and copies of it that contradict themselves.
    const std::string casePath = tmp + "/case.npf";
    const std::string copy = "cp -r {dir} " + tmp + "/ext";
    std::vector<std::string> argv = {NPUFUZZ_BINARY, "run",   casePath, "--backend",
                                     "external",     "--cmd", copy};
    std::vector<llvm::StringRef> refs(argv.begin(), argv.end());
    const std::optional<llvm::StringRef> quiet[] = {
        llvm::StringRef("/dev/null"), llvm::StringRef("/dev/null"), llvm::StringRef("/dev/null")};
    llvm::sys::ExecuteAndWait(NPUFUZZ_BINARY, refs, std::nullopt, quiet, 120);
    const std::string manifest = slurp(tmp + "/ext/manifest.json");
    fs::copy(tmp + "/ext", tmp + "/ext-shape", fs::copy_options::recursive);
    std::string shape = manifest;
    shape.replace(shape.find("\"shape\": [4, 8]"), 15, "\"shape\": [8, 8]");
    put("ext-shape/manifest.json", shape);
    fs::copy(tmp + "/ext", tmp + "/ext-arg", fs::copy_options::recursive);
    std::string arg = manifest;
    arg.replace(arg.find("{\"kind\": \"input\", \"index\": 0}"), 29,
                "{\"kind\": \"input\", \"index\": 5}");
    put("ext-arg/manifest.json", arg);
    // An index sum longer than any backend can compile (MLIR's parser
    // recurses over it).
    std::string sum = "d1";
    for (int i = 0; i < 40000; ++i)
      sum += " + d1";
    put("longsum.npf", "npufuzz-case 1\n%x = input {fill=iota} : f32[4,8]\n"
                       "%v = index_map %x {map=(d0, d1) -> (d0, (" +
                           sum + ") mod 8)} : f32[4,8]\nreturn %v\n");
    // Expect lines that do not parse: a verdict that is none, a field that
    // is none.
    const std::string body = "npufuzz-case 1\n%0 = input {fill=rand} : f32[4]\n"
                             "%1 = exp %0 : f32[4]\nreturn %1\n";
    put("damaged.npf", "// expect: crsh style=affine pipeline=O0\n" + body);
    put("badfield.npf", "// expect: ok style=affine lowering=x pipeline=O0\n" + body);
    fs::create_directories(tmp + "/damaged-regressions");
    fs::copy_file(tmp + "/damaged.npf", tmp + "/damaged-regressions/damaged.npf");
    // Matmul only, and no value of rank 2: no op can be built.
    std::string unsat = "max_rank = 1\npattern_rate = 0\nop.matmul = 1\n";
    // Every other op of the table at weight 0 (inputs are never drawn).
    for (int k = 0; k < npufuzz::numOpKinds(); ++k) {
      const npufuzz::OpKind kind = static_cast<npufuzz::OpKind>(k);
      if (kind != npufuzz::OpKind::Matmul && kind != npufuzz::OpKind::Input)
        unsat += "op." + std::string(npufuzz::opName(kind)) + " = 0\n";
    }
    put("unsat.policy", unsat);
    // Output paths that are not regular files: written through or refused,
    // never replaced. A FIFO of their own, so that a row that wrongly
    // replaced it could not break the rows that read {tmp}/fifo. Links to
    // the devices, not the devices: an unfixed binary run as root would
    // replace only a link.
    ::mkfifo((tmp + "/out-fifo").c_str(), 0644);
    fs::create_symlink(tmp + "/out-fifo", tmp + "/out-fifo-link");
    fs::create_symlink("/dev/null", tmp + "/null-link");
    fs::create_symlink("/dev/full", tmp + "/full-link");
    put("big.npf", "npufuzz-case 1\n%0 = input {fill=rand} : f32[64,64]\n"
                   "%1 = exp %0 : f32[64,64]\nreturn %1\n");
    fs::create_directories(tmp + "/ref-fifo");
    ::mkfifo((tmp + "/ref-fifo/in0.npy").c_str(), 0644);
    fs::create_directories(tmp + "/ref-dir/out0.npy");
    fs::copy(tmp + "/ext", tmp + "/ext-fifo", fs::copy_options::recursive);
    ::mkfifo((tmp + "/ext-fifo/out0.npy").c_str(), 0644);
  }
  static void TearDownTestSuite() {
    ::close(heldLock);
    fs::remove_all(tmp);
  }

  static std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  static void put(const std::string &name, const std::string &text) {
    std::ofstream(tmp + "/" + name, std::ios::binary) << text;
  }

  static std::string tmp;
  static int heldLock;
};
std::string HostileInput::tmp;
int HostileInput::heldLock = -1;

// Where nothing can be created, even by root.
const char *kUnwritable = "/proc/npufuzz-cannot-be-created/out";

std::vector<Row> rows() {
  const std::string plugin = NPUFUZZ_TEST_PLUGIN;
  return {
      {"from-bytes of a directory", {"from-bytes", "{tmp}/dir"}, 2, "is a directory"},
      {"from-bytes of a missing file", {"from-bytes", "{tmp}/missing"}, 2, "No such file"},
      {"check of a directory", {"check", "{tmp}/dir"}, 2, "is a directory"},
      {"check of an empty file", {"check", "{tmp}/empty"}, 2, "empty file"},
      {"check of junk", {"check", "{tmp}/junk"}, 2, "junk:1:"},
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
      {"merge into a campaign",
       {"merge", "-o", "{tmp}/killed", "{tmp}/campaign"},
       2,
       "holds a campaign; merge into a new directory"},
      {"merge into a directory another run holds",
       {"merge", "-o", "{tmp}/held", "{tmp}/campaign"},
       2,
       "is in use by another npufuzz (pid 1"},
      {"merge of a campaign whose compiler coverage is corrupt",
       {"merge", "-o", "{tmp}/merged9", "{tmp}/badcoverage"},
       2,
       "{tmp}/badcoverage/compiler-coverage.json is not a JSON object"},
      {"merge of a directory into itself",
       {"merge", "-o", "{tmp}/campaign", "{tmp}/campaign"},
       2,
       "into itself"},
      {"merge of shards of two campaigns",
       {"merge", "-o", "{tmp}/merged4", "{tmp}/shard-O0", "{tmp}/shard-O2"},
       2,
       "ran different campaigns (pipeline \"O0\" vs \"O2\")"},
      {"merge of a missing directory",
       {"merge", "-o", "{tmp}/merged3", "{tmp}/missing"},
       2,
       "No such file"},
      {"merge of a non-campaign",
       {"merge", "-o", "{tmp}/merged2", "{tmp}/dir"},
       2,
       "not a campaign directory"},
      {"report of a missing directory",
       {"report", "{tmp}/missing", "-o", "{tmp}/rep1"},
       2,
       "No such file or directory"},
      {"report of a file", {"report", "{tmp}/junk", "-o", "{tmp}/rep2"}, 2, "not a directory"},
      {"report of a campaign whose finding's report.json is /dev/zero",
       {"report", "{tmp}/zero-report", "-o", "{tmp}/rep4"},
       2,
       "not a finding report"},
      {"merge of a campaign whose finding's report.json is /dev/zero",
       {"merge", "-o", "{tmp}/merged5", "{tmp}/zero-report"},
       2,
       "not a finding report"},
      {"check of an index sum no backend can compile",
       {"check", "{tmp}/longsum.npf"},
       2,
       "more than 65536 terms and operators"},
      {"reduce into a file",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/junk"},
       2,
       "-o {tmp}/junk: exists and is not a directory"},
      {"reduce into an unwritable place",
       {"reduce", "{tmp}/case.npf", "-o", kUnwritable},
       2,
       "-o /proc/npufuzz-cannot-be-created/out: cannot create it"},
      {"reduce with an interestingness command that is not there",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red5", "--interestingness-cmd",
        "/nonexistent/test.sh"},
       2,
       "--interestingness-cmd: /nonexistent/test.sh"},
      {"reduce with an interestingness command that is not executable",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red5", "--interestingness-cmd", "{tmp}/junk"},
       2,
       "{tmp}/junk: is not executable"},
      {"reduce with an interestingness command that cannot be executed",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red6", "--interestingness-cmd",
        "{tmp}/badinterp.sh"},
       2,
       "cannot run {tmp}/badinterp.sh"},
      {"reduce with an interestingness command the input does not pass",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red7", "--interestingness-cmd", "/bin/false"},
       2,
       "the input is not interesting to /bin/false (it exited 1)"},
      {"run of a case whose expect line is damaged",
       {"run", "{tmp}/damaged.npf"},
       2,
       "{tmp}/damaged.npf:1: damaged expect line: unknown verdict 'crsh'"},
      {"run of a case whose expect line has a field that is none",
       {"run", "{tmp}/badfield.npf"},
       2,
       "badfield.npf:1: damaged expect line"},
      {"reduce of a case whose expect line is damaged",
       {"reduce", "{tmp}/damaged.npf", "-o", "{tmp}/red10"},
       2,
       "damaged.npf:1: damaged expect line"},
      {"replay of a regression whose expect line is damaged",
       {"replay", "{tmp}/damaged-regressions"},
       1,
       "damaged.npf:1: damaged expect line: unknown verdict 'crsh'"},
      {"gen with a policy nothing satisfies",
       {"gen", "--seed", "1", "--policy", "{tmp}/unsat.policy"},
       2,
       "unsat.policy: no case satisfies it"},
      // Output paths: written through or refused, never replaced.
      {"gen into a FIFO",
       {"gen", "--seed", "5", "-o", "{tmp}/out-fifo"},
       2,
       "cannot write {tmp}/out-fifo: is a FIFO, not a regular file"},
      {"gen into a symlink to a FIFO",
       {"gen", "--seed", "5", "-o", "{tmp}/out-fifo-link"},
       2,
       "out-fifo-link: is a FIFO, not a regular file"},
      {"from-bytes into a FIFO",
       {"from-bytes", "{tmp}/junk", "-o", "{tmp}/out-fifo"},
       2,
       "cannot write {tmp}/out-fifo: is a FIFO, not a regular file"},
      {"verify-pipeline --json into a FIFO",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--no-exec", "--json",
        "{tmp}/out-fifo"},
       2,
       "cannot write {tmp}/out-fifo: is a FIFO, not a regular file"},
      {"gen into /dev/null through a symlink",
       {"gen", "--seed", "5", "-o", "{tmp}/null-link"},
       0,
       ""},
      {"gen into /dev/full through a symlink",
       {"gen", "--seed", "5", "-o", "{tmp}/full-link"},
       2,
       "cannot write {tmp}/full-link: No space left on device"},
      {"ref whose in0.npy is a FIFO",
       {"ref", "{tmp}/case.npf", "-o", "{tmp}/ref-fifo"},
       2,
       "cannot write {tmp}/ref-fifo/in0.npy: is a FIFO, not a regular file"},
      {"ref whose out0.npy is a directory",
       {"ref", "{tmp}/case.npf", "-o", "{tmp}/ref-dir"},
       2,
       "out0.npy: is a directory, not a file"},
      {"ref on a full disk",
       {"{sh}", "ulimit -f 1; exec {npufuzz} ref {tmp}/big.npf -o {tmp}/ref-full"},
       2,
       "cannot write {tmp}/ref-full/in0.npy: File too large"},
      {"external-mlir whose out0.npy is a FIFO",
       {"external-mlir", "{tmp}/ext-fifo"},
       80,
       "cannot write {tmp}/ext-fifo/out0.npy: is a FIFO, not a regular file"},
      {"merge of a shard and its copy",
       {"merge", "-o", "{tmp}/merged6", "{tmp}/killed", "{tmp}/killedcopy"},
       2,
       "cannot merge {tmp}/killedcopy with {tmp}/killed: both ran seed 0"},
      {"fuzz into a campaign with a directory in findings/ it did not file",
       {"fuzz", "-o", "{tmp}/foreignfinding", "--max-cases", "8"},
       2,
       "findings/notes: not a finding npufuzz filed"},
      {"fuzz with a compiler coverage that is neither on nor off",
       {"fuzz", "-o", "{tmp}/cc", "--compiler-coverage", "sometimes", "--max-cases", "1"},
       2,
       "--compiler-coverage sometimes: give on or off"},
      {"fuzz with a guidance epoch but no guidance",
       {"fuzz", "-o", "{tmp}/ge", "--guidance-epoch", "8", "--max-cases", "1"},
       2,
       "--guidance-epoch is for guided campaigns"},
      {"fuzz with a guidance epoch of none",
       {"fuzz", "-o", "{tmp}/ge0", "--guidance", "feedback", "--guidance-epoch", "0", "--max-cases",
        "1"},
       2,
       "guidance-epoch"},
      {"fuzz into a campaign whose compiler-coverage.json is not one",
       {"fuzz", "-o", "{tmp}/badcoverage", "--max-cases", "8"},
       2,
       "{tmp}/badcoverage/compiler-coverage.json is not a JSON object"},
      {"fuzz from a seed past 2^63 - 1",
       {"fuzz", "-o", "{tmp}/k9", "--seed-start", "9223372036854775808", "--max-cases", "1"},
       2,
       "at most 9223372036854775807"},
      {"fuzz whose last seed would pass 2^63 - 1",
       {"fuzz", "-o", "{tmp}/k10", "--seed-start", "9223372036854775800", "--max-cases", "9"},
       2,
       "its last seed would pass 9223372036854775807"},
      {"sweep past 2^64 - 1",
       {"sweep", "--seed-start", "18446744073709551615", "--count", "2"},
       2,
       "its last seed would pass 18446744073709551615"},
      {"report of a corrupt campaign",
       {"report", "{tmp}/corrupt", "-o", "{tmp}/rep3"},
       2,
       "not a finding report"},
      {"fuzz with a missing --known",
       {"fuzz", "-o", "{tmp}/k1", "--max-cases", "1", "--known", "{tmp}/missing"},
       2,
       "--known"},
      {"fuzz with junk --known",
       {"fuzz", "-o", "{tmp}/k2", "--max-cases", "1", "--known", "{tmp}/junk"},
       2,
       "holds for no backend"},
      {"report with a missing --known",
       {"report", "{tmp}/campaign", "-o", "{tmp}/rep4", "--known", "{tmp}/missing"},
       2,
       "--known"},
      {"report with junk --known",
       {"report", "{tmp}/campaign", "-o", "{tmp}/rep5", "--known", "{tmp}/junk"},
       2,
       "holds for no backend"},
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
       {"run", "{tmp}/case.npf", "--backend", "torch", "--python", "/bin/false"},
       2,
       "torch /bin/false failed its canary: cannot import torch"},
      {"run --backend torch with a python that is not one",
       {"run", "{tmp}/case.npf", "--backend", "torch", "--python", "/bin/true"},
       2,
       "printed no torch version"},
      {"run --backend pto with a missing ptoas",
       {"run", "{tmp}/case.npf", "--backend", "pto", "--ptoas", "{tmp}/missing", "--pto-isa",
        "{tmp}/isa"},
       2,
       "ptoas from --ptoas: {tmp}/missing is not an executable file; see "
       "docs/toolchains.md#ptoas"},
      {"fuzz --backend pto with a ptoas that is /bin/false",
       {"fuzz", "-o", "{tmp}/pf", "--backend", "pto", "--max-cases", "5", "--pto-isa", "{tmp}/isa"},
       2,
       "ptoas /bin/false failed its canary",
       {"NPUFUZZ_PTOAS=/bin/false"}},
      {"fuzz --backend pto with a ptoas that is /bin/true",
       {"fuzz", "-o", "{tmp}/pt", "--backend", "pto", "--max-cases", "5", "--ptoas", "/bin/true",
        "--pto-isa", "{tmp}/isa"},
       2,
       "ptoas /bin/true failed its canary"},
      {"run --backend pto with a pto-isa directory without its headers",
       {"run", "{tmp}/case.npf", "--backend", "pto", "--pto-isa", "{tmp}/dir"},
       2,
       "no pto/pto-inst.hpp under {tmp}/dir"},
      {"run with a toolchain config file that does not parse",
       {"run", "{tmp}/case.npf", "--backend", "pto"},
       2,
       "toolchain config {tmp}/junk does not parse",
       {"NPUFUZZ_CONFIG={tmp}/junk"}},
      {"run with a toolchain config file that is not there",
       {"run", "{tmp}/case.npf", "--backend", "torch"},
       2,
       "toolchain config {tmp}/missing: ",
       {"NPUFUZZ_CONFIG={tmp}/missing"}},
      {"toolchains with a config file naming an unknown toolchain",
       {"toolchains", "--no-canary-case"},
       2,
       "names an unknown toolchain 'ptoass'",
       {"NPUFUZZ_CONFIG={tmp}/typo.json"}},
      {"toolchains --require of an unknown toolchain",
       {"toolchains", "--require", "nope"},
       2,
       "--require: unknown toolchain 'nope'"},
      {"toolchains --where of an unknown toolchain",
       {"toolchains", "--where", "nope"},
       2,
       "--where: unknown toolchain 'nope'"},
      {"toolchains --where of a toolchain that is not there",
       {"toolchains", "--where", "ptoas", "--ptoas", "/bin/true"},
       2,
       "ptoas is not usable"},
      {"toolchains with a named ptoas that is not one",
       {"toolchains", "--no-canary-case", "--ptoas", "/bin/true"},
       2,
       "ptoas was named (--ptoas) but is not usable"},
      {"run --ptoas without --backend pto",
       {"run", "{tmp}/case.npf", "--ptoas", "{tmp}/junk"},
       2,
       "are for --backend pto"},
      {"run --pto-no-insert-sync without --backend pto",
       {"run", "{tmp}/case.npf", "--pto-no-insert-sync"},
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
      {"replay of a missing directory", {"replay", "{tmp}/missing"}, 2, "No such file"},
      {"external-mlir of an empty directory", {"external-mlir", "{tmp}/dir"}, 80, "manifest.json"},
      // The command line itself: exit 2, never llvm::cl's 1 (a finding's).
      {"an unknown subcommand", {"frobnicate"}, 2, "Unknown subcommand 'frobnicate'"},
      {"an unknown subcommand asked for help",
       {"exports", "--help"},
       2,
       "Unknown subcommand 'exports'"},
      {"export as a form there is none of",
       {"export", "{tmp}/case.npf", "--as", "onnx"},
       2,
       "--as: 'onnx' is not a form (torch, tvm, torch-harness, tvm-harness, iree, iree-harness, "
       "mlir, "
       "pytorchsim, report)"},
      {"export of a missing case", {"export", "{tmp}/missing", "--as", "torch"}, 2, "No such file"},
      {"export of a directory that is no finding",
       {"export", "{tmp}/dir", "--as", "torch"},
       2,
       "is neither a case file nor a finding directory"},
      {"export to a directory",
       {"export", "{tmp}/case.npf", "--as", "torch", "-o", "{tmp}/dir"},
       2,
       "cannot write"},
      {"an unknown flag", {"check", "--bogus", "{tmp}/case.npf"}, 2, "'--bogus'"},
      {"a missing case file", {"check", "{tmp}/missing.npf"}, 2, "No such file"},
      {"a missing required flag", {"ref", "{tmp}/case.npf"}, 2, "-o"},
      // Numbers: finite, in range, nothing after them.
      {"--jobs -1", {"fuzz", "-o", "{tmp}/n", "--jobs", "-1"}, 2, "--jobs option: takes"},
      {"--jobs 1000", {"fuzz", "-o", "{tmp}/n", "--jobs", "1000"}, 2, "from 0 to 256"},
      {"--timeout 1e30", {"fuzz", "-o", "{tmp}/n", "--timeout", "1e30"}, 2, "from 1 to 86400"},
      {"--timeout -5", {"fuzz", "-o", "{tmp}/n", "--timeout", "-5"}, 2, "--timeout option"},
      {"--timeout 0", {"fuzz", "-o", "{tmp}/n", "--timeout", "0"}, 2, "--timeout option"},
      {"--timeout nan", {"fuzz", "-o", "{tmp}/n", "--timeout", "nan"}, 2, "not 'nan'"},
      {"--timeout inf", {"run", "{tmp}/case.npf", "--timeout", "inf"}, 2, "not 'inf'"},
      {"--timeout with junk", {"--seed", "1", "--timeout", "5s"}, 2, "not '5s'"},
      {"--memory-mb 1", {"fuzz", "-o", "{tmp}/n", "--memory-mb", "1"}, 2, "from 512"},
      {"verify-pipeline --memory-mb 1",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--memory-mb", "1"},
       2,
       "--memory-mb option"},
      {"verify-pipeline --timeout nan",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--timeout", "nan"},
       2,
       "--timeout option"},
      {"--metamorphic-share nan",
       {"fuzz", "-o", "{tmp}/n", "--metamorphic-share", "nan"},
       2,
       "a share from 0 to 1"},
      {"--metamorphic-share 1.5",
       {"fuzz", "-o", "{tmp}/n", "--metamorphic-share", "1.5"},
       2,
       "a share from 0 to 1"},
      {"--max-time inf", {"fuzz", "-o", "{tmp}/n", "--max-time", "inf"}, 2, "--max-time option"},
      {"--max-cases with junk", {"fuzz", "-o", "{tmp}/n", "--max-cases", "3x"}, 2, "not '3x'"},
      {"--max-findings -1", {"fuzz", "-o", "{tmp}/n", "--max-findings", "-1"}, 2, "not '-1'"},
      {"--seed-start -1", {"fuzz", "-o", "{tmp}/n", "--seed-start", "-1"}, 2, "not '-1'"},
      {"--cases-per-worker 0",
       {"fuzz", "-o", "{tmp}/n", "--cases-per-worker", "0"},
       2,
       "from 1 to 1000000"},
      {"--reduce-time 0", {"fuzz", "-o", "{tmp}/n", "--reduce-time", "0"}, 2, "from 1 to 604800"},
      {"--shard past 2^32", {"fuzz", "-o", "{tmp}/n", "--shard", "1/4294967298"}, 2, "--shard"},
      {"--shard I >= N", {"fuzz", "-o", "{tmp}/n", "--shard", "3/2"}, 2, "0 <= I < N"},
      {"--shard not a number", {"fuzz", "-o", "{tmp}/n", "--shard", "1/x"}, 2, "not '1/x'"},
      {"gen --seed in hex", {"gen", "--seed", "0x10"}, 2, "not '0x10'"},
      {"sweep --count 0", {"sweep", "--count", "0"}, 2, "--count option"},
      {"reduce --jobs 0",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red3", "--jobs", "0"},
       2,
       "--jobs option"},
      {"reduce --max-time nan",
       {"reduce", "{tmp}/case.npf", "-o", "{tmp}/red4", "--max-time", "nan"},
       2,
       "--max-time option"},
      // Inputs that are not regular files, or that overflow.
      {"check of a FIFO", {"check", "{tmp}/fifo"}, 2, "is a FIFO"},
      {"run of a FIFO", {"run", "{tmp}/fifo"}, 2, "is a FIFO"},
      {"a FIFO as policy", {"gen", "--policy", "{tmp}/fifo"}, 2, "is a FIFO"},
      {"a FIFO as MLIR", {"verify-pipeline", "{tmp}/fifo", "--pipeline", "cse"}, 2, "is a FIFO"},
      {"a FIFO as --known",
       {"report", "{tmp}/campaign", "-o", "{tmp}/rep7", "--known", "{tmp}/fifo"},
       2,
       "is a FIFO"},
      {"a FIFO as a plugin",
       {"run", "{tmp}/case.npf", "--load-pass-plugin", "{tmp}/fifo"},
       2,
       "is a FIFO"},
      {"/dev/zero as MLIR",
       {"verify-pipeline", "/dev/zero", "--pipeline", "cse"},
       2,
       "is a device"},
      {"/dev/zero as a case", {"check", "/dev/zero"}, 2, "is a device"},
      {"/dev/zero as fuzzer bytes", {"from-bytes", "/dev/zero"}, 2, "is a device"},
      {"check of a slice whose offset and stride overflow",
       {"check", "{tmp}/overflow.npf"},
       2,
       "reads outside"},
      {"ref of a slice whose offset and stride overflow",
       {"ref", "{tmp}/overflow.npf", "-o", "{tmp}/ref2"},
       2,
       "reads outside"},
      {"external-mlir of a well-formed case directory", {"external-mlir", "{tmp}/ext"}, 0, ""},
      {"external-mlir whose .npy disagrees with the manifest",
       {"external-mlir", "{tmp}/ext-shape"},
       1,
       "has another shape than manifest.json"},
      {"external-mlir whose argument names a missing input",
       {"external-mlir", "{tmp}/ext-arg"},
       1,
       "names tensor 5 of 1"},
      // Plugins.
      {"a plugin that is not one",
       {"run", "{tmp}/case.npf", "--load-pass-plugin", "{tmp}/junk"},
       2,
       "cannot load pass plugin"},
      {"two plugins registering one pass name",
       {"fuzz", "-o", "{tmp}/n", "--load-pass-plugin", plugin, "--load-pass-plugin",
        "{tmp}/plugin-copy.so"},
       2,
       "registers a pass whose name is taken"},
      {"verify-pipeline with two plugins registering one pass name",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--load-pass-plugin", plugin,
        "--load-pass-plugin", "{tmp}/plugin-copy.so"},
       2,
       "registers a pass whose name is taken"},
      // Tools that cannot start: the machine's or the user's, never a finding.
      {"an external command that is not there",
       {"fuzz", "-o", "{tmp}/n", "--backend", "external", "--cmd", "/nonexistent {dir}"},
       2,
       "--cmd: /nonexistent"},
      {"an external command that cannot be executed",
       {"fuzz", "-o", "{tmp}/x1", "--backend", "external", "--cmd", "{tmp}/badinterp.sh {dir}",
        "--max-cases", "4", "--quiet"},
       2,
       "cannot start the external command: cannot execute"},
      {"a persistent command that cannot be executed",
       {"fuzz", "-o", "{tmp}/x2", "--backend", "external", "--persistent", "--cmd",
        "{tmp}/badinterp.sh", "--max-cases", "4", "--quiet"},
       2,
       "cannot execute"},
      {"a temporary directory that is not there",
       {"fuzz", "-o", "{tmp}/x3", "--backend", "external", "--cmd", "/bin/true {dir}",
        "--max-cases", "4", "--quiet"},
       2,
       "set TMPDIR to a writable directory",
       {"TMPDIR=/nonexistent"}},
      {"mlir-tools with an mlir-opt that is not there",
       {"fuzz", "-o", "{tmp}/n", "--backend", "mlir-tools", "--opt", "/nonexistent"},
       2,
       "mlir-opt from --opt: /nonexistent is not an executable file"},
      {"mlir-tools with an mlir-opt that is /bin/true",
       {"fuzz", "-o", "{tmp}/ot", "--backend", "mlir-tools", "--opt", "/bin/true", "--max-cases",
        "3"},
       2,
       "mlir-opt /bin/true failed its canary: does not report an LLVM version"},
      {"mlir-tools with an mlir-opt that is /bin/false",
       {"run", "{tmp}/case.npf", "--backend", "mlir-tools", "--opt", "/bin/false"},
       2,
       "mlir-opt /bin/false failed its canary"},
      {"mlir-tools with an mlir-runner that is mlir-opt",
       {"run", "{tmp}/case.npf", "--backend", "mlir-tools", "--runner", "mlir-opt-22"},
       2,
       "failed its canary: does not run an empty main"},
      {"--opt without mlir-tools",
       {"run", "{tmp}/case.npf", "--opt", "/bin/true"},
       2,
       "are for --backend mlir-tools"},
      {"verify-pipeline with an mlir-opt that is not there",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--opt", "/nonexistent"},
       2,
       "--opt: /nonexistent"},
      {"verify-pipeline with an mlir-opt that is /bin/true",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--opt", "/bin/true"},
       2,
       "mlir-opt /bin/true failed its canary"},
      {"verify-pipeline --entry of a function that is not there",
       {"verify-pipeline", "{tmp}/div.mlir", "--pipeline", "cse", "--entry", "nope"},
       2,
       "--entry: no function @nope in"},
      {"verify-pipeline of text that is not MLIR",
       {"verify-pipeline", "{tmp}/bad.mlir", "--pipeline", "cse"},
       2,
       "the input is not valid MLIR"},
      {"sweep --backend with a pipeline that does not parse",
       {"sweep", "--count", "3", "--backend", "--pipeline", "func.func(nope)"},
       2,
       "--pipeline: cannot parse"},
      {"no subcommand at all", {}, 2, "nothing to do"},
      {"replay of a regression whose pipeline needs a plugin not loaded",
       {"replay", "{tmp}/plugin-regressions"},
       2,
       "does not parse here"},
      // Campaign directories: one writer, checked writes, known formats.
      {"fuzz into a directory another run holds",
       {"fuzz", "-o", "{tmp}/held", "--max-cases", "1"},
       2,
       "is in use by another npufuzz (pid 1, npufuzz fuzz)"},
      {"resume of a state that lost 'next'",
       {"fuzz", "-o", "{tmp}/nonext", "--max-cases", "1"},
       2,
       "'next' is missing"},
      {"resume of a state with a negative count",
       {"fuzz", "-o", "{tmp}/negative", "--max-cases", "1"},
       2,
       "'verdicts' or 'features' holds something other than counts"},
      {"resume of a state whose verdicts do not add up to its cases",
       {"fuzz", "-o", "{tmp}/unsummed", "--max-cases", "1"},
       2,
       "'verdicts' count 2 cases, 'total_cases' 7"},
      {"resume of a state that counts a verdict that is none",
       {"fuzz", "-o", "{tmp}/notaverdict", "--max-cases", "1"},
       2,
       "'verdicts' names 'fine', which is no verdict"},
      {"resume of a state deferring a case outside the campaign",
       {"fuzz", "-o", "{tmp}/deferred", "--max-cases", "1"},
       2,
       "'deferred' holds something other than cases that ran"},
      {"resume of a state deferring a case twice",
       {"fuzz", "-o", "{tmp}/twice", "--max-cases", "1"},
       2,
       "'deferred' holds something other than cases that ran"},
      {"resume of a campaign.json that is /dev/zero",
       {"fuzz", "-o", "{tmp}/zero-campaign.json", "--max-cases", "1"},
       2,
       "campaign.json: is a device, not a regular file)"},
      {"resume of a state.json that is /dev/zero",
       {"fuzz", "-o", "{tmp}/zero-state.json", "--max-cases", "1"},
       2,
       "state.json: is a device, not a regular file)"},
      {"fuzz into findings with no campaign.json",
       {"fuzz", "-o", "{tmp}/orphan", "--max-cases", "1"},
       2,
       "holds findings but no campaign.json"},
      {"resume of a state with no campaign.json",
       {"fuzz", "-o", "{tmp}/stateonly", "--max-cases", "1"},
       2,
       "no campaign.json"},
      {"resume of a newer format",
       {"fuzz", "-o", "{tmp}/newer", "--max-cases", "1"},
       2,
       "written by a newer npufuzz"},
      {"resume of a campaign of another shape",
       {"fuzz", "-o", "{tmp}/foreign", "--max-cases", "1"},
       2,
       "unrolled_by: in"},
      {"a campaign on a full disk",
       {"{sh}", "ulimit -f 1; exec {npufuzz} fuzz -o {tmp}/full --max-cases 40 "
                "--quiet --no-reduce"},
       2,
       "cannot"},
      {"report of a run killed before its summary",
       {"report", "{tmp}/killed", "-o", "{tmp}/rep8"},
       0,
       "7 cases"},
      {"stats of a run killed before its summary", {"stats", "{tmp}/killed"}, 0, "cases"},
      {"stats of a file", {"stats", "{tmp}/junk"}, 2, "is not a directory"},
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

TEST_F(HostileInput, AnOutputPathIsWrittenThroughNeverReplaced) {
  auto gen = [&](const std::string &out) {
    const std::vector<llvm::StringRef> argv = {NPUFUZZ_BINARY, "gen", "--seed", "5", "-o", out};
    const std::optional<llvm::StringRef> quiet[] = {
        llvm::StringRef("/dev/null"), llvm::StringRef("/dev/null"), llvm::StringRef("/dev/null")};
    return llvm::sys::ExecuteAndWait(NPUFUZZ_BINARY, argv, std::nullopt, quiet, 60);
  };
  put("target.npf", "old\n");
  fs::create_symlink(tmp + "/target.npf", tmp + "/link.npf");
  EXPECT_EQ(gen(tmp + "/link.npf"), 0);
  EXPECT_TRUE(fs::is_symlink(tmp + "/link.npf"));
  EXPECT_NE(slurp(tmp + "/target.npf").find("npufuzz-case"), std::string::npos);
  EXPECT_EQ(gen(tmp + "/null-link"), 0);
  EXPECT_TRUE(fs::is_symlink(tmp + "/null-link"));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(gen(tmp + "/out-fifo"), 2);
  EXPECT_TRUE(fs::is_fifo(tmp + "/out-fifo"));
  for (const fs::directory_entry &e : fs::directory_iterator(tmp))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

namespace {
/// Whether process `pid` is gone (or a zombie nobody has reaped yet).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line))
    return true;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}
} // namespace

TEST_F(HostileInput, WhatAnExternalCommandLeftRunningEndsWithTheCase) {
  // A command that hangs in a child of its own: the case is a hang, and
  // the child does not outlive it, one-shot or persistent. The worker
  // npufuzz stops for it dies quietly: no crash report of its own stack.
  put("sleeper.sh", "#!/bin/sh\nsleep 1001 &\necho $! > \"$0.pid\"\nwait\n");
  put("psleeper.sh", "#!/bin/sh\nwhile read dir; do\n  sleep 1001 &\n"
                     "  echo $! > \"$0.pid\"\n  wait\ndone\n");
  for (const char *script : {"sleeper.sh", "psleeper.sh"}) {
    SCOPED_TRACE(script);
    const std::string path = tmp + "/" + script;
    fs::permissions(path, fs::perms::owner_all);
    const bool persistent = std::string(script) == "psleeper.sh";
    std::vector<std::string> args = {NPUFUZZ_BINARY,
                                     "run",
                                     tmp + "/case.npf",
                                     "--backend",
                                     "external",
                                     "--cmd",
                                     persistent ? path : path + " {dir}",
                                     "--timeout",
                                     "2"};
    if (persistent)
      args.push_back("--persistent");
    const std::vector<llvm::StringRef> argv(args.begin(), args.end());
    const std::string out = tmp + "/leftover.txt", err = tmp + "/leftover.err";
    const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef("/dev/null"),
                                                        llvm::StringRef(out), llvm::StringRef(err)};
    EXPECT_EQ(llvm::sys::ExecuteAndWait(NPUFUZZ_BINARY, argv, std::nullopt, redirects, 300), 1);
    EXPECT_NE(slurp(out).find("hang"), std::string::npos) << slurp(out);
    for (const char *crashReport : {"PLEASE submit", "Stack dump", "runCommand", "Signals.inc"})
      EXPECT_EQ(slurp(err).find(crashReport), std::string::npos) << slurp(err);
    const pid_t sleeper = std::atoi(slurp(path + ".pid").c_str());
    ASSERT_GT(sleeper, 0);
    // Killed before npufuzz returned; a SIGKILL takes effect when the
    // process is next scheduled, which a loaded machine may delay.
    for (int tries = 0; tries < 300 && !gone(sleeper); ++tries)
      ::usleep(100 * 1000);
    EXPECT_TRUE(gone(sleeper)) << "the command's child " << sleeper << " outlived the case";
    if (!gone(sleeper))
      ::kill(sleeper, SIGKILL);
  }
}

TEST_F(HostileInput, TheTableHasARowForEveryKindOfMistake) { EXPECT_GE(rows().size(), 60u); }

TEST_F(HostileInput, EveryRowIsAClearErrorNeverASignalOrASilentSuccess) {
  for (const Row &row : rows()) {
    SCOPED_TRACE(row.name);
    const bool shell = !row.args.empty() && row.args[0] == "{sh}";
    std::vector<std::string> args = {shell ? "/bin/sh" : NPUFUZZ_BINARY};
    if (shell)
      args.push_back("-c");
    for (std::string a :
         shell ? std::vector<std::string>(row.args.begin() + 1, row.args.end()) : row.args) {
      for (size_t at = a.find("{tmp}"); at != std::string::npos; at = a.find("{tmp}"))
        a.replace(at, 5, tmp);
      for (size_t at = a.find("{npufuzz}"); at != std::string::npos; at = a.find("{npufuzz}"))
        a.replace(at, 9, NPUFUZZ_BINARY);
      args.push_back(a);
    }
    std::vector<llvm::StringRef> argv(args.begin(), args.end());
    auto withTmp = [&](std::string text) {
      for (size_t at = text.find("{tmp}"); at != std::string::npos; at = text.find("{tmp}"))
        text.replace(at, 5, tmp);
      return text;
    };
    // The row's variables replace the machine's (getenv takes the first).
    std::vector<std::string> envText;
    for (char **e = environ; *e; ++e) {
      const std::string entry = *e;
      if (std::none_of(row.env.begin(), row.env.end(), [&](const std::string &v) {
            return entry.compare(0, v.find('=') + 1, v, 0, v.find('=') + 1) == 0;
          }))
        envText.push_back(entry);
    }
    for (const std::string &v : row.env)
      envText.push_back(withTmp(v));
    std::vector<llvm::StringRef> env(envText.begin(), envText.end());
    const std::string out = tmp + "/stdout.txt", err = tmp + "/stderr.txt";
    const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef("/dev/null"),
                                                        llvm::StringRef(out), llvm::StringRef(err)};
    std::string message;
    const int status = llvm::sys::ExecuteAndWait(args[0], argv, env, redirects,
                                                 /*SecondsToWait=*/300, 0, &message);
    const std::string said = slurp(err) + slurp(out);
    // ExecuteAndWait gives -2 for a process that died by a signal.
    EXPECT_EQ(status, row.exitCode) << message << "\n" << said;
    // A refusal says why where errors go, not only in a report on stdout.
    if (row.exitCode == 2)
      EXPECT_FALSE(slurp(err).empty()) << "exit 2 with nothing on stderr";
    EXPECT_NE(said.find(withTmp(row.says)), std::string::npos) << said;
  }
}

} // namespace
