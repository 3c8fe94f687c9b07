# expect: 4: extents must be positive
import tvm
from tvm import te
A = te.placeholder((8, -4), name="A")
