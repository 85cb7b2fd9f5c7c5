//===- tools/npufuzz/ToolchainsCommand.cpp - npufuzz toolchains -------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "driver/ToolchainSurvey.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <memory>

namespace npufuzz::tool {

cl::SubCommand &ToolchainsCommand() {
  static cl::SubCommand c("toolchains",
                          "List the toolchains npufuzz drives (ptoas, pto-isa, torch, the MLIR "
                          "tools): where each was found, its version, its canary and a canary "
                          "case through its backend (docs/toolchains.md)");
  return c;
}

namespace {
/// One flag a toolchain, named as the backends name it (Toolchains.def).
struct PathFlags {
  // llvm::cl keeps references to the names and descriptions.
  std::vector<std::string> descriptions;
  std::vector<std::unique_ptr<cl::opt<std::string>>> flags;
  PathFlags() {
    descriptions.reserve(allToolchains().size());
    for (const ToolchainInfo &t : allToolchains()) {
      descriptions.push_back(std::string("Look at this ") + t.name + " instead of discovering it");
      flags.push_back(std::make_unique<cl::opt<std::string>>(
          llvm::StringRef(t.flag + 2), cl::desc(descriptions.back()), cl::value_desc("PATH"),
          cl::sub(ToolchainsCommand()), cl::cat(category())));
    }
  }
};
PathFlags &pathFlags() {
  static PathFlags flags;
  return flags;
}
// Made at start-up, like every other subcommand's options.
[[maybe_unused]] PathFlags &registered = pathFlags();

cl::list<std::string> require("require",
                              cl::desc("Exit 2 unless this toolchain is ok and its canary case "
                                       "passes (repeatable): what a script checks first"),
                              cl::value_desc("NAME"), cl::sub(ToolchainsCommand()),
                              cl::cat(category()));
cl::opt<std::string> where("where",
                           cl::desc("Print only where this toolchain was found (its path, "
                                    "one line); exit 2 unless it is ok: what a script reads"),
                           cl::value_desc("NAME"), cl::sub(ToolchainsCommand()),
                           cl::cat(category()));
cl::opt<bool> noCases("no-canary-case",
                      cl::desc("Only find each toolchain and run its canary, no case through "
                               "its backend"),
                      cl::sub(ToolchainsCommand()), cl::cat(category()));
} // namespace

int runToolchains() {
  std::string names;
  for (const ToolchainInfo &t : allToolchains())
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  std::vector<ToolchainKind> required;
  for (const std::string &name : require) {
    ToolchainKind kind;
    if (!parseToolchainName(name, kind))
      return fail("--require: unknown toolchain '" + name + "' (" + names + ")");
    required.push_back(kind);
  }
  ToolchainKind wanted = ToolchainKind::Ptoas;
  if (where.getNumOccurrences() && !parseToolchainName(where, wanted))
    return fail("--where: unknown toolchain '" + where + "' (" + names + ")");
  std::map<ToolchainKind, std::string> given;
  for (const ToolchainInfo &t : allToolchains())
    if (const std::string &value = *pathFlags().flags[static_cast<size_t>(t.kind)]; !value.empty())
      given[t.kind] = value;
  std::vector<ToolchainRow> rows;
  std::string error;
  if (!surveyToolchains(given, !noCases && !where.getNumOccurrences(), rows, error))
    return fail(error);
  if (where.getNumOccurrences()) {
    for (const ToolchainRow &row : rows)
      if (row.kind == wanted && row.state == ToolchainRow::State::Ok) {
        llvm::outs() << row.where.path << "\n";
        return kExitOk;
      }
    return fail(where + " is not usable: " + toolchainHelp(wanted));
  }
  llvm::outs() << formatToolchainRows(rows);
  llvm::outs().flush();
  int status = kExitOk;
  for (const ToolchainRow &row : rows) {
    const char *name = toolchainInfo(row.kind).name;
    const bool isRequired = std::find(required.begin(), required.end(), row.kind) != required.end();
    if (row.state == ToolchainRow::State::Broken && row.named())
      status = fail(std::string(name) + " was named (" + row.where.source +
                    ") but is not usable: " + toolchainHelp(row.kind));
    else if (isRequired && row.state != ToolchainRow::State::Ok)
      status = fail(std::string(name) + " is required and not usable: " + toolchainHelp(row.kind));
    else if (isRequired && !noCases && !row.casePassed)
      status = fail(std::string(name) +
                    " is required and its canary case did not pass: " + row.canaryCase);
  }
  return status;
}

} // namespace npufuzz::tool
