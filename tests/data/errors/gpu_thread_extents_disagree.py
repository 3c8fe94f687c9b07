# expect: 11: threadIdx.x is bound to a loop of 8 iterations here and of 16 elsewhere in the same kernel
from tvm import te
A = te.placeholder((256, 256), name="A")
B = te.compute((256, 256), lambda i, j: A[i, j] + 1.0, name="B")
s = te.create_schedule(B.op)
AA = s.cache_read(A, "shared", [B])
tx = te.thread_axis("threadIdx.x")
i, j = s[B].op.axis
bi, ti = s[B].split(i, factor=8)
s[B].bind(bi, te.thread_axis("blockIdx.x"))
s[B].bind(ti, tx)
s[AA].compute_at(s[B], bi)
ai, aj = s[AA].op.axis
to, ji = s[AA].split(aj, nparts=16)
s[AA].bind(to, te.thread_axis("threadIdx.x"))
