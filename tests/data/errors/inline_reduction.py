# expect: 9: it is a reduction
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
k = te.reduce_axis((0, 8), name="k")
B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="B")
C = te.compute((8,), lambda i: B[i] * 2, name="C")
s = te.create_schedule(C.op)
s[B].compute_inline()
