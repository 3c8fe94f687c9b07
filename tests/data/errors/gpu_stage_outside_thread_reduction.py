# expect: 16: cannot compute 'Data.local' at axis 'rx' of 'Pool': 'Pool' reduces across threads, so each thread runs its part of the reduction (ry_inner) inside every other loop, and the region of 'Data.local' depends on it: compute it at ry_inner or outside the reduction
# Found by the random schedules: a cache computed at the reduction axis bound to a thread.
from tvm import te
Data = te.placeholder((1, 2, 12, 10), name="Data")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 1), name="rx")
Pool = te.compute((1, 2, 5, 5), lambda n, c, y, x: te.min(Data[n, c, y * 2 + ry, x * 2 + rx], axis=[ry, rx]), name="Pool")
s = te.create_schedule(Pool.op)
n, c, y, x = s[Pool].op.axis
pry, prx = s[Pool].op.reduce_axis
s[Pool].bind(prx, te.thread_axis("threadIdx.x"))
ryo, ryi = s[Pool].split(pry, factor=6)
s[Pool].bind(n, te.thread_axis("blockIdx.x"))
DL = s.cache_read(Data, "local", Pool)
dl = s[DL].op.axis
s[DL].compute_at(s[Pool], prx)
