# expect: 12: a block has at most 49152 bytes of static shared memory
from tvm import te
A = te.placeholder((1024, 1024), name="A")
B = te.compute((1024, 1024), lambda i, j: A[i, j] + 1.0, name="B")
s = te.create_schedule(B.op)
AA = s.cache_read(A, "shared", [B])
i, j = s[B].op.axis
bi, ti = s[B].split(i, factor=16)
s[B].reorder(bi, ti, j)
s[B].bind(bi, te.thread_axis("blockIdx.x"))
s[B].bind(ti, te.thread_axis("threadIdx.x"))
s[AA].compute_at(s[B], bi)
