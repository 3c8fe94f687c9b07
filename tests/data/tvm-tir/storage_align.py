# A shared-memory tile whose rows are padded (storage_align) so that a column's reads fall in different banks.
import tvm
from tvm import te

n = 128
A = te.placeholder((n, n), name="A")
B = te.compute((n, n), lambda i, j: A[j, i] * 2.0, name="B")
func = te.create_prim_func([A, B])

# variant: storage_align
sch = tvm.tir.Schedule(func)
block = sch.get_block("B")
i, j = sch.get_loops(block)
io, ii = sch.split(i, factors=[None, 32])
jo, ji = sch.split(j, factors=[None, 32])
sch.reorder(io, jo, ii, ji)
sch.bind(io, "blockIdx.y")
sch.bind(jo, "blockIdx.x")
sch.bind(ji, "threadIdx.x")
AS = sch.cache_read(block, 0, "shared")
sch.compute_at(AS, jo)
sch.storage_align(AS, 0, axis=0, factor=32, offset=1)
sch.mod.show()
