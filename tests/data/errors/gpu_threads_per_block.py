# expect: 13: a block has at most 1024 (threadIdx.x * y * z)
from tvm import te
A = te.placeholder((256, 256), name="A")
B = te.compute((256, 256), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
bi, ti = s[B].split(i, factor=64)
bj, tj = s[B].split(j, factor=32)
s[B].reorder(bi, bj, ti, tj)
s[B].bind(bi, te.thread_axis("blockIdx.y"))
s[B].bind(bj, te.thread_axis("blockIdx.x"))
s[B].bind(ti, te.thread_axis("threadIdx.y"))
s[B].bind(tj, te.thread_axis("threadIdx.x"))
