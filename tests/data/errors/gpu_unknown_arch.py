# expect: 9: 'sm_35' is outside what Loopscope generates code for
import tvm
from tvm import te
A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
bx, tx = s[B].split(B.op.axis[0], factor=64)
s[B].bind(bx, te.thread_axis("blockIdx.x"))
f = tvm.build(s, [A, B], target="cuda -arch=sm_35")
