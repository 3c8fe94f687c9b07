# Memory access patterns of GPU kernels: a copy whose threads read consecutive elements, a
# transpose whose threads write a column (one element per 32-byte sector), and a transpose through
# a shared tile read by columns, with and without a padding column (32-way bank conflicts or none).
import tvm
from tvm import te

N = 1024
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j], name="B")
T = te.compute((N, N), lambda i, j: A[j, i], name="T")

# variant: copy
s = te.create_schedule(B.op)
i, j = s[B].op.axis
jo, ji = s[B].split(j, factor=32)
s[B].bind(i, te.thread_axis("blockIdx.y"))
s[B].bind(jo, te.thread_axis("blockIdx.x"))
s[B].bind(ji, te.thread_axis("threadIdx.x"))

# variant: transpose
s = te.create_schedule(T.op)
i, j = s[T].op.axis
io, ii = s[T].split(i, factor=32)
s[T].reorder(j, io, ii)
s[T].bind(j, te.thread_axis("blockIdx.y"))
s[T].bind(io, te.thread_axis("blockIdx.x"))
s[T].bind(ii, te.thread_axis("threadIdx.x"))

# variant: shared columns
# 32x32 tiles through shared memory: fetched by rows, read by columns to store T by rows.
s = te.create_schedule(T.op)
AS = s.cache_read(A, "shared", [T])
tx = te.thread_axis("threadIdx.x")
ty = te.thread_axis("threadIdx.y")
i, j = s[T].op.axis
io, ii = s[T].split(i, factor=32)
jo, ji = s[T].split(j, factor=32)
s[T].reorder(jo, io, ii, ji)
s[T].bind(jo, te.thread_axis("blockIdx.y"))
s[T].bind(io, te.thread_axis("blockIdx.x"))
s[T].bind(ii, ty)
s[T].bind(ji, tx)
s[AS].compute_at(s[T], io)
r, c = s[AS].op.axis
ro, ri = s[AS].split(r, nparts=32)
co, ci = s[AS].split(c, nparts=32)
s[AS].bind(ro, ty)
s[AS].bind(co, tx)

# variant: padded
# The same with each row of the tile padded to 33 elements (storage_align): no bank conflict.
s = te.create_schedule(T.op)
AS = s.cache_read(A, "shared", [T])
tx = te.thread_axis("threadIdx.x")
ty = te.thread_axis("threadIdx.y")
i, j = s[T].op.axis
io, ii = s[T].split(i, factor=32)
jo, ji = s[T].split(j, factor=32)
s[T].reorder(jo, io, ii, ji)
s[T].bind(jo, te.thread_axis("blockIdx.y"))
s[T].bind(io, te.thread_axis("blockIdx.x"))
s[T].bind(ii, ty)
s[T].bind(ji, tx)
s[AS].compute_at(s[T], io)
r, c = s[AS].op.axis
ro, ri = s[AS].split(r, nparts=32)
co, ci = s[AS].split(c, nparts=32)
s[AS].bind(ro, ty)
s[AS].bind(co, tx)
s[AS].storage_align(AS.op.axis[0], 32, 1)
