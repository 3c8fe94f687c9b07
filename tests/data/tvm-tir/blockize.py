# A matmul's 4x4x4 tiles made blocks of their own (blockize): the outer block's variables step
# over tiles and it reads and writes whole tiles; the sum's init moves to it, as a nest over the
# tile's rows and columns. What tensorize replaces with an intrinsic.
import tvm
from tvm import te

M = 64
X = te.placeholder((M, M), name="X")
W = te.placeholder((M, M), name="W")
k = te.reduce_axis((0, M), name="k")
Y = te.compute((M, M), lambda i, j: te.sum(X[i, k] * W[k, j], axis=k), name="Y")
func = te.create_prim_func([X, W, Y])

# variant: blockize
sch = tvm.tir.Schedule(func)
b = sch.get_block("Y")
i, j, kk = sch.get_loops(b)
io, ii = sch.split(i, factors=[None, 4])
jo, ji = sch.split(j, factors=[None, 4])
ko, ki = sch.split(kk, factors=[None, 4])
sch.reorder(io, jo, ko, ii, ji, ki)
tile = sch.blockize(ii)
sch.mod.show()
