//===- tools/npufuzz/StatsCommand.cpp - npufuzz stats -----------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "driver/CampaignCounts.h"

#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &StatsCommand() {
  static cl::SubCommand c("stats", "IR coverage of campaign directories: the ops the user's "
                                   "passes were given, and which passes changed the IR");
  return c;
}

namespace {
cl::list<std::string> dirs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                           cl::sub(StatsCommand()), cl::cat(category()));
} // namespace

int runStats() {
  IrCoverage total;
  for (const std::string &dir : dirs) {
    if (!checkPath("<campaign dir>", dir, PathKind::Directory))
      return kExitError;
    IrCoverage c;
    std::string error;
    if (!readIrCoverage(dir, c, error))
      return fail(error);
    total.add(c);
  }
  llvm::outs() << formatIrCoverage(total);
  return kExitOk;
}

} // namespace npufuzz::tool
