# An int8 matmul ladder: uint8 activations x int8 weights -> int32, as TOPI's dense_int8
# computes it (weights packed NC16n4c), from plain loops to the VNNI dot product by tensorize.
# The intrinsics are TOPI's own (TVM v0.17's python/tvm/topi/x86/tensor_intrin.py, which
# Loopscope reads unchanged as the module tvm.topi.x86.tensor_intrin).
import tvm
from tvm import te
from tvm.topi.x86.tensor_intrin import (
    dot_16x1x16_uint8_int8_int32_cascadelake,
    dot_16x1x16_uint8_int8_int32_skylake,
)
from tvm.target.x86 import target_has_features


# The intrinsic this machine runs best: VNNI's vpdpbusd, else pmaddubsw + pmaddwd in the widest
# vectors it has. (TOPI's dispatcher, dot_16x1x16_uint8_int8_int32(), would pick the 512-bit
# VNNI form on a CPU with AVX-VNNI but no AVX-512, which cannot run it.)
if target_has_features("avx512vnni"):
    pc = dot_16x1x16_uint8_int8_int32_cascadelake()
else:
    pc = dot_16x1x16_uint8_int8_int32_skylake()
lanes = pc.op.output(0).shape[0]  # int32 lanes: 16 on AVX-512, 8 on AVX2

M, N, K = 1024, 1024, 1024
X = te.placeholder((M, K), dtype="uint8", name="X")
W = te.placeholder((N // lanes, K // 4, lanes, 4), dtype="int8", name="W")
ak = te.reduce_axis((0, K), name="k")
C = te.compute(
    (M, N),
    lambda i, j: te.sum(
        X[i, ak].astype("int32")
        * W[tvm.tir.indexdiv(j, lanes), tvm.tir.indexdiv(ak, 4), j % lanes, ak % 4].astype("int32"),
        axis=ak,
    ),
    name="C",
)

# variant: naive
s = te.create_schedule(C.op)

# variant: blocked
s = te.create_schedule(C.op)
i, j = C.op.axis
(k,) = C.op.reduce_axis
io, ii = s[C].split(i, factor=32)
jo, ji = s[C].split(j, factor=lanes)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ki, ji)
s[C].vectorize(ji)
s[C].unroll(ki)
fused = s[C].fuse(io, jo)
s[C].parallel(fused)

# variant: tensorized (TOPI's dense_int8 schedule)
s = te.create_schedule(C.op)
a_y, a_x = C.op.axis
(a_k,) = C.op.reduce_axis
a_yo, a_yi = s[C].split(a_y, factor=32)
a_xo, a_xi = s[C].split(a_x, factor=lanes)
a_ko, a_ki = s[C].split(a_k, factor=4)
s[C].reorder(a_yo, a_xo, a_yi, a_ko, a_xi, a_ki)
s[C].tensorize(a_xi, pc)
fused = s[C].fuse(a_yo, a_xo)
s[C].parallel(fused)

# variant: tensorized, sums in registers
# Four rows by four vectors of sums stay in registers across the whole reduction: each step of k
# loads four vectors of weights, broadcasts four words of activations and does 16 vpdpbusd.
s = te.create_schedule(C.op)
a_y, a_x = C.op.axis
(a_k,) = C.op.reduce_axis
a_yo, a_yi = s[C].split(a_y, factor=4)
a_xo, a_xi = s[C].split(a_x, factor=lanes)
a_xoo, a_xoi = s[C].split(a_xo, factor=4)
a_ko, a_ki = s[C].split(a_k, factor=4)
s[C].reorder(a_xoo, a_yo, a_ko, a_yi, a_xoi, a_xi, a_ki)
s[C].unroll(a_yi)
s[C].unroll(a_xoi)
s[C].tensorize(a_xi, pc)
fused = s[C].fuse(a_xoo, a_yo)
s[C].parallel(fused)
