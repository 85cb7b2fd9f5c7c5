//===- driver/IssueReport.cpp - A finding as the issue its maintainer files ===//
#include "driver/IssueReport.h"

#include "backend/pto/PtoBackend.h"
#include "backend/toolchains/BackendToolchains.h"
#include "driver/BriefExport.h"
#include "driver/BriefRun.h"
#include "driver/JsonFile.h"
#include "ir/FileText.h"
#include "ir/NumberText.h"
#include "reference/Executor.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace npufuzz {

namespace {
/// A report pastes at most this many lines of what the script printed: the
/// versions, then the end of a traceback or the values that differ.
constexpr size_t kPastedLines = 40;

std::string str(const llvm::json::Object &o, llvm::StringRef key) {
  return o.getString(key).value_or("").str();
}

/// Whether `path` names the ledger's `entry`: the same path, or one that
/// ends in it at a directory boundary (an absolute path into the checkout).
bool samePath(const std::string &path, const std::string &entry) {
  return path == entry || (path.size() > entry.size() &&
                           path.compare(path.size() - entry.size(), entry.size(), entry) == 0 &&
                           path[path.size() - entry.size() - 1] == '/');
}

/// The first few elements of `t`, as a maintainer reads them.
std::string valuesText(const RefTensor &t) {
  constexpr size_t kShown = 16;
  const size_t n = t.isFloat() ? t.f.size() : t.i.size();
  std::string text = "[";
  for (size_t k = 0; k < n && k < kShown; ++k)
    text += (k ? ", " : "") + (t.isFloat() ? floatToText(t.f[k]) : std::to_string(t.i[k]));
  return text + (n > kShown ? ", ...]" : "]");
}

/// A compiler the report can run a brief of: its name as its users say it,
/// the brief's form, its backend (whose switches the brief writes).
struct Reportable {
  const char *compiler; ///< as the ledger names it
  const char *name;
  ExportForm form;
  BackendKind backend;
};

std::optional<Reportable> reportableOf(const std::string &compiler) {
  if (compiler == "inductor")
    return Reportable{"inductor", "torch.compile (Inductor, CPU)", ExportForm::Torch,
                      BackendKind::Inductor};
  if (compiler == "tvm")
    return Reportable{"tvm", "TVM (Relax, llvm target)", ExportForm::Tvm, BackendKind::Tvm};
  if (compiler == "iree")
    return Reportable{"iree", "IREE (llvm-cpu)", ExportForm::Iree, BackendKind::Iree};
  return std::nullopt;
}

bool generatedBrief(const Case &c, const Expectation &how, const Reportable &r,
                    const OmittedSwitches &omitted, std::string &out, std::string &error) {
  return r.form == ExportForm::Iree ? briefIreeScript(c, how, out, error, omitted)
                                    : briefScript(c, how, r.form, out, error, omitted);
}

/// The switches a brief writes a setting of: every IREE flag; an Inductor
/// config key or a TVM pass or key only where the finding's differs from
/// the compiler's default.
std::vector<CompilerSwitch> writtenSwitches(const Reportable &r, const Expectation &how) {
  std::vector<CompilerSwitch> written;
  for (const SwitchState &s : switchStatesOf(r.backend, how))
    if (r.form == ExportForm::Iree || s.on != onByDefault(s.id))
      written.push_back(s.id);
  return written;
}

/// The compiler's error in `output`: the message of its first diagnostic
/// ("file:1:2: error: message"), else its last exception ("TypeError:
/// ..."), else its last line that says something.
std::string errorMessage(const std::string &output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t") != std::string::npos)
      lines.push_back(line.substr(line.find_first_not_of(" \t")));
  // MLIR's first error is where it went wrong; those after it say what
  // failed because of it.
  for (const std::string &line : lines)
    if (const size_t at = line.find(": error: "); at != std::string::npos)
      return line.substr(at + 9);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const size_t colon = it->find(": ");
    const std::string head = it->substr(0, colon);
    if (colon != std::string::npos && head.find(' ') == std::string::npos &&
        (llvm::StringRef(head).ends_with("Error") || llvm::StringRef(head).ends_with("Exception")))
      return *it;
  }
  return lines.empty() ? std::string() : lines.back();
}

/// What tells one failure of a brief from another: the values that differ
/// (which outputs), or the compiler's error.
std::string symptomOf(const std::string &output) {
  std::string differs;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("output ", 0) == 0 && line.find(" differs") != std::string::npos)
      differs += line + "\n";
  return differs.empty() || output.find("Traceback") != std::string::npos
             ? "error: " + errorMessage(output)
             : differs;
}

/// Whether the finding is in the values the program gives (not an error
/// of the compiler's).
bool showsInValues(const Expectation &how) {
  return how.verdict == VerdictKind::Mismatch || how.verdict == VerdictKind::Nondeterministic ||
         how.verdict == VerdictKind::UninitializedRead;
}

/// A title when the ledger has none: the compiler's error, or the ops whose
/// result differs.
std::string symptomTitle(const Case &c, const Expectation &how, const Reportable &r,
                         const std::string &output) {
  if (!showsInValues(how)) {
    std::string error = errorMessage(output);
    if (error.size() > 120)
      error = error.substr(0, 117) + "...";
    return std::string(r.name) + ": " + (error.empty() ? "fails to compile" : error);
  }
  std::vector<std::string> ops;
  for (const Op &op : c.ops) {
    const std::string name(opName(op.kind));
    if (op.kind != OpKind::Input && std::find(ops.begin(), ops.end(), name) == ops.end())
      ops.push_back(name);
  }
  std::string list;
  for (size_t k = 0; k < ops.size(); ++k)
    list += (k ? (k + 1 == ops.size() ? " and " : ", ") : "") + ops[k];
  return std::string(r.name) + ": wrong result of " + list;
}
} // namespace

bool findLedgerRoot(const std::string &ledgerPath, const std::string &casePath,
                    const std::string &signatureId, std::optional<LedgerRoot> &root,
                    std::string &error) {
  root.reset();
  const std::optional<llvm::json::Value> ledger = readJsonFile(ledgerPath, error);
  const llvm::json::Object *top = ledger ? ledger->getAsObject() : nullptr;
  const llvm::json::Array *roots = top ? top->getArray("roots") : nullptr;
  if (!roots) {
    error = ledgerPath + ": not a ledger (" + (error.empty() ? "no roots" : error) + ")";
    return false;
  }
  for (const llvm::json::Value &v : *roots) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o)
      continue;
    bool mine =
        !casePath.empty() &&
        (str(*o, "id") == casePath ||
         (o->getObject("brief") && samePath(casePath, str(*o->getObject("brief"), "path"))));
    if (const llvm::json::Array *cases = o->getArray("cases"))
      for (const llvm::json::Value &p : *cases)
        mine |= p.getAsString() && samePath(casePath, p.getAsString()->str());
    if (const llvm::json::Array *ids = o->getArray("signatures"))
      for (const llvm::json::Value &id : *ids)
        mine |= !signatureId.empty() && id.getAsString() && *id.getAsString() == signatureId;
    if (!mine)
      continue;
    LedgerRoot r;
    r.id = str(*o, "id");
    r.compiler = str(*o, "compiler");
    r.checkedIn = str(*o, "checked_in");
    r.rootClass = str(*o, "class");
    r.summary = str(*o, "summary");
    r.title = str(*o, "title");
    r.flags = str(*o, "flags");
    if (const llvm::json::Object *brief = o->getObject("brief"))
      r.brief = str(*brief, "path");
    if (const llvm::json::Object *status = o->getObject("status")) {
      r.statusKind = str(*status, "kind");
      r.duplicateOf = str(*status, "of");
    }
    std::vector<std::string> seen;
    if (const llvm::json::Array *searches = o->getArray("searches"))
      for (const llvm::json::Value &s : *searches)
        if (const llvm::json::Array *hits =
                s.getAsObject() ? s.getAsObject()->getArray("hits") : nullptr)
          for (const llvm::json::Value &h : *hits) {
            const llvm::json::Object *hit = h.getAsObject();
            if (!hit || str(*hit, "relation") == "different" || str(*hit, "ref") == r.duplicateOf ||
                std::find(seen.begin(), seen.end(), str(*hit, "ref")) != seen.end())
              continue;
            seen.push_back(str(*hit, "ref"));
            r.related.push_back(str(*hit, "ref") + " (" + str(*hit, "state") +
                                "): " + str(*hit, "title"));
          }
    root = r;
    return true;
  }
  return true;
}

namespace {
/// A brief as it ran: its file name (its extension says its language), its
/// text, what it printed and its exit.
struct ShownBrief {
  std::string name, text;
  BriefOutcome outcome;
  bool generated = false; ///< written from the case, not the ledger's
};

/// What runs `compiler`'s briefs, found as its backend finds it.
bool briefTools(const std::string &compiler, BriefTools &tools, std::string &error) {
  if (compiler == "inductor")
    return findTorchPython("", tools.python, error, /*compile=*/true);
  if (compiler == "tvm")
    return findTvmPython("", tools.python, error);
  if (compiler == "iree") {
    std::string ireeCompile;
    return findIreeTools("", "", ireeCompile, tools.python, error);
  }
  if (compiler == "pto-isa" || compiler == "ptoas") {
    PtoToolchain pto;
    if (!setUpPtoToolchain(pto, error))
      return false;
    tools.ptoas = pto.ptoas;
    tools.ptoIsa = pto.ptoIsa;
    return true;
  }
  if (compiler == "mlir")
    return true; // its RUN line names mlir-opt-22 and FileCheck-22
  error = compiler + "'s reproducers need what is not here (PyTorchSim's: its own toolchain, "
                     "built); export --as pytorchsim writes the script that shows its code "
                     "generation";
  return false;
}

/// The ledger's brief of `root`, run.
bool committedBrief(const LedgerRoot &root, const std::string &ledgerPath, ShownBrief &shown,
                    std::string &error) {
  BriefTools tools;
  if (!briefTools(root.compiler, tools, error))
    return false;
  llvm::SmallString<256> path(ledgerPath);
  for (int up = 0; up < 3; ++up) // corpus/upstream/ledger.json: the checkout
    llvm::sys::path::remove_filename(path);
  llvm::sys::path::append(path, root.brief);
  if (!readFileBytes(path.str().str(), shown.text, error, 1 << 20))
    return false;
  shown.name = llvm::sys::path::filename(root.brief).str();
  std::optional<BriefOutcome> outcome = runBriefFile(shown.name, shown.text, tools, error);
  if (!outcome)
    return false;
  shown.outcome = *outcome;
  return true;
}

/// The brief written from the case `c`, with only the switches the bug
/// needs: each one it writes is left at the compiler's default in turn, and
/// stays so while the bug still shows.
bool generatedShownBrief(const Case &c, const Expectation &how, const Reportable &r,
                         ShownBrief &shown, std::string &error) {
  BriefTools tools;
  if (!briefTools(r.compiler, tools, error))
    return false;
  shown.name = "repro.py";
  shown.generated = true;
  OmittedSwitches omitted;
  if (!generatedBrief(c, how, r, omitted, shown.text, error))
    return false;
  std::optional<BriefOutcome> outcome = runBriefScript(tools.python, shown.text, error);
  if (!outcome)
    return false;
  shown.outcome = *outcome;
  if (outcome->exitCode != 1)
    return true;
  const std::string symptom = symptomOf(outcome->output);
  for (CompilerSwitch s : writtenSwitches(r, how)) {
    OmittedSwitches fewer = omitted;
    fewer.push_back(s);
    std::string shorter, ignored;
    if (!generatedBrief(c, how, r, fewer, shorter, error))
      return false;
    // Without the switch, the same symptom or the switch stays: another
    // error, a hang or no run at all is not the bug gone, nor the bug.
    std::optional<BriefOutcome> still = runBriefScript(tools.python, shorter, ignored);
    if (!still || still->exitCode != 1 || symptomOf(still->output) != symptom)
      continue;
    omitted = fewer;
    shown.text = shorter;
    shown.outcome = *still;
  }
  return true;
}

/// The fence language of a brief named `name`.
const char *fenceOf(const std::string &name) {
  const llvm::StringRef n(name);
  return n.ends_with(".py")     ? "python"
         : n.ends_with(".mlir") ? "mlir"
         : n.ends_with(".cpp")  ? "cpp"
                                : "sh";
}

/// How a maintainer runs a brief, in words.
std::string howToRun(const ShownBrief &shown) {
  if (llvm::StringRef(shown.name).ends_with(".py"))
    return "`python " + shown.name + "` exits 1 while the bug shows, 0 once it is fixed.";
  const std::string command = withRunPaths(briefRunLine(shown.text), shown.name,
                                           "./" + llvm::sys::path::stem(shown.name).str());
  return "Saved as `" + shown.name + "`, `" + command +
         "` fails while the bug shows and passes once it is fixed" +
         (command.find("PTO") != std::string::npos ? " (`PTO_ISA`: pto-isa's include directory)"
                                                   : "") +
         ".";
}

/// The text filed: the title, the brief, what it printed, what is
/// expected, versions and flags, the ledger's analysis and related issues.
std::string reportText(const std::optional<LedgerRoot> &root, const std::string &title,
                       const ShownBrief &shown, const std::string &expected) {
  const bool python = llvm::StringRef(shown.name).ends_with(".py");
  // A Python brief prints the versions it ran with first; the others run
  // what the ledger checked.
  std::string versions = python ? versionsLine(shown.outcome.output) : std::string();
  if (versions.empty())
    versions = root ? root->checkedIn : "the release here";
  std::ostringstream os;
  if (root && root->statusKind == "duplicate")
    // The first line tells whoever posts it where; GitHub does not show it.
    os << "<!-- a comment for " << root->duplicateOf << ", not a new issue -->\n"
       << "Seen on " << versions << ": " << title << ".\n\n";
  else
    os << "# " << title << "\n\n";
  os << "### Reproducer\n\n"
     << howToRun(shown) << "\n\n```" << fenceOf(shown.name) << "\n"
     << shown.text << (shown.text.empty() || shown.text.back() == '\n' ? "" : "\n") << "```\n\n"
     << "### Actual\n\n```\n"
     << outputExcerpt(shown.outcome.output, kPastedLines) << "```\n\n### Expected\n\n"
     << expected << "\n\n### Versions and flags\n\n"
     << versions << "; Linux, x86-64. ";
  if (shown.generated)
    os << "The script passes only the flags the bug needs: each other one of the run that "
          "found it was left at the compiler's default, and the bug still showed.\n";
  else
    os << "Flags the bug needs: " << (root && !root->flags.empty() ? root->flags : "none") << ".\n";
  if (root && !root->summary.empty())
    os << "\n### Analysis\n\n" << root->summary << "\n";
  if (root && !root->related.empty()) {
    os << "\n### Related\n\n";
    for (const std::string &related : root->related)
      os << "- " << related << "\n";
  }
  return os.str();
}

/// What a committed brief expects, from the root's class and the brief
/// itself (MLIR's CHECK lines; the others print it beside what they got).
std::string expectedOfBrief(const LedgerRoot &root, const ShownBrief &shown) {
  if (root.rootClass != "wrong-value" && root.rootClass != "minor")
    return "It compiles and runs without an error.";
  if (!llvm::StringRef(shown.name).ends_with(".mlir"))
    return shown.outcome.output.find("eager:") != std::string::npos
               ? "What torch eager gives, printed above beside it (`eager:`)."
               : "What the brief prints above as expected, beside what it got.";
  std::string checks = "\n";
  std::istringstream lines(shown.text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("CHECK") != std::string::npos && line.find("RUN:") == std::string::npos)
      checks += "    " + line + "\n";
  checks.pop_back();
  return "What its CHECK lines say (the output without the pass):\n" + checks;
}

bool failedToShow(const ShownBrief &shown, std::string &error) {
  if (shown.outcome.exitCode == 1)
    return false;
  error = std::string(shown.outcome.exitCode == 0 ? "the bug does not show here"
                                                  : "the brief cannot run here") +
          " (it exits " + std::to_string(shown.outcome.exitCode) + "): nothing to report\n" +
          outputExcerpt(shown.outcome.output, 10);
  return true;
}

/// The report of a root of the ledger from its committed brief.
bool rootReport(const LedgerRoot &root, const std::string &ledgerPath, std::string &out,
                std::string &error) {
  ShownBrief shown;
  if (!committedBrief(root, ledgerPath, shown, error) || failedToShow(shown, error))
    return false;
  out = reportText(root, root.title.empty() ? root.summary : root.title, shown,
                   expectedOfBrief(root, shown));
  return true;
}
} // namespace

bool issueReport(const Case &c, const Expectation &how, const ExportSource &source,
                 const std::string &backend, const std::string &ledgerPath, std::string &out,
                 std::string &error) {
  std::optional<LedgerRoot> root;
  if (!findLedgerRoot(ledgerPath, source.path, how.signatureId, root, error))
    return false;
  if (root && !root->brief.empty())
    return rootReport(*root, ledgerPath, out, error);
  // The compiler: the ledger's, else the backend that found it.
  const std::string compiler = root ? root->compiler : backend;
  const std::optional<Reportable> r = reportableOf(compiler);
  if (!r) {
    error = compiler.empty()
                ? "no compiler to report to: the ledger holds no root of " + source.path +
                      " (export a finding directory, whose report names its backend)"
                : "no compiler to report to: npufuzz writes no brief of " + compiler +
                      "'s from a case (inductor, tvm, iree); export --as " +
                      (compiler == "pytorchsim" ? "pytorchsim" : "mlir") + " writes its reproducer";
    return false;
  }
  ShownBrief shown;
  if (!generatedShownBrief(c, how, *r, shown, error) || failedToShow(shown, error))
    return false;

  // What is expected: the program's values, or that it compiles.
  const bool values = showsInValues(how);
  // IREE's runtime flushes subnormals, as its brief's expected values do.
  const ReferenceFlushScope flush(r->form == ExportForm::Iree);
  const RefRun ref = runReference(c);
  const std::string whose =
      r->form == ExportForm::Iree ? "the program's semantics give" : "torch eager gives";
  std::string expected = values ? "What " + whose : "It compiles and runs, and gives what " + whose;
  expected += ref.ok() ? ":\n\n" : ".";
  if (ref.ok())
    for (size_t k = 0; k < ref.outputs.size(); ++k)
      expected += "- output " + std::to_string(k) + ": `" + valuesText(ref.outputs[k]) + "`\n";
  while (!expected.empty() && expected.back() == '\n')
    expected.pop_back();
  const std::string title =
      root && !root->title.empty() ? root->title : symptomTitle(c, how, *r, shown.outcome.output);
  out = reportText(root, title, shown, expected);
  return true;
}

bool ledgerRootReport(const std::string &selector, const std::string &ledgerPath, std::string &out,
                      std::string &error) {
  std::optional<LedgerRoot> root;
  if (!findLedgerRoot(ledgerPath, selector, "", root, error))
    return false;
  if (!root) {
    error = selector + " is no root of " + ledgerPath +
            " (a root's id, one of its case files or its brief)";
    return false;
  }
  if (root->brief.empty()) {
    error = "the ledger's root " + root->id + " has no brief script to run and paste";
    return false;
  }
  return rootReport(*root, ledgerPath, out, error);
}

} // namespace npufuzz
