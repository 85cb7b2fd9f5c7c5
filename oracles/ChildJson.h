//===- oracles/ChildJson.h - Work done in a child, read back as JSON -*- C++ -*-===//
#ifndef NPUFUZZ_ORACLES_CHILDJSON_H
#define NPUFUZZ_ORACLES_CHILDJSON_H

#include "oracles/Oracle.h"

#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>

namespace npufuzz {

/// Runs `work` in a child (OracleContext::inChild) and reads back the JSON
/// object it returns; none when the child does not return one (it crashed,
/// hung or failed).
std::optional<llvm::json::Object> jsonFromChild(const OracleContext &ctx,
                                                const std::function<llvm::json::Object()> &work);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_CHILDJSON_H
