# Elementwise add followed by ReLU on a GPU: the add inlined into the ReLU, one element or four
# consecutive elements per thread.
# On an NVIDIA GPU (through loopscope-runner) every variant runs there, checked and timed;
# without one, every variant is checked on the CPU and not timed.
import tvm
from tvm import te

N = 16777216  # 1 << 24 elements

A = te.placeholder((N,), name="A")
B = te.placeholder((N,), name="B")
add = te.compute((N,), lambda i: A[i] + B[i], name="add")
relu = te.compute((N,), lambda i: te.max(add[i], tvm.tir.const(0, "float32")), name="relu")

# variant: bind
# 256 threads per block, one element each.
s = te.create_schedule(relu.op)
s[add].compute_inline()
bx, tx = s[relu].split(relu.op.axis[0], factor=256)
s[relu].bind(bx, te.thread_axis("blockIdx.x"))
s[relu].bind(tx, te.thread_axis("threadIdx.x"))

# variant: float4
# Four consecutive elements per thread, loaded and stored as one 16-byte access.
s = te.create_schedule(relu.op)
s[add].compute_inline()
xo, xi = s[relu].split(relu.op.axis[0], factor=4)
bx, tx = s[relu].split(xo, factor=256)
s[relu].bind(bx, te.thread_axis("blockIdx.x"))
s[relu].bind(tx, te.thread_axis("threadIdx.x"))
s[relu].vectorize(xi)

f = tvm.build(s, [A, B, relu], target="cuda")
