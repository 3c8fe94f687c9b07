# Elementwise add followed by ReLU: the smallest fused operator.
import tvm
from tvm import te

N = 1048576  # 1 << 20 elements

A = te.placeholder((N,), name="A")
B = te.placeholder((N,), name="B")
add = te.compute((N,), lambda i: A[i] + B[i], name="add")
relu = te.compute((N,), lambda i: te.max(add[i], tvm.tir.const(0, "float32")), name="relu")

# variant: separate
# Two loops: add writes a temporary array that relu then reads back.
s = te.create_schedule(relu.op)

# variant: fused
# Inline add into relu: one loop, no temporary.
s = te.create_schedule(relu.op)
s[add].compute_inline()

# variant: vectorized parallel
s = te.create_schedule(relu.op)
s[add].compute_inline()
xo, xi = s[relu].split(relu.op.axis[0], factor=16)
s[relu].vectorize(xi)
s[relu].parallel(xo)
