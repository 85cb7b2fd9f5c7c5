//===- backend/emit/PyptoEmitter.h - A case as a PyPTO program --*- C++ -*-===//
//
// A case written as the user of PyPTO (hw-native-sys/pypto) writes a tile
// kernel: a `@pl.program` class with one InCore function `npf_kernel` that
// loads its inputs into tiles (`pl.load`, with their valid shapes), applies
// PyPTO's tile ops and stores its outputs (`pl.store`, their valid part).
// PyPTO's own passes and PTO code generation then make the `.pto` that
// ptoas assembles (--backend pypto). Its parameters are the tensors first,
// inputs then `pl.Out` outputs, then an index per runtime valid-shape
// dimension: PyPTO's code generation keeps that order, which is the PTO
// harness's (PtoEmitter.h).
//
// Covered: rank-2 f32/f16/i32 tiles; the elementwise unary and binary ops,
// row and column expands PyPTO lowers to PTO, a load narrowed to a valid
// shape (set_validshape of a loaded tile, PyPTO's users' way), fillpad and
// float casts. Views are refused: at the commit whose pinned
// ptoas is 0.27's (d15c356f5), PyPTO's tile.transpose emits a pto.ttrans
// without its temporary, which ptoas rejects, and tile.slice is a textract,
// which ptoas's A2/A3 verifier takes only from acc to mat.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EMIT_PYPTOEMITTER_H
#define NPUFUZZ_BACKEND_EMIT_PYPTOEMITTER_H

#include "ir/Case.h"

#include <string>

namespace npufuzz {

/// Writes the verified case `c` as a PyPTO program (Python source for
/// `pl.parse`), or returns false with the reason it is not written. Same
/// case, same bytes.
bool emitPypto(const Case &c, std::string &out, std::string &unsupported);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EMIT_PYPTOEMITTER_H
