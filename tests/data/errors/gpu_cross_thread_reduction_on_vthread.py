# expect: 9: 'B' reduces across threads, and a stage that does cannot also run on virtual threads
from tvm import te
A = te.placeholder((64, 128), name="A")
k = te.reduce_axis((0, 128), name="k")
B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=32)
s[B].bind(ki, te.thread_axis("threadIdx.x"))
s[B].bind(B.op.axis[0], te.thread_axis("vthread"))
