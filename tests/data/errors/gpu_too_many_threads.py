# expect: 8: a launch has at most 1024 threads along x
from tvm import te
A = te.placeholder((4096,), name="A")
B = te.compute((4096,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
bx, tx = s[B].split(B.op.axis[0], factor=2048)
s[B].bind(bx, te.thread_axis("blockIdx.x"))
s[B].bind(tx, te.thread_axis("threadIdx.x"))
