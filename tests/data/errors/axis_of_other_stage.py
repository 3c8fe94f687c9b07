# expect: 8: belongs to stage 'B'
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
C = te.compute((8,), lambda i: B[i] * 2, name="C")
s = te.create_schedule(C.op)
xo, xi = s[C].split(B.op.axis[0], factor=2)
