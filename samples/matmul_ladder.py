# The matmul ladder: the steps TVM users climb, each variant repeating the previous steps.
import tvm
from tvm import te

M = 1024
K = 1024
N = 1024

A = te.placeholder((M, K), name="A", dtype="float32")
B = te.placeholder((K, N), name="B", dtype="float32")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: naive
s = te.create_schedule(C.op)

# variant: tile 32x32
# Split i and j by 32 and put the two outer loops outside: a 32x32 block of C at a time.
s = te.create_schedule(C.op)
i, j = s[C].op.axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
s[C].reorder(io, jo, ii, ji)

# variant: split k
# Bring the reduction between the block loops and the block: k in chunks of 4.
s = te.create_schedule(C.op)
i, j = s[C].op.axis
(k,) = s[C].op.reduce_axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)

# variant: vectorize
# Split ji by 8 and vectorize the inner part.
s = te.create_schedule(C.op)
i, j = s[C].op.axis
(k,) = s[C].op.reduce_axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)
jio, jii = s[C].split(ji, factor=8)
s[C].vectorize(jii)

# variant: parallel
# Run the outer row blocks on all cores.
s = te.create_schedule(C.op)
i, j = s[C].op.axis
(k,) = s[C].op.reduce_axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)
jio, jii = s[C].split(ji, factor=8)
s[C].vectorize(jii)
s[C].parallel(io)

# variant: unroll
# Unroll the short reduction chunk.
s = te.create_schedule(C.op)
i, j = s[C].op.axis
(k,) = s[C].op.reduce_axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)
jio, jii = s[C].split(ji, factor=8)
s[C].vectorize(jii)
s[C].parallel(io)
s[C].unroll(ki)
