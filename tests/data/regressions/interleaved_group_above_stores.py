# A sum pool whose edge-free copy LLVM 16's loop vectorizer turned into interleaved groups: the
# wide load of Pool[3i], Pool[3i+1], Pool[3i+2] was placed above the stores to those elements that
# come before it in the loop (LLVM issue 63602), and 16 of 90 sums missed terms at O1. Interleaved
# groups are off with LLVM 16. Found by loopscope-fuzz, seed 60511, after 53,000 passing cases.
import tvm
from tvm import te

C = 2
IH = 17
IW = 3
Data = te.placeholder((1, C, IH, IW), name="Data", dtype="float64")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 1), name="rx")
Pool = te.compute((1, C, 15, 3), lambda n, c, y, x: te.sum(Data[n, c, y * 1 + ry, x * 1 + rx], axis=[ry, rx]), name="Pool")

# variant: fuzz
s = te.create_schedule(Pool.op)
pool_n, pool_c, pool_y, pool_x = s[Pool].op.axis
pool_ry, pool_rx = s[Pool].op.reduce_axis
pool_ryo, pool_ryi = s[Pool].split(pool_ry, factor=2)
s[Pool].vectorize(pool_n)
s[Pool].parallel(pool_n)
s[Pool].vectorize(pool_c)
s[Pool].reorder(pool_n, pool_y, pool_rx, pool_ryi, pool_x, pool_ryo, pool_c)
pool_no, pool_yo, pool_ni, pool_yi = s[Pool].tile(pool_n, pool_y, 3, 8)
pool_yio, pool_xo, pool_yii, pool_xi = s[Pool].tile(pool_yi, pool_x, x_factor=8, y_factor=4)
pool_nio, pool_nii = s[Pool].split(pool_ni, factor=2)
pool_co, pool_ci = s[Pool].split(pool_c, factor=2)
pool_xio, pool_xii = s[Pool].split(pool_xi, factor=4)
