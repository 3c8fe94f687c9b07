# expect: 4: no attribute 'placeholdr'
import tvm
from tvm import te
A = te.placeholdr((4,), name="A")
