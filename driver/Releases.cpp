//===- driver/Releases.cpp - Which release of a compiler runs here --------===//
#include "driver/Releases.h"

#include <cctype>

namespace npufuzz {

namespace {
/// The numbers of "2.15.0+cu132" up to the first character that is neither
/// a digit nor a '.' between digits: {2, 15, 0}.
std::vector<uint64_t> leadingNumbers(std::string_view text) {
  std::vector<uint64_t> out;
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    uint64_t n = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
      n = n * 10 + static_cast<uint64_t>(text[i] - '0');
    out.push_back(n);
    if (i + 1 < text.size() && text[i] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[i + 1])))
      ++i;
    else
      break;
  }
  return out;
}
} // namespace

std::optional<Release> releaseOf(std::string_view text) {
  const size_t dash = text.rfind('-');
  if (dash == std::string_view::npos || dash == 0)
    return std::nullopt;
  Release r{std::string(text.substr(0, dash)), leadingNumbers(text.substr(dash + 1))};
  // All of what follows the dash is the number.
  std::string spelled;
  for (uint64_t n : r.number)
    spelled += (spelled.empty() ? "" : ".") + std::to_string(n);
  if (r.number.empty() || spelled != text.substr(dash + 1))
    return std::nullopt;
  return r;
}

std::optional<bool> includesFix(std::string_view canary, const Release &fix) {
  const std::string word = fix.name + " ";
  for (size_t at = canary.find(word); at != std::string_view::npos;
       at = canary.find(word, at + 1)) {
    if (at != 0 && canary[at - 1] != ' ')
      continue; // "libtorch 2" is not torch's
    const std::vector<uint64_t> here = leadingNumbers(canary.substr(at + word.size()));
    if (here.empty())
      continue;
    // Missing parts count as 0: 2.15 is 2.15.0.
    for (size_t i = 0; i < std::max(here.size(), fix.number.size()); ++i) {
      const uint64_t a = i < here.size() ? here[i] : 0,
                     b = i < fix.number.size() ? fix.number[i] : 0;
      if (a != b)
        return a > b;
    }
    return true;
  }
  return std::nullopt;
}

} // namespace npufuzz
