//===- oracles/Signature.cpp - What makes two failures the same -----------===//
#include "oracles/Signature.h"

#include "ir/Case.h"
#include "ir/Hash.h"

#include <cctype>
#include <sstream>
#include <string_view>
#include <vector>

namespace npufuzz {

std::string Signature::text() const {
  return std::string(verdictName(kind)) + " | " + pass + " | " + where + " | " + message;
}

std::string Signature::id() const {
  return std::string(verdictName(kind)) + "-" + hex16(fnv1a(text()));
}

std::string passWithoutOptions(const std::string &element) {
  std::string out;
  int depth = 0;
  for (const char ch : element) {
    if (ch == '{')
      ++depth;
    if (!depth)
      out += ch;
    if (ch == '}' && depth)
      --depth;
  }
  return out;
}

bool sameRootCause(const Signature &target, const Signature &seen) {
  if (target.kind != seen.kind || target.message != seen.message)
    return false;
  if (target.where != kAnyOp && target.where != seen.where)
    return false;
  return namesPass(target.pass, seen.pass);
}

bool namesPass(const std::string &named, const std::string &element) {
  return named == element ||
         (named.find('{') == std::string::npos && passWithoutOptions(element) == named);
}

std::optional<Signature> parseSignatureText(const std::string &text) {
  // The message is last and may hold the separator itself.
  const std::string sep = " | ";
  size_t at[3];
  size_t from = 0;
  for (size_t &a : at) {
    a = text.find(sep, from);
    if (a == std::string::npos)
      return std::nullopt;
    from = a + sep.size();
  }
  const std::optional<VerdictKind> kind = parseVerdictName(text.substr(0, at[0]));
  if (!kind)
    return std::nullopt;
  Signature s;
  s.kind = *kind;
  s.pass = text.substr(at[0] + 3, at[1] - at[0] - 3);
  s.where = text.substr(at[1] + 3, at[2] - at[1] - 3);
  s.message = text.substr(at[2] + 3);
  return s;
}

namespace {
/// A line LLVM's crash handler prints for every crash alike (its request
/// for a bug report, the stack dump's header and frames): it names no bug.
bool crashBoilerplate(const std::string &line) {
  const size_t at = line.find_first_not_of(" \t");
  if (at == std::string::npos)
    return false;
  const std::string_view l(line.c_str() + at, line.size() - at);
  if (l.rfind("PLEASE submit a bug report", 0) == 0 || l.rfind("Stack dump", 0) == 0 ||
      l.find("Program arguments:") != std::string_view::npos ||
      (l.size() > 1 && l[0] == '#' && std::isdigit(static_cast<unsigned char>(l[1]))))
    return true;
  // A frame without symbols (no llvm-symbolizer on PATH): its number, the
  // module, its address (`3  npufuzz 0x000055ecd615573b`).
  size_t digits = 0;
  while (digits < l.size() && std::isdigit(static_cast<unsigned char>(l[digits])))
    ++digits;
  const size_t module = l.find_first_not_of(" \t", digits);
  if (digits == 0 || module == digits || module == std::string_view::npos)
    return false;
  const size_t afterModule = l.find_first_of(" \t", module);
  return afterModule != std::string_view::npos && l.compare(afterModule, 3, " 0x") == 0;
}
} // namespace

std::string normalizeMessage(const std::string &raw) {
  // The first line that says "error" if any, else the first non-empty line;
  // never one of the lines every crash dump has.
  std::istringstream in(raw);
  std::string line, first, chosen;
  while (std::getline(in, line)) {
    if (crashBoilerplate(line))
      continue;
    if (first.empty() && line.find_first_not_of(" \t") != std::string::npos)
      first = line;
    if (chosen.empty() && line.find("error") != std::string::npos)
      chosen = line;
  }
  const std::string s = chosen.empty() ? first : chosen;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const char ch = s[i];
    if (ch == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      i += 2;
      while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])))
        ++i;
      out += "0x?";
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
        ++i;
      out += 'N';
    } else if (ch == '%') {
      ++i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                              s[i] == '#' || s[i] == '.'))
        ++i;
      out += "%v";
    } else if (s.compare(i, 5, "/tmp/") == 0) {
      while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])) && s[i] != ':' &&
             s[i] != '"')
        ++i;
      out += "<tmp>";
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
      if (!out.empty())
        out += ' ';
    } else {
      out += ch;
      ++i;
    }
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out.substr(0, 240);
}

namespace {
/// Frames every crash in a pass or a signal handler has, which name no
/// culprit: LLVM's signal machinery, MLIR's walkers and pass adaptors, the
/// standard library and callback thunks.
bool isInfrastructureFrame(const std::string &qualified) {
  static const char *const kInfrastructure[] = {"llvm::sys::",
                                                "mlir::detail::walk",
                                                "mlir::detail::OpToOpPassAdaptor",
                                                "mlir::detail::OpPassManager",
                                                "mlir::PassManager::",
                                                "mlir::OpPassManager",
                                                "llvm::function_ref<",
                                                "llvm::function_ref::",
                                                "std::",
                                                "mlir::Operation::walk",
                                                "mlir::Region::walk",
                                                "mlir::Block::walk",
                                                "__libc_",
                                                "__restore_rt",
                                                "abort",
                                                "raise",
                                                "__pthread_kill",
                                                "llvm::llvm_unreachable_internal",
                                                "__assert_fail"};
  for (const char *prefix : kInfrastructure)
    if (qualified.rfind(prefix, 0) == 0)
      return true;
  return qualified.find("SignalHandler") != std::string::npos;
}

/// A frame's function name without its parameter list (and the return type
/// a template's name may carry before it): what the infrastructure test and
/// the stop at npufuzz's own frames look at, so that a culprit taking a
/// `std::` or `llvm::function_ref` argument is still kept.
std::string qualifiedName(const std::string &frame) {
  std::string q = frame.substr(0, frame.find('('));
  // "void mlir::detail::walk<...>": the last space before the name.
  int depth = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] == '<')
      ++depth;
    else if (q[i] == '>')
      --depth;
    else if (q[i] == ' ' && depth == 0)
      return qualifiedName(q.substr(i + 1));
  }
  return q;
}
} // namespace

std::string crashLocation(const std::string &stderrText, int n) {
  std::istringstream in(stderrText);
  std::string line;
  std::vector<std::string> frames;
  while (std::getline(in, line)) {
    const size_t assertAt = line.find("Assertion `");
    if (assertAt != std::string::npos)
      return normalizeMessage(line.substr(assertAt));
    // LLVM's stack dump: "#3 0x00007f... name (lib+0x...)".
    if (line.empty() || line[0] != '#' || line.find(" 0x") == std::string::npos)
      continue;
    size_t nameAt = line.find(' ', line.find(" 0x") + 3);
    if (nameAt == std::string::npos)
      continue;
    std::string name = line.substr(nameAt + 1);
    // Without the library ("(lib.so+0x...)") and the source location
    // (" /path/File.cpp:68:3"), which depend on where things are installed.
    name = name.substr(0, name.find(" ("));
    name = name.substr(0, name.find(" /"));
    // Frames without a symbol print only "(library+0x...)".
    const bool unnamed = name.empty() || (name[0] == '(' && name.find("::") == std::string::npos);
    // npufuzz's own frames are the callers of the compiler under test,
    // the same for every crash: the culprit is below them.
    const std::string qualified = qualifiedName(name);
    if (qualified.rfind("npufuzz::", 0) == 0 || qualified == "main")
      break;
    if (unnamed || isInfrastructureFrame(qualified))
      continue;
    frames.push_back(name.substr(0, 120));
    if (static_cast<int>(frames.size()) == n)
      break;
  }
  std::string out;
  for (size_t i = 0; i < frames.size(); ++i)
    out += (i ? " < " : "") + frames[i];
  return out;
}

std::string_view differenceClass(std::string_view kind) {
  if (kind == "extreme" || kind == "infinity")
    return "value";
  return kind;
}

std::string resultDifference(const std::string &opName, DType t, const std::string &kind) {
  if (kind != "rounding" || isFloat(t) || opName == "cast" || scalarFamily(opName) == "div")
    return kind;
  return "value";
}

std::string scalarFamily(const std::string &opName) {
  // Views compute nothing: what a pass gets wrong in one is the access
  // (a stride, an offset, a bound), the same whichever view it is.
  if (const std::optional<OpKind> kind = parseOpName(opName);
      kind && opCategory(*kind) == OpCategory::View)
    return "view";
  std::string base = opName;
  for (const char *prefix : {"row_expand_", "col_expand_", "reduce_"})
    if (opName.rfind(prefix, 0) == 0)
      base = opName.substr(std::string(prefix).size());
  if (base == "sum")
    return "add";
  // One ordering, two directions: compilers lower and expand max and min by
  // one rule (maximumf/minimumf, their NaN and signed-zero handling).
  // clamp is a maximumf and a minimumf.
  if (base == "max" || base == "min" || base == "clamp")
    return "max/min";
  return base;
}

} // namespace npufuzz
