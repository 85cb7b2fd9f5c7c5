//===- ir/AttrText.h - Attribute text of .npf ops --------------*- C++ -*-===//
//
// Internal to ir/: turns an op's raw `key=value` attributes into OpAttrs once
// the op's result types are known (a scalar's meaning depends on its dtype),
// and back into text. Which op takes which attribute is ir/OpAttrs.def.
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
  // One reader per attribute kind of ir/OpAttrs.def.
  bool readIntList(const RawAttr &a, const TensorType &result, std::vector<int64_t> &out);
  bool readInt(const RawAttr &a, const TensorType &result, int64_t &out);
  bool readScalar(const RawAttr &a, const TensorType &result, Scalar &s);
  bool readRounding(const RawAttr &a, const TensorType &result, RoundingMode &m);
  bool readPad(const RawAttr &a, const TensorType &result, PadKind &p);
  bool readFill(const RawAttr &a, const TensorType &result, InputFill &f);
  bool readMap(const RawAttr &a, const TensorType &result, std::vector<IndexExpr> &map);
};

/// `key=value` of each attribute op `op` takes, in the schema's order
/// (ir/OpAttrs.def); `result` is its first result's type.
std::vector<std::string> attributeTexts(const Op &op, const TensorType &result);

} // namespace npufuzz

#endif // NPUFUZZ_IR_ATTRTEXT_H
