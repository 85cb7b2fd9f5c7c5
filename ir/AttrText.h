//===- ir/AttrText.h - Attribute text of .npf ops --------------*- C++ -*-===//
//
// Internal to ir/: turns an op's raw `key=value` attributes into OpAttrs once
// the op's result types are known (a scalar's meaning depends on its dtype).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_ATTRTEXT_H
#define NPUFUZZ_IR_ATTRTEXT_H

#include "ir/Case.h"

#include <string>
#include <vector>

namespace npufuzz {

/// A raw `key=value` attribute and the column where its key starts.
struct RawAttr {
  std::string key, value;
  int col = 0;
};

/// Reads one op's attributes. On error, `errorCol` and `error` say where and
/// what.
class AttrReader {
public:
  /// Sets op.attrs from the raw attributes, checking that the op's kind takes
  /// each one. Attributes derivable from the result type are taken from it.
  bool interpretAttrs(Op &op, const std::vector<RawAttr> &attrs,
                      const std::vector<TensorType> &types);

  int errorCol = 0;
  std::string error;

private:
  bool fail(int col, const std::string &msg) {
    errorCol = col;
    error = msg;
    return false;
  }
  bool intListAttr(const RawAttr &a, std::vector<int64_t> &out);
  bool intAttr(const RawAttr &a, int64_t &out);
  bool scalarAttr(const RawAttr &a, DType t, Scalar &s);
  bool fillAttr(const RawAttr &a, InputFill &f);
  bool mapAttr(const RawAttr &a, size_t resultRank, std::vector<IndexExpr> &map);
};

} // namespace npufuzz

#endif // NPUFUZZ_IR_ATTRTEXT_H
