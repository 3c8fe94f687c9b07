# expect: 9: also reads it outside that loop
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
C = te.compute((8,), lambda i: B[i] * 2, name="C")
D = te.compute((8,), lambda i: B[i] + C[i], name="D")
s = te.create_schedule(D.op)
s[B].compute_at(s[C], C.op.axis[0])
