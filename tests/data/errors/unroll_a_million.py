# expect: 8: would make 1000000 copies of its body
import tvm
from tvm import te
N = 1000000
A = te.placeholder((N,), name="A")
B = te.compute((N,), lambda i: A[i] * 2, name="B")
s = te.create_schedule(B.op)
s[B].unroll(B.op.axis[0])
