//===- tools/npufuzz/ExportCommand.cpp - npufuzz export -------------------===//
#include "tools/npufuzz/Commands.h"
#include "tools/npufuzz/ToolOptions.h"

#include "driver/Export.h"
#include "driver/IssueReport.h"
#include "ir/FileText.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace npufuzz::tool {

cl::SubCommand &ExportCommand() {
  static cl::SubCommand c("export",
                          "Write a finding or case as a standalone reproducer in its compiler's "
                          "own API (a Python script, or an .mlir with its mlir-opt line)");
  return c;
}

namespace {
cl::opt<std::string>
    input(cl::Positional,
          cl::desc("<finding directory (its reduced case, if any), case.npf, or for "
                   "--as report a ledger root's id, case or brief>"),
          cl::Required, cl::sub(ExportCommand()), cl::cat(category()));
cl::opt<std::string> as("as",
                        cl::desc("torch, tvm or iree (a brief script a maintainer reads), "
                                 "torch-harness, tvm-harness, iree-harness, mlir, pytorchsim "
                                 "(judged against npufuzz's reference), or report (the issue "
                                 "text a maintainer files: the brief script run here, what it "
                                 "printed, the ledger's analysis and related issues)"),
                        cl::value_desc("FORM"), cl::Required, cl::sub(ExportCommand()),
                        cl::cat(category()));
cl::opt<std::string> ledger("ledger",
                            cl::desc("The ledger --as report reads related issues from (default: "
                                     "the checkout's corpus/upstream/ledger.json)"),
                            cl::value_desc("FILE"), cl::init(NPUFUZZ_LEDGER),
                            cl::sub(ExportCommand()), cl::cat(category()));
cl::opt<std::string> outPath("o", cl::desc("Where to write it (default: standard output)"),
                             cl::value_desc("FILE"), cl::sub(ExportCommand()), cl::cat(category()));

/// The case file of `path`: itself, or a finding directory's reduced case,
/// else its case; with the signature its report.json names.
bool caseOf(const std::string &path, ExportSource &source) {
  if (!llvm::sys::fs::is_directory(path)) {
    if (!checkPath("export", path, PathKind::RegularFile))
      return false;
    source.path = path;
    return true;
  }
  llvm::SmallString<256> reduced(path), whole(path);
  llvm::sys::path::append(reduced, "reduced", "case.npf");
  llvm::sys::path::append(whole, "case.npf");
  source.path = llvm::sys::fs::is_regular_file(reduced) ? reduced.str().str() : whole.str().str();
  if (!llvm::sys::fs::is_regular_file(source.path)) {
    fail(path + " is neither a case file nor a finding directory (no case.npf in it)");
    return false;
  }
  llvm::SmallString<256> report(llvm::sys::path::parent_path(source.path));
  llvm::sys::path::append(report, "report.json");
  std::string text, error;
  if (!readFileBytes(report.str().str(), text, error, 1 << 20))
    return true; // a case without its report: no signature to name
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return true;
  }
  if (const llvm::json::Object *o = json->getAsObject()) {
    source.signature = o->getString("signature").value_or("").str();
    source.backend = o->getString("backend").value_or("").str();
  }
  return true;
}
} // namespace

int runExport() {
  ExportForm form = ExportForm::Torch;
  const bool report = as == "report";
  if (!report && !parseExportForm(as, form))
    return fail("--as: '" + as + "' is not a form (" + exportFormNames() + ", report)");
  if (report && !checkPath("--ledger", ledger, PathKind::RegularFile))
    return kExitError;
  // A report of a root the ledger holds may name it by its id, or by a
  // file of it that is no case (an MLIR case, a brief): its brief alone.
  if (report && !llvm::sys::fs::is_directory(input) &&
      !llvm::StringRef(input.getValue()).ends_with(".npf")) {
    std::string out, error;
    if (!ledgerRootReport(input, ledger, out, error))
      return fail("cannot export " + input + " as a report: " + error);
    if (outPath.empty()) {
      llvm::outs() << out;
      return kExitOk;
    }
    return writeOutputFile(outPath, out) ? kExitOk : kExitError;
  }
  ExportSource source;
  if (!caseOf(input, source))
    return kExitError;
  Case c;
  std::string text;
  if (!loadCase(source.path, c, &text))
    return kExitError;
  // How the case ran: its expect line (a finding's case has one); the
  // defaults otherwise (O0, the affine style, every switch on).
  Expectation how;
  std::string error;
  unsigned line = 0;
  if (!parseExpectation(text, how, error, &line) && line)
    return fail(damagedExpectLine(source.path, line, error));
  std::string out;
  if (report ? !issueReport(c, how, source, source.backend, ledger, out, error)
             : !exportCase(c, how, form, source, out, error))
    return fail("cannot export " + source.path + " as " + as.getValue() + ": " + error);
  if (outPath.empty()) {
    llvm::outs() << out;
    return kExitOk;
  }
  return writeOutputFile(outPath, out) ? kExitOk : kExitError;
}

} // namespace npufuzz::tool
