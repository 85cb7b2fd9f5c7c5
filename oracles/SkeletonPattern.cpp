//===- oracles/SkeletonPattern.cpp - The IR a known bug needs, in a skeleton -===//
#include "oracles/SkeletonPattern.h"

#include <optional>
#include <vector>

namespace npufuzz {

namespace {
struct SkeletonOp {
  std::string name;
  std::vector<std::vector<SkeletonOp>> regions;
};
using Block = std::vector<SkeletonOp>;

/// Parses the ops of a block from `at` until a '}' or the end.
bool parseBlock(const std::string &s, size_t &at, Block &out) {
  while (at < s.size() && s[at] != '}') {
    if (!out.empty()) {
      if (s[at] != ' ')
        return false;
      ++at;
    }
    SkeletonOp op;
    while (at < s.size() && s[at] != ' ' && s[at] != '{' && s[at] != '}')
      op.name += s[at++];
    if (op.name.empty())
      return false;
    while (at < s.size() && s[at] == '{') {
      ++at;
      Block region;
      if (!parseBlock(s, at, region) || at >= s.size() || s[at] != '}')
        return false;
      ++at;
      op.regions.push_back(std::move(region));
    }
    out.push_back(std::move(op));
  }
  return true;
}

std::optional<Block> parseSkeleton(const std::string &s) {
  Block b;
  size_t at = 0;
  if (s.empty() || !parseBlock(s, at, b) || at != s.size())
    return std::nullopt;
  return b;
}

bool blockIncludes(const Block &block, const Block &pattern);

/// Whether `op` matches `p`: the same name, and each of `p`'s regions
/// included in `op`'s region of that index.
bool opIncludes(const SkeletonOp &op, const SkeletonOp &p) {
  if (op.name != p.name || op.regions.size() < p.regions.size())
    return false;
  for (size_t r = 0; r < p.regions.size(); ++r)
    if (!blockIncludes(op.regions[r], p.regions[r]))
      return false;
  return true;
}

/// Whether the ops of `pattern` from `k` on match distinct ops of `block`
/// not yet `used` (a small backtracking search: blocks are short).
bool matchFrom(const Block &block, const Block &pattern, size_t k, std::vector<bool> &used) {
  if (k == pattern.size())
    return true;
  for (size_t i = 0; i < block.size(); ++i) {
    if (used[i] || !opIncludes(block[i], pattern[k]))
      continue;
    used[i] = true;
    if (matchFrom(block, pattern, k + 1, used))
      return true;
    used[i] = false;
  }
  return false;
}

bool blockIncludes(const Block &block, const Block &pattern) {
  std::vector<bool> used(block.size(), false);
  return matchFrom(block, pattern, 0, used);
}

/// Whether some block of `block`'s tree, `block` itself included, includes
/// `pattern`.
bool someBlockIncludes(const Block &block, const Block &pattern) {
  if (blockIncludes(block, pattern))
    return true;
  for (const SkeletonOp &op : block)
    for (const Block &region : op.regions)
      if (someBlockIncludes(region, pattern))
        return true;
  return false;
}
} // namespace

bool isSkeletonText(const std::string &text) { return parseSkeleton(text).has_value(); }

bool skeletonIncludes(const std::string &skeleton, const std::string &pattern) {
  const std::optional<Block> s = parseSkeleton(skeleton), p = parseSkeleton(pattern);
  return s && p && someBlockIncludes(*s, *p);
}

} // namespace npufuzz
