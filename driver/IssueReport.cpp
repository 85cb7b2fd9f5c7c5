//===- driver/IssueReport.cpp - A finding as the issue its maintainer reads ===//
#include "driver/IssueReport.h"

#include "driver/JsonFile.h"
#include "ir/NumberText.h"
#include "oracles/Signature.h"
#include "reference/Executor.h"

#include "llvm/Support/JSON.h"

#include <sstream>

namespace npufuzz {

namespace {
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

const char *compilerTitle(const std::string &compiler) {
  if (compiler == "inductor")
    return "torch.compile (Inductor, CPU)";
  if (compiler == "tvm")
    return "Apache TVM (llvm)";
  if (compiler == "iree")
    return "IREE (llvm-cpu)";
  if (compiler == "pytorchsim")
    return "PyTorchSim";
  return "MLIR";
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
    if (const llvm::json::Object *status = o->getObject("status"))
      r.status = str(*status, "kind") +
                 (status->getString("of") ? " of " + str(*status, "of") : std::string()) +
                 (status->getString("in") ? " in " + str(*status, "in") : std::string());
    std::vector<std::string> seen;
    if (const llvm::json::Array *searches = o->getArray("searches"))
      for (const llvm::json::Value &s : *searches)
        if (const llvm::json::Array *hits =
                s.getAsObject() ? s.getAsObject()->getArray("hits") : nullptr)
          for (const llvm::json::Value &h : *hits) {
            const llvm::json::Object *hit = h.getAsObject();
            if (!hit || str(*hit, "relation") == "different" ||
                std::find(seen.begin(), seen.end(), str(*hit, "ref")) != seen.end())
              continue;
            seen.push_back(str(*hit, "ref"));
            r.related.push_back(str(*hit, "ref") + " (" + str(*hit, "state") +
                                "): " + str(*hit, "title") + "; " + str(*hit, "relation"));
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
  std::string compiler = root ? root->compiler : backend;
  if (compiler == "mlir-jit" || compiler == "mlir-tools")
    compiler = "mlir";
  ExportForm form;
  if (compiler == "inductor")
    form = ExportForm::Torch;
  else if (compiler == "tvm")
    form = ExportForm::Tvm;
  else if (compiler == "iree")
    form = ExportForm::Iree;
  else if (compiler == "pytorchsim")
    form = ExportForm::PyTorchSim;
  else if (compiler == "mlir")
    form = ExportForm::Mlir;
  else {
    error = "no compiler to report to: the ledger holds no root of " + source.path +
            (compiler.empty() ? "" : " and " + compiler + " has no tracker form") +
            " (export a finding directory, whose report names its backend)";
    return false;
  }
  std::string script;
  if (!exportCase(c, how, form, source, script, error))
    return false;
  const RefRun ref = runReference(c);
  std::ostringstream os;
  const std::string what =
      root ? root->summary
           : std::string(how.verdict == VerdictKind::Mismatch ? "a wrong value"
                                                              : verdictName(how.verdict)) +
                 " on a small program";
  os << "# " << compilerTitle(compiler) << ": " << what << "\n\n"
     << "Found by npufuzz (a differential fuzzer of tile compilers) on a generated program and "
        "reduced to the case `"
     << source.path << "`" << (how.signatureId.empty() ? "" : " (" + how.signatureId + ")")
     << ".\n\n## Environment\n\n"
     << (root ? "Found with " + root->foundIn + "; status checked against " + root->checkedIn + ". "
              : "")
     << "Linux, x86-64 CPU. The script prints the versions it runs with.\n\n"
     << "## Reproducer\n\n"
     << "It exits 1 when the bug shows, 0 when it does not.\n\n```"
     << (form == ExportForm::Mlir ? "mlir" : "python") << "\n"
     << script << (script.empty() || script.back() == '\n' ? "" : "\n") << "```\n\n"
     << "## Expected and actual\n\n";
  // A wrong value (or one left unwritten) against an error of the compiler.
  const bool values = how.verdict == VerdictKind::Mismatch ||
                      how.verdict == VerdictKind::Nondeterministic ||
                      how.verdict == VerdictKind::UninitializedRead;
  if (ref.ok() && values)
    for (size_t k = 0; k < ref.outputs.size(); ++k)
      os << "Expected output " << k << " (the program's semantics"
         << (form == ExportForm::Torch || form == ExportForm::Tvm ? ", as torch eager gives it"
                                                                  : "")
         << "): " << valuesText(ref.outputs[k]) << "\n";
  os << "Actual (npufuzz's verdict): " << verdictName(how.verdict)
     << (values ? "; the script prints what the compiled program gives"
                : "; the script prints the compiler's error")
     << ".\n\n## Related\n\n";
  if (!root) {
    os << "Not in npufuzz's ledger: the tracker has not been searched for this one yet.\n";
  } else {
    os << "Class: " << root->rootClass << "; tracker status: " << root->status << ".\n";
    for (const std::string &r : root->related)
      os << "- " << r << "\n";
    if (root->related.empty())
      os << "Searched (the message, the op and pass, the code site): nothing related found.\n";
  }
  out = os.str();
  return true;
}

} // namespace npufuzz
