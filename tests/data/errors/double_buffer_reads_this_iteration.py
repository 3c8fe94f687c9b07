# expect: 13: cannot double-buffer 'Pool.local': it is fetched a loop iteration ahead, within loop 'c', but it reads 'Pool', which that loop computes in each iteration
# Found by the random schedules: the prefetch of the next channel's pooled values, computed in the
# same loop a moment later. TVM builds it, reading values not computed yet.
from tvm import te
Data = te.placeholder((1, 6, 14, 15), name="Data")
ry = te.reduce_axis((0, 3), name="ry")
Pool = te.compute((1, 6, 12, 15), lambda n, c, y, x: te.max(Data[n, c, y + ry, x], axis=ry), name="Pool")
Out = te.compute((1, 6, 12, 15), lambda n, c, y, x: Pool[n, c, y, x] + 1.0, name="Out")
s = te.create_schedule(Out.op)
n, c, y, x = s[Out].op.axis
s[Pool].compute_at(s[Out], c)
PL = s.cache_read(Pool, "local", Out)
s[PL].compute_at(s[Out], c); s[PL].double_buffer()
