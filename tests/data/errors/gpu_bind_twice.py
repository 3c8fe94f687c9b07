# expect: 8: loop 'i' is already bound to blockIdx.x
from tvm import te
A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
(i,) = s[B].op.axis
s[B].bind(i, te.thread_axis("blockIdx.x"))
s[B].bind(i, te.thread_axis("threadIdx.x"))
