//===- tools/npufuzz/ReportCommand.cpp - npufuzz report ---------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "driver/Report.h"

#include "llvm/Support/raw_ostream.h"

#include <set>

namespace npufuzz::tool {

cl::SubCommand &ReportCommand() {
  static cl::SubCommand c("report", "JSON, JUnit XML and HTML reports of campaign directories");
  return c;
}

namespace {
cl::list<std::string> dirs(cl::Positional, cl::desc("<campaign dir>..."), cl::OneOrMore,
                           cl::sub(ReportCommand()), cl::cat(category()));
cl::opt<std::string> outDir("o", cl::desc("Report directory"), cl::value_desc("DIR"), cl::Required,
                            cl::sub(ReportCommand()), cl::cat(category()));
cl::opt<std::string>
    knownPath("known",
              cl::desc("Known signature ids, one per line, under sections naming their backends"),
              cl::value_desc("FILE"), cl::sub(ReportCommand()), cl::cat(category()));
} // namespace

int runReport() {
  for (const std::string &dir : dirs)
    if (!checkPath("<campaign dir>", dir, PathKind::Directory))
      return kExitError;
  KnownList known;
  std::string error;
  if (!knownPath.empty() && !readKnownList(knownPath, known, error))
    return fail("--known: " + error);
  const NightlyReport r = collectReport(dirs, known, error);
  if (!error.empty())
    return fail(error);
  if (!writeReport(r, outDir, error))
    return fail(error);
  llvm::outs() << r.cases << " cases, " << r.findings.size() << " signatures, " << r.newSignatures()
               << " new, " << r.newMinor() << " new but minor (only the sign of a zero); report in "
               << outDir << "\n";
  // Exit 1 only for new signatures: known ones do not fail a nightly.
  return r.newSignatures() ? kExitFinding : kExitOk;
}

} // namespace npufuzz::tool
