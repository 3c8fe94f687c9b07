# expect: 8: the auto_unroll_max_step pragma on loop 'i' of 'B' lets unrolling make up to 262144
import tvm
from tvm import te
N = 512
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j] * 2, name="B")
s = te.create_schedule(B.op)
s[B].pragma(B.op.axis[0], "auto_unroll_max_step", 1000000)
