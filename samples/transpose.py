# Matrix transpose: pure data movement, where the loop order decides which side is strided.
import tvm
from tvm import te

M = 2048
N = 2048

A = te.placeholder((M, N), name="A")
B = te.compute((N, M), lambda i, j: A[j, i], name="B")

# variant: naive
# Writes to B are contiguous, reads from A jump a whole row each step.
s = te.create_schedule(B.op)

# variant: tiled
# 32x32 tiles: both the rows of A and the rows of B touched by a tile fit in cache.
s = te.create_schedule(B.op)
io, jo, ii, ji = s[B].tile(B.op.axis[0], B.op.axis[1], x_factor=32, y_factor=32)
s[B].parallel(io)
