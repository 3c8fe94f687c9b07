# expect: 11: not supported
import tvm
from tvm import te

M = N = K = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
f = tvm.build(s, [A, B, C], target="rocm")
