# expect: 9: unrolling loops 'i' and 'j' of 'B' would make 262144 copies of loop bodies
import tvm
from tvm import te
N = 512
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j] * 2, name="B")
s = te.create_schedule(B.op)
s[B].unroll(B.op.axis[0])
s[B].unroll(B.op.axis[1])
