# expect: 9: blockIdx.x is bound to a loop inside the loop bound to threadIdx.x
from tvm import te
A = te.placeholder((64, 128), name="A")
B = te.compute((64, 128), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
jo, ji = s[B].split(j, factor=32)
s[B].bind(i, te.thread_axis("threadIdx.x"))
s[B].bind(ji, te.thread_axis("blockIdx.x"))
