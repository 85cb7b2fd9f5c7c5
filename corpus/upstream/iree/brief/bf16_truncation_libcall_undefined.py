"""IREE (llvm-cpu) and the program's semantics disagree on @kernel: exits 1 when they do.

out[i] = bits of bf16(float(i)). The scalar f32 -> bf16 truncf becomes a call to
__truncsfbf2, which the embedded linker cannot find ("undefined symbol: __truncsfbf2")."""
import sys
try:
    import numpy as np
    from iree import compiler, runtime
    from iree.compiler.version import VERSION
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

MLIR = r'''
func.func @kernel() -> tensor<5xi16> {
  %e = tensor.empty() : tensor<5xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<5xbf16>) {
  ^bb0(%b: bf16):
    %i = linalg.index 0 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    %t = arith.truncf %f : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<5xbf16>
  %o = arith.bitcast %r : tensor<5xbf16> to tensor<5xi16>
  return %o : tensor<5xi16>
}
'''
FLAGS = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
print("iree", VERSION)
x = []
want = np.array([0x0000, 0x3F80, 0x4000, 0x4040, 0x4080], np.int16)  # bf16 of 0, 1, 2, 3, 4
vm = runtime.load_vm_flatbuffer(compiler.compile_str(MLIR, extra_args=FLAGS), driver="local-sync")
got = vm.kernel(*x).to_host()
print("IREE:", got.tolist(), "expected:", want.tolist())
sys.exit(0 if np.array_equal(got, want) else 1)
