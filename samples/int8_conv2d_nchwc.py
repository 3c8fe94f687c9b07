# An int8 convolution as TOPI's x86 int8 conv2d computes it: uint8 data in blocks of 4 input
# channels (NCHW4c, padded beforehand), int8 weights in blocks of L output by 4 input channels
# (OIHW16o4i with AVX-512's 16 lanes), int32 sums in blocks of L output channels (NCHW16c). The
# innermost L output channels by 4 input channels are one dot product of TOPI's x86 intrinsic, by
# tensorize: VNNI's vpdpbusd where the CPU has AVX512-VNNI, else pmaddubsw + pmaddwd in the
# widest vectors it has. oneDNN's int8 convolution of the same shape is its reference line
# (sweep --blas).
import tvm
from tvm import te
from tvm.topi.x86.tensor_intrin import (
    dot_16x1x16_uint8_int8_int32_cascadelake,
    dot_16x1x16_uint8_int8_int32_skylake,
)
from tvm.target.x86 import target_has_features

batch = 1
in_channel = 64
out_channel = 64
in_size = 56
kernel = 3
pad = 1
out_size = in_size + 2 * pad - kernel + 1

Xp = te.placeholder(
    (batch, in_channel // 4, in_size + 2 * pad, in_size + 2 * pad, 4), dtype="uint8", name="Xp"
)
# The dot product this CPU has, and its lanes: the output channels a block holds.
if target_has_features("avx512vnni"):
    pc = dot_16x1x16_uint8_int8_int32_cascadelake()
else:
    pc = dot_16x1x16_uint8_int8_int32_skylake()
lanes = pc.op.output(0).shape[0]

W = te.placeholder(
    (out_channel // lanes, in_channel // 4, kernel, kernel, lanes, 4), dtype="int8", name="W"
)
ico = te.reduce_axis((0, in_channel // 4), name="ico")
ry = te.reduce_axis((0, kernel), name="ry")
rx = te.reduce_axis((0, kernel), name="rx")
ici = te.reduce_axis((0, 4), name="ici")
Y = te.compute(
    (batch, out_channel // lanes, out_size, out_size, lanes),
    lambda n, occ, y, x, ocb: te.sum(
        Xp[n, ico, y + ry, x + rx, ici].astype("int32")
        * W[occ, ico, ry, rx, ocb, ici].astype("int32"),
        axis=[ico, ry, rx, ici],
    ),
    name="Y",
)

# variant: naive
s = te.create_schedule(Y.op)

# variant: tensorized
s = te.create_schedule(Y.op)
n, occ, y, x, ocb = s[Y].op.axis
ico, ry, rx, ici = s[Y].op.reduce_axis
s[Y].reorder(n, occ, y, x, ico, ry, rx, ocb, ici)
s[Y].tensorize(ocb, pc)
fused = s[Y].fuse(n, occ, y)
s[Y].parallel(fused)

# variant: tensorized, a row of 7 pixels in registers
s = te.create_schedule(Y.op)
n, occ, y, x, ocb = s[Y].op.axis
ico, ry, rx, ici = s[Y].op.reduce_axis
xo, xi = s[Y].split(x, factor=7)
s[Y].reorder(n, occ, y, xo, ico, ry, rx, xi, ocb, ici)
s[Y].unroll(xi)
s[Y].tensorize(ocb, pc)
fused = s[Y].fuse(n, occ, y)
s[Y].parallel(fused)
