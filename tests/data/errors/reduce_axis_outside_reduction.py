# expect: 6: reduce axis 'k' is used in 'B' outside a reduction
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
k = te.reduce_axis((0, 8), name="k")
B = te.compute((8,), lambda i: A[i, k], name="B")
