# expect: 9: 'D' does not use 'B'
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
D = te.compute((8,), lambda i: A[i] * 3, name="D")
C = te.compute((8,), lambda i: B[i] * D[i], name="C")
s = te.create_schedule(C.op)
s[B].compute_at(s[D], D.op.axis[0])
