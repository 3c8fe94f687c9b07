# expect: 8: Did you forget to bind?
import tvm
from tvm import te
A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
xo, xi = s[B].split(B.op.axis[0], factor=64)
f = tvm.build(s, [A, B], target="cuda")
