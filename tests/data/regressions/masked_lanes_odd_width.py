# set: CO=3
# Padding computed on 17 lanes under a mask (the lanes whose condition fails are not loaded): LLVM
# 16 compiles a masked load of 17 floats for x86 wrongly when a test that any lane is on guards it,
# loading the 17th lane whatever its mask says, so the padding column got the input's value.
# Masked loads and stores are now of a power-of-two number of lanes. Found by the differential
# tests (seed 410024).
import tvm
from tvm import te

NB = 1
CI = 3
CO = te.var("CO")
IH = 8
IW = 13
PAD = 2
OH = IH + 2 * PAD
OW = IW + 2 * PAD
Data = te.placeholder((NB, CI, IH, IW), name="Data")
Kern = te.placeholder((CO, CI, 1, 1), name="Kern")
Pad = te.compute(
    (NB, CI, IH + 2 * PAD, IW + 2 * PAD),
    lambda n, c, y, x: tvm.tir.if_then_else(
        tvm.tir.all(y >= PAD, y < IH + PAD, x >= PAD, x < IW + PAD),
        Data[n, c, y - PAD, x - PAD],
        tvm.tir.const(0.0, "float32"),
    ),
    name="Pad",
)
ry = te.reduce_axis((0, 1), name="ry")
rx = te.reduce_axis((0, 1), name="rx")
rc = te.reduce_axis((0, CI), name="rc")
Conv = te.compute(
    (NB, CO, OH, OW),
    lambda n, f, y, x: te.sum(Pad[n, rc, y + ry, x + rx] * Kern[f, rc, ry, rx], axis=[rc, ry, rx]),
    name="Conv",
)

# variant: padding on 17 lanes
s = te.create_schedule(Conv.op)
pad_n, pad_c, pad_y, pad_x = s[Pad].op.axis
conv_n, conv_f, conv_y, conv_x = s[Conv].op.axis
conv_rc, conv_ry, conv_rx = s[Conv].op.reduce_axis
s[Pad].vectorize(pad_x)
s[Conv].reorder(conv_rx, conv_ry, conv_f, conv_n)
pad_co, pad_ci = s[Pad].split(pad_c, nparts=3)
s[Pad].compute_at(s[Conv], conv_y)
