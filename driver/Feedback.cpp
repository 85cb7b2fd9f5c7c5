//===- driver/Feedback.cpp - What a case reached, as keys -----------------===//
#include "driver/Feedback.h"

#include "backend/mlir/IrFeedback.h"
#include "generators/Features.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace npufuzz {

namespace {

/// A diagnostic line without its numbers and SSA names' digits, so that
/// one message about two shapes is one key.
std::string withoutNumbers(const std::string &line) {
  std::string out;
  for (const char ch : line)
    if (!std::isdigit(static_cast<unsigned char>(ch)))
      out += ch;
  return out;
}

} // namespace

std::vector<uint32_t> caseFeedback(const Case &c, const BackendRun &run,
                                   const CaseCoverage &coverage) {
  std::vector<uint32_t> keys = run.irFeedback;
  for (const auto &[file, lines] : coverage.lines)
    for (const int64_t line : lines)
      keys.push_back(feedbackKey("line|" + file + ":" + std::to_string(line)));
  for (const auto &[file, branches] : coverage.branches)
    for (const auto &[from, to] : branches)
      keys.push_back(
          feedbackKey("branch|" + file + ":" + std::to_string(from) + ">" + std::to_string(to)));
  for (const std::string &pass : run.passesThatChanged)
    keys.push_back(feedbackKey("changed|" + pass));
  for (const std::string &op : run.entryOps)
    keys.push_back(feedbackKey("entry|" + op));
  std::istringstream warnings(run.passWarnings);
  unsigned lines = 0;
  for (std::string line; std::getline(warnings, line) && lines < 64; ++lines)
    keys.push_back(feedbackKey("said|" + withoutNumbers(line)));
  // The case's features. Not their pairs: nearly every case brings a pair
  // never seen, so that every case would be kept and none favoured.
  for (const std::string &f : caseFeatures(c))
    keys.push_back(feedbackKey("feature|" + f));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

} // namespace npufuzz
