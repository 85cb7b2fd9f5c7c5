//===- driver/IssueReport.cpp - A finding as the issue its maintainer files ===//
#include "driver/IssueReport.h"

#include "backend/toolchains/BackendToolchains.h"
#include "driver/BriefExport.h"
#include "driver/BriefRun.h"
#include "driver/JsonFile.h"
#include "ir/FileText.h"
#include "ir/NumberText.h"
#include "reference/Executor.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <sstream>

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
  const char *name;
  ExportForm form;
  BackendKind backend;
};

std::optional<Reportable> reportableOf(const std::string &compiler) {
  if (compiler == "inductor")
    return Reportable{"torch.compile (Inductor, CPU)", ExportForm::Torch, BackendKind::Inductor};
  if (compiler == "tvm")
    return Reportable{"TVM (Relax, llvm target)", ExportForm::Tvm, BackendKind::Tvm};
  if (compiler == "iree")
    return Reportable{"IREE (llvm-cpu)", ExportForm::Iree, BackendKind::Iree};
  return std::nullopt;
}

/// The Python that runs the brief: the one the compiler's backend finds.
bool briefPython(const Reportable &r, std::string &python, std::string &error) {
  switch (r.form) {
  case ExportForm::Torch: return findTorchPython("", python, error, /*compile=*/true);
  case ExportForm::Tvm: return findTvmPython("", python, error);
  case ExportForm::Iree: {
    std::string compiler;
    return findIreeTools("", "", compiler, python, error);
  }
  case ExportForm::TorchHarness:
  case ExportForm::TvmHarness:
  case ExportForm::IreeHarness:
  case ExportForm::Mlir:
  case ExportForm::PyTorchSim: break;
  }
  error = "no brief form runs with this form's Python";
  return false;
}

bool generatedBrief(const Case &c, const Expectation &how, const Reportable &r,
                    const OmittedSwitches &omitted, std::string &out, std::string &error) {
  return r.form == ExportForm::Iree ? briefIreeScript(c, how, out, error, omitted)
                                    : briefScript(c, how, r.form, out, error, omitted);
}

/// The switches a brief writes a setting of: every IREE flag; an Inductor
/// config key or a TVM pass or key only where the finding turned it off
/// (on is their default).
std::vector<CompilerSwitch> writtenSwitches(const Reportable &r, const Expectation &how) {
  std::vector<CompilerSwitch> written;
  for (const SwitchState &s : switchStates(r.backend, how.loweringSeed, {}))
    if (r.form == ExportForm::Iree || !s.on)
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

/// A title when the ledger has none: the compiler's error, or the ops whose
/// result differs.
std::string symptomTitle(const Case &c, const Expectation &how, const Reportable &r,
                         const std::string &output) {
  const bool values = how.verdict == VerdictKind::Mismatch ||
                      how.verdict == VerdictKind::Nondeterministic ||
                      how.verdict == VerdictKind::UninitializedRead;
  if (!values) {
    std::string error = errorMessage(output);
    if (error.size() > 120)
      error = error.substr(0, 117) + "...";
    return std::string(r.name) + ": " + error;
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
    bool mine = false;
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
    r.foundIn = str(*o, "found_in");
    r.checkedIn = str(*o, "checked_in");
    r.rootClass = str(*o, "class");
    r.summary = str(*o, "summary");
    r.title = str(*o, "title");
    if (const llvm::json::Object *brief = o->getObject("brief"))
      r.brief = str(*brief, "path");
    if (const llvm::json::Object *status = o->getObject("status")) {
      r.statusKind = str(*status, "kind");
      r.duplicateOf = str(*status, "of");
      r.fixedIn = str(*status, "in");
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

bool issueReport(const Case &c, const Expectation &how, const ExportSource &source,
                 const std::string &backend, const std::string &ledgerPath, std::string &out,
                 std::string &error) {
  std::optional<LedgerRoot> root;
  if (!findLedgerRoot(ledgerPath, source.path, how.signatureId, root, error))
    return false;
  // The compiler: the ledger's, else the backend that found it.
  const std::string compiler = root ? root->compiler : backend;
  const std::optional<Reportable> r = reportableOf(compiler);
  if (!r) {
    error = compiler.empty()
                ? "no compiler to report to: the ledger holds no root of " + source.path +
                      " (export a finding directory, whose report names its backend)"
                : "no compiler to report to: " + compiler +
                      " has no brief script a report runs (inductor, tvm, iree); "
                      "export --as " +
                      (compiler == "pytorchsim" ? "pytorchsim" : "mlir") + " writes its reproducer";
    return false;
  }
  std::string python;
  if (!briefPython(*r, python, error))
    return false;

  // The brief: the ledger's committed one, else the generated one with
  // only the switches the bug needs.
  std::string script;
  std::optional<BriefOutcome> shown;
  if (root && !root->brief.empty()) {
    llvm::SmallString<256> checkout(ledgerPath);
    for (int up = 0; up < 3; ++up)
      llvm::sys::path::remove_filename(checkout);
    llvm::sys::path::append(checkout, root->brief);
    if (!readFileBytes(checkout.str().str(), script, error, 1 << 20))
      return false;
    shown = runBriefScript(python, script, error);
    if (!shown)
      return false;
  } else {
    OmittedSwitches omitted;
    if (!generatedBrief(c, how, *r, omitted, script, error))
      return false;
    shown = runBriefScript(python, script, error);
    if (!shown)
      return false;
    if (shown->exitCode == 1)
      for (CompilerSwitch s : writtenSwitches(*r, how)) {
        OmittedSwitches fewer = omitted;
        fewer.push_back(s);
        std::string shorter;
        if (!generatedBrief(c, how, *r, fewer, shorter, error))
          return false;
        std::optional<BriefOutcome> still = runBriefScript(python, shorter, error);
        if (!still)
          return false;
        if (still->exitCode != 1)
          continue; // the bug needs this switch
        omitted = fewer;
        script = shorter;
        shown = still;
      }
  }
  if (shown->exitCode != 1) {
    error = std::string(shown->exitCode == 0 ? "the bug does not show here"
                                             : "the brief script cannot run here") +
            " (it exits " + std::to_string(shown->exitCode) + "): nothing to report\n" +
            outputExcerpt(shown->output, 10);
    return false;
  }
  const std::string versions = shown->output.substr(0, shown->output.find('\n'));

  std::ostringstream os;
  const std::string title =
      root && !root->title.empty() ? root->title : symptomTitle(c, how, *r, shown->output);
  const bool comment = root && root->statusKind == "duplicate";
  if (comment)
    os << "# Comment for " << root->duplicateOf << "\n\n"
       << "Another reproducer of this, on " << versions << ": " << title << ".\n\n";
  else
    os << "# " << title << "\n\n";
  os << "### Reproducer\n\n"
     << "`python repro.py` exits 1 while the bug shows, 0 once it is fixed.\n\n```python\n"
     << script << (script.empty() || script.back() == '\n' ? "" : "\n") << "```\n\n"
     << "### Actual\n\n```\n"
     << outputExcerpt(shown->output, kPastedLines) << "```\n\n### Expected\n\n";
  const bool values = how.verdict == VerdictKind::Mismatch ||
                      how.verdict == VerdictKind::Nondeterministic ||
                      how.verdict == VerdictKind::UninitializedRead;
  const RefRun ref = runReference(c);
  const char *whose =
      r->form == ExportForm::Iree ? "the program's semantics" : "what torch eager gives";
  if (!values)
    os << "It compiles and runs, and gives " << whose << (ref.ok() ? ":" : ".") << "\n\n";
  if (ref.ok())
    for (size_t k = 0; k < ref.outputs.size(); ++k)
      os << "- output " << k << ": `" << valuesText(ref.outputs[k]) << "`\n";
  else
    os << "The values " << whose << ".\n";
  os << "\n### Versions and flags\n\n"
     << versions << "; Linux, x86-64. The script passes only the flags the bug needs"
     << (root && !root->brief.empty() ? "."
                                      : ": each other one of the run that found it was left at "
                                        "the compiler's default, and the bug still showed.")
     << "\n";
  if (root && !root->summary.empty())
    os << "\n### Analysis\n\n" << root->summary << "\n";
  if (root && !root->related.empty()) {
    os << "\n### Related\n\n";
    for (const std::string &related : root->related)
      os << "- " << related << "\n";
  }
  out = os.str();
  return true;
}

} // namespace npufuzz
