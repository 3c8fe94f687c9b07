import tvm
from tvm import te
A = te.placeholder((4, 4096), name="A")
B = te.compute((4, 4096), lambda i, j: A[i, j] * 2, name="B")
s = te.create_schedule(B.op)
s[B].unroll(B.op.axis[1])
