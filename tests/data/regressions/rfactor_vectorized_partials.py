# set: M=9
# The case the differential tests found (seed 394, minimized): the partial minima of an rfactor
# are vectorized along an axis of extent 5, so StorageRewrite makes them a "float32x5" buffer of
# symbolic size, which the code generator overran (see vector_buffer_odd_lanes.py).
import tvm
from tvm import te

M = te.var("M")
A = te.placeholder((M, 7, 5), name="A")
k = te.reduce_axis((0, 7), name="k")
R = te.compute((M, 5), lambda i, l: te.min(A[i, k, l], axis=k), name="R")

# variant: rfactor
s = te.create_schedule(R.op)
R_rf = s.rfactor(R, k, factor_axis=1)
s[R].vectorize(s[R].op.axis[1])
s[R_rf].vectorize(s[R_rf].op.axis[2])
