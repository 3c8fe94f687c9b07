# expect: 4: a 'def' is read only as a TVMScript function (@T.prim_func)
import tvm
from tvm import te
def f(x):
    return x
