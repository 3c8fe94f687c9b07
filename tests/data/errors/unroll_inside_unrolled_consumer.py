# expect: 11: the unrolled loops of this kernel would make 4160 copies of loop bodies (unrolling loops 'i' of 'C' and 'j' of 'B': 4096)
import tvm
from tvm import te
N = 64
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j] * 2, name="B")
C = te.compute((N, N), lambda i, j: B[i, j] + 1, name="C")
s = te.create_schedule(C.op)
s[C].unroll(C.op.axis[0])
s[B].compute_at(s[C], C.op.axis[0])
s[B].unroll(B.op.axis[1])
