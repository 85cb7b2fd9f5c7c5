//===- backend/runtime/KernelIO.cpp - Kernel buffers to and from files ----===//
//
// For out-of-process runs through mlir-runner: a generated `@main` fills the
// kernel's memrefs from files and writes the outputs back, calling
// `npf_rt_io_<dtype>(kind, index, memref<*xT>)` through the MLIR C
// interface. Files live in $NPUFUZZ_IO_DIR as raw element bytes (the layout
// of ir/TensorData.h): kind 0 reads inK.bin, kind 1 reads outK.init.bin (the
// poison fill), kind 2 writes outK.bin. Exported from libnpufuzz_rt.so.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
/// MLIR's C-interface view of an unranked memref.
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor; ///< {allocated, aligned, offset, sizes[rank], strides[rank]}
};

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "npufuzz kernel I/O: %s\n", msg.c_str());
  std::abort();
}

void transfer(int64_t kind, int64_t index, const UnrankedMemRef *m, size_t elementBytes) {
  const char *dir = std::getenv("NPUFUZZ_IO_DIR");
  if (!dir)
    fail("NPUFUZZ_IO_DIR is not set");
  const int64_t *d = static_cast<const int64_t *>(m->descriptor);
  char *aligned = reinterpret_cast<char *>(d[1]);
  const int64_t offset = d[2];
  int64_t count = 1;
  for (int64_t i = 0; i < m->rank; ++i)
    count *= d[3 + i];
  const char *pattern = kind == 0 ? "in" : "out";
  const char *suffix = kind == 1 ? ".init.bin" : ".bin";
  const std::string path = std::string(dir) + "/" + pattern + std::to_string(index) + suffix;
  std::FILE *f = std::fopen(path.c_str(), kind == 2 ? "wb" : "rb");
  if (!f)
    fail("cannot open " + path);
  char *data = aligned + offset * static_cast<int64_t>(elementBytes);
  const size_t bytes = static_cast<size_t>(count) * elementBytes;
  const size_t done = kind == 2 ? std::fwrite(data, 1, bytes, f) : std::fread(data, 1, bytes, f);
  std::fclose(f);
  if (done != bytes)
    fail("short transfer on " + path);
}
} // namespace

#define NPF_KERNEL_IO(NAME, BYTES)                                                                 \
  extern "C" void _mlir_ciface_npf_rt_io_##NAME(int64_t kind, int64_t index, UnrankedMemRef *m) {  \
    transfer(kind, index, m, BYTES);                                                               \
  }
NPF_KERNEL_IO(f32, 4)
NPF_KERNEL_IO(f16, 2)
NPF_KERNEL_IO(bf16, 2)
NPF_KERNEL_IO(i8, 1)
NPF_KERNEL_IO(i32, 4)
NPF_KERNEL_IO(i64, 8)
NPF_KERNEL_IO(index, 8)
NPF_KERNEL_IO(i1, 1)
#undef NPF_KERNEL_IO
