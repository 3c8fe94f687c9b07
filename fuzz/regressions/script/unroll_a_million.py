import tvm
from tvm import te
A = te.placeholder((1000000,), name="A")
B = te.compute(A.shape, lambda i: A[i] * 2, name="B")
s = te.create_schedule(B.op)
s[B].unroll(B.op.axis[0])
