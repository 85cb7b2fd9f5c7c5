//===- backend/runtime/Redzone.h - Buffers between guard bytes --*- C++ -*-===//
//
// Every buffer a compiled kernel touches sits between two redzones filled
// with the scratch poison: its arguments (GuardedBuffer, made by the JIT
// around each input and output) and the temporaries its `malloc` hands out
// (the runtime's allocator, Runtime.h). A write past either end changes a
// redzone and is found after the run; a read past either end reads the
// poison, so it gives the same wrong value on every run with one poison
// (an uninitialised read the poison oracle sees, never a nondeterministic
// run), and a bounds-checked rerun names it.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_RUNTIME_REDZONE_H
#define NPUFUZZ_BACKEND_RUNTIME_REDZONE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace npufuzz {

/// Bytes of redzone on each side of a buffer of `bytes`: as many as the
/// buffer, so a wrong stride or a row too many lands in it, at least one
/// cache line and at most 64 KiB (or `alignment`, when larger); a multiple
/// of `alignment` (a power of two) so the buffer keeps the alignment of its
/// base.
size_t redzoneBytes(size_t bytes, size_t alignment = 64);

/// A changed redzone.
struct RedzoneFault {
  std::string buffer; ///< `argument 3 (output 0)`, `temporary 2 (4096 bytes)`
  std::string kind;   ///< the same without numbers: `output`, `temporary`
  bool after = true;  ///< past the end (else before the start)
  /// Distance of the changed byte nearest the buffer from its edge, and
  /// how many bytes of the redzone changed.
  size_t offset = 0, changedBytes = 0;
  size_t redzone = 0; ///< bytes of that redzone

  /// `out-of-bounds write: argument 3 (output 0), 4 bytes past its end
  /// (16 of its 4096 redzone bytes changed)`.
  std::string describe() const;
};

/// The changed byte of a redzone nearest the buffer, if any: `zone` holds
/// `bytes` bytes that should all repeat `pattern` (from the start of the
/// zone, in memory order), and `after` says which side of the buffer it is.
std::optional<RedzoneFault> checkRedzone(const uint8_t *zone, size_t bytes, uint32_t pattern,
                                         bool after);

/// The first changed byte of the redzones of `redzone` bytes before and
/// after the `bytes` at `data` (the one before first), if any.
std::optional<RedzoneFault> checkRedzones(const uint8_t *data, size_t bytes, size_t redzone,
                                          uint32_t pattern);

/// A buffer of `bytes` between redzones filled with `pattern`.
class GuardedBuffer {
public:
  GuardedBuffer(size_t bytes, uint32_t pattern);
  uint8_t *data() { return base_.get() + redzone_; }
  size_t size() const { return bytes_; }
  /// The first changed redzone, of a buffer named `name` of `kind` (before
  /// side first).
  std::optional<RedzoneFault> check(const std::string &name, const std::string &kind) const;

private:
  struct Free {
    void operator()(uint8_t *p) const;
  };
  std::unique_ptr<uint8_t, Free> base_;
  size_t bytes_, redzone_;
  uint32_t pattern_;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_RUNTIME_REDZONE_H
