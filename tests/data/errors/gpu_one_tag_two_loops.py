# expect: 8: threadIdx.x is already bound to loop 'i'
from tvm import te
A = te.placeholder((32, 32), name="A")
B = te.compute((32, 32), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
s[B].bind(i, te.thread_axis("threadIdx.x"))
s[B].bind(j, te.thread_axis("threadIdx.x"))
