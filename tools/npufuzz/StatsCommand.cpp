//===- tools/npufuzz/StatsCommand.cpp - npufuzz stats -----------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "driver/CampaignCounts.h"
#include "driver/CompilerCoverage.h"

#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &StatsCommand() {
  static cl::SubCommand c("stats", "IR coverage of campaign directories: the ops the user's "
                                   "passes were given, and which passes changed the IR; and "
                                   "the union of their compiler's own coverage");
  return c;
}

namespace {
cl::list<std::string> dirs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                           cl::sub(StatsCommand()), cl::cat(category()));
} // namespace

int runStats() {
  IrCoverage total;
  CoverageTotals compiler;
  for (const std::string &dir : dirs) {
    if (!checkPath("<campaign dir>", dir, PathKind::Directory))
      return kExitError;
    IrCoverage c;
    CoverageTotals reached;
    std::string error;
    if (!readIrCoverage(dir, c, error) || !reached.load(dir, error))
      return fail(error);
    total.add(c);
    compiler.absorb(reached);
  }
  llvm::outs() << formatIrCoverage(total);
  // The compiler's own coverage, joined over the directories (shards of
  // one campaign, or its runs on several machines).
  llvm::outs() << formatCoverageLine(compiler.summary()) << "\n";
  return kExitOk;
}

} // namespace npufuzz::tool
