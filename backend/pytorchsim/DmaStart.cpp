//===- backend/pytorchsim/DmaStart.cpp - PyTorchSim's dma_start, as upstream reads it -===//
#include "backend/pytorchsim/DmaStart.h"

#include <cctype>

namespace npufuzz {

namespace {
constexpr const char *kOpName = "memref.dma_start";

/// A cursor over the op's text.
struct Cursor {
  const std::string &s;
  size_t at;
  void skipSpace() {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at])))
      ++at;
  }
  bool eat(char ch) {
    skipSpace();
    if (at < s.size() && s[at] == ch) {
      ++at;
      return true;
    }
    return false;
  }
  /// `%name`: letters, digits, `_`, `$`, `.`, `-`.
  bool value(std::string &out) {
    skipSpace();
    if (at >= s.size() || s[at] != '%')
      return false;
    const size_t from = at++;
    while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_' ||
                             s[at] == '$' || s[at] == '.' || s[at] == '-'))
      ++at;
    out = s.substr(from, at - from);
    return out.size() > 1;
  }
  /// `%m[%i, %j]`.
  bool indexed(std::string &base, std::vector<std::string> &indices) {
    if (!value(base) || !eat('['))
      return false;
    if (eat(']'))
      return true;
    do {
      std::string i;
      if (!value(i))
        return false;
      indices.push_back(i);
    } while (eat(','));
    return eat(']');
  }
  /// A type up to the next `,` or `{` or newline outside `<>`.
  bool type(std::string &out) {
    skipSpace();
    const size_t from = at;
    int depth = 0;
    for (; at < s.size(); ++at) {
      const char ch = s[at];
      if (ch == '<')
        ++depth;
      else if (ch == '>')
        --depth;
      else if (depth == 0 && (ch == ',' || ch == '{' || ch == '\n'))
        break;
    }
    out = s.substr(from, at - from);
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())))
      out.pop_back();
    return !out.empty() && depth == 0;
  }
  /// A balanced `{...}`.
  bool dictionary(std::string &out) {
    skipSpace();
    if (at >= s.size() || s[at] != '{')
      return false;
    const size_t from = at;
    int depth = 0;
    for (; at < s.size(); ++at) {
      if (s[at] == '{')
        ++depth;
      else if (s[at] == '}' && --depth == 0) {
        ++at;
        out = s.substr(from, at - from);
        return true;
      }
    }
    return false;
  }
};
} // namespace

bool parseDmaStart(const std::string &kernel, size_t at, DmaStartText &out, std::string &error) {
  out = DmaStartText();
  out.begin = at;
  Cursor c{kernel, at + std::string(kOpName).size()};
  const bool operands = c.indexed(out.source, out.sourceIndices) && c.eat(',') &&
                        c.indexed(out.destination, out.destinationIndices) && c.eat(',') &&
                        c.value(out.type) && c.eat(',') && c.indexed(out.tag, out.tagIndices) &&
                        c.eat(',') && c.value(out.axis) && c.eat(',') && c.value(out.vstride) &&
                        c.eat(':');
  const bool types = operands && c.type(out.sourceType) && c.eat(',') &&
                     c.type(out.destinationType) && c.eat(',') && c.type(out.tagType);
  if (!types) {
    const size_t lineEnd = kernel.find('\n', at);
    error = "not PyTorchSim's dma_start form: " + kernel.substr(at, lineEnd - at);
    return false;
  }
  // The attribute dictionary, when it follows (on the same line or the next).
  const size_t beforeAttributes = c.at;
  if (!c.dictionary(out.attributes))
    c.at = beforeAttributes;
  out.end = c.at;
  return true;
}

bool genericDmaStarts(const std::string &kernel, std::string &out, std::string &error) {
  out.clear();
  size_t copied = 0;
  for (size_t at = kernel.find(kOpName); at != std::string::npos; at = kernel.find(kOpName, at)) {
    // A name that only starts like it (memref.dma_start_foo) or sits in a
    // comment is not the op.
    const size_t after = at + std::string(kOpName).size();
    const size_t lineStart = kernel.rfind('\n', at) + 1;
    const bool comment = kernel.substr(lineStart, at - lineStart).find("//") != std::string::npos;
    if (comment ||
        (after < kernel.size() &&
         (std::isalnum(static_cast<unsigned char>(kernel[after])) || kernel[after] == '_'))) {
      at = after;
      continue;
    }
    DmaStartText d;
    if (!parseDmaStart(kernel, at, d, error))
      return false;
    std::string operands = d.source, types = d.sourceType;
    auto indices = [&](const std::vector<std::string> &list) {
      for (const std::string &i : list) {
        operands += ", " + i;
        types += ", index";
      }
    };
    indices(d.sourceIndices);
    operands += ", " + d.destination, types += ", " + d.destinationType;
    indices(d.destinationIndices);
    operands += ", " + d.type, types += ", index";
    operands += ", " + d.tag, types += ", " + d.tagType;
    indices(d.tagIndices);
    operands += ", " + d.axis + ", " + d.vstride, types += ", index, index";
    // Its newlines kept, so that later lines keep their numbers.
    std::string newlines;
    for (size_t i = d.begin; i < d.end; ++i)
      if (kernel[i] == '\n')
        newlines += '\n';
    std::string attributes = d.attributes;
    for (char &ch : attributes)
      if (ch == '\n')
        ch = ' ';
    out += kernel.substr(copied, d.begin - copied);
    out += "\"memref.dma_start\"(" + operands + ")" +
           (attributes.empty() ? std::string() : " " + attributes) + " : (" + types + ") -> ()" +
           newlines;
    copied = at = d.end;
  }
  out += kernel.substr(copied);
  return true;
}

} // namespace npufuzz
