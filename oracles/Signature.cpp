//===- oracles/Signature.cpp - What makes two failures the same -----------===//
#include "oracles/Signature.h"

#include "ir/Hash.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace npufuzz {

std::string Signature::text() const {
  return std::string(verdictName(kind)) + " | " + pass + " | " + where + " | " + message;
}

std::string Signature::id() const {
  const uint64_t h = fnv1a(text());
  static const char *digits = "0123456789abcdef";
  std::string hex;
  for (int i = 15; i >= 0; --i)
    hex += digits[(h >> (4 * i)) & 15];
  return std::string(verdictName(kind)) + "-" + hex;
}

std::string normalizeMessage(const std::string &raw) {
  // The first line that says "error" if any, else the first non-empty line.
  std::istringstream in(raw);
  std::string line, first, chosen;
  while (std::getline(in, line)) {
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
    name = name.substr(0, name.find(" ("));
    // Frames without a symbol print only "(library+0x...)".
    const bool unnamed = name.empty() || (name[0] == '(' && name.find("::") == std::string::npos);
    if (unnamed || name.find("llvm::sys::") != std::string::npos ||
        name.find("SignalHandler") != std::string::npos)
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

} // namespace npufuzz
