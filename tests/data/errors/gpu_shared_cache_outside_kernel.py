# expect: 7: 'A.shared' is computed outside the kernel that launches blockIdx.x (bound here), yet its region depends on blockIdx.x
from tvm import te
A = te.placeholder((64, 128), name="A")
B = te.compute((64, 128), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
s[B].bind(i, te.thread_axis("blockIdx.x"))
AA = s.cache_read(A, "shared", [B])
