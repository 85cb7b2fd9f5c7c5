"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

out = math.trunc(x). The scalar math.trunc becomes a call to truncf, which the embedded
linker cannot find ("undefined symbol: truncf")."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel(%x: tensor<1xf32>) -> tensor<1xf32> {
  %t = math.trunc %x : tensor<1xf32>
  return %t : tensor<1xf32>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = [np.array([-2.5], np.float32)]
want = np.array([-2.0], np.float32)
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
