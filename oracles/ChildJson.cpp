//===- oracles/ChildJson.cpp - Work done in a child, read back as JSON ----===//
#include "oracles/ChildJson.h"

namespace npufuzz {

std::optional<llvm::json::Object> jsonFromChild(const OracleContext &ctx,
                                                const std::function<llvm::json::Object()> &work) {
  const std::optional<std::string> payload = ctx.inChild([&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(work());
    return text;
  });
  if (!payload)
    return std::nullopt;
  auto parsed = llvm::json::parse(*payload);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  if (llvm::json::Object *j = parsed->getAsObject())
    return std::move(*j);
  return std::nullopt;
}

} // namespace npufuzz
