# The matmul's sums kept in a packed layout (transform_layout): 16 rows of a column side by side,
# so the vectorized inner loop over them stores contiguously.
import tvm
from tvm import te

M = 64
A = te.placeholder((M, M), name="A")
B = te.placeholder((M, M), name="B")
k = te.reduce_axis((0, M), name="k")
Y = te.compute((M, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
C = te.compute((M, M), lambda i, j: te.max(Y[i, j], te.const(0, "float32")), name="C")
func = te.create_prim_func([A, B, C])

# variant: transform_layout
sch = tvm.tir.Schedule(func)
block_Y = sch.get_block("Y")
sch.transform_layout(block_Y, ("write", 0), lambda i, j: (i // 16, j, i % 16))
i, j, k = sch.get_loops(block_Y)
io, ii = sch.split(i, factors=[None, 16])
sch.reorder(io, j, k, ii)
sch.vectorize(ii)
sch.mod.show()
