# expect: 8: not part of this schedule
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
D = te.compute((8,), lambda i: A[i] * 2, name="D")
s = te.create_schedule(B.op)
s[D].parallel(D.op.axis[0])
