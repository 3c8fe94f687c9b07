# An element-wise consumer moved into its producer (reverse_compute_inline), scheduled with tir.Schedule.
import tvm
from tvm import te

A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")

# variant: reverse inline
sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
c = sch.get_block("C")
sch.reverse_compute_inline(c)
sch.mod.show()
