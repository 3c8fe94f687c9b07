# expect: 4: unexpected keyword argument 'nmae'
import tvm
from tvm import te
A = te.placeholder((8,), nmae="A")
