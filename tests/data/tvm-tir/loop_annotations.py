# Pragmas as annotations of loops (sch.annotate on a loop): printed on the loop, and lowered as
# attributes around it that the unrolling pass reads, as TE's s[B].pragma is.
import tvm
from tvm import te

A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
func = te.create_prim_func([A, B])

# variant: loop_annotations
sch = tvm.tir.Schedule(func)
b = sch.get_block("B")
i, j = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 4])
sch.annotate(i, "pragma_auto_unroll_max_step", 16)
sch.annotate(j0, "pragma_unroll_explicit", 1)
sch.annotate(j1, "note", "kept")
sch.unannotate(j1, "note")
sch.parallel(i)
sch.mod.show()
