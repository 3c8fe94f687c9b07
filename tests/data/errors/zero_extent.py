# expect: 5: extents must be positive
import tvm
from tvm import te
N = 0
A = te.placeholder((N,), name="A")
