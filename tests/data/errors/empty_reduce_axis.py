# expect: 4: must not be empty
import tvm
from tvm import te
k = te.reduce_axis((4, 4), name="k")
