"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

out = y with y[0:n, 0:n] = x[0:n, 0:n], n an i64 argument cast to index; with n = 1 out = x.
Codegen fails: "'iree_codegen.workgroup_count_hint' op failed to resolve workgroup count hint"."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel(%x: tensor<1x1xi32>, %y: tensor<1x1xi32>, %n64: i64) -> tensor<1x1xi32> {
  %n = arith.index_cast %n64 : i64 to index
  %s = tensor.extract_slice %x[0, 0] [%n, %n] [1, 1] : tensor<1x1xi32> to tensor<?x?xi32>
  %i = tensor.insert_slice %s into %y[0, 0] [%n, %n] [1, 1] : tensor<?x?xi32> into tensor<1x1xi32>
  return %i : tensor<1x1xi32>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = [np.array([[7]], np.int32), np.array([[0]], np.int32), 1]
want = np.array([[7]], np.int32)
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
