//===- tools/npufuzz/CheckCommand.cpp - npufuzz check -----------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "ir/Case.h"

#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &CheckCommand() {
  static cl::SubCommand c("check", "Parse and verify case files (exit 2 if any is not valid)");
  return c;
}

namespace {
cl::list<std::string> files(cl::Positional, cl::desc("<case.npf>..."), cl::OneOrMore,
                            cl::sub(CheckCommand()), cl::cat(category()));
} // namespace

int runCheck() {
  // A file that is missing or not a valid case is an error in what
  // npufuzz was given; every file is still checked, so one run names all.
  int status = kExitOk;
  for (const std::string &path : files) {
    Case c;
    if (!loadCase(path, c)) {
      status = kExitError;
      continue;
    }
    llvm::outs() << path << ": ok (" << c.numComputeOps() << " ops, " << c.outputs.size()
                 << " outputs)\n";
  }
  return status;
}

} // namespace npufuzz::tool
