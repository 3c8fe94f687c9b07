# A double-buffered shared tile whose consumer reduces across threads inside the loop the tile is
# doubled for: the peeled last iteration is a second copy of the loop body, with storage of its
# own for the reduction's result. Found by the random schedules (the copy's storage was dropped).
from tvm import te

M = 16
N = 16
L = 12
A = te.placeholder((M, N, L), name="A")
k = te.reduce_axis((0, N), name="k")
R = te.compute((M, L), lambda i, l: te.sum(A[i, k, l] * 2, axis=k), name="R")

# variant: double buffer
s = te.create_schedule(R.op)
AS = s.cache_read(A, "shared", [R])
r_i, r_l = s[R].op.axis
(r_k,) = s[R].op.reduce_axis
s[R].bind(r_l, te.thread_axis("blockIdx.x"))
s[R].bind(r_k, te.thread_axis("threadIdx.x"))
r_io, r_ii = s[R].split(r_i, nparts=2)
s[R].reorder(r_l, r_io, r_ii, r_k)
s[AS].compute_at(s[R], r_io)
s[AS].double_buffer()
