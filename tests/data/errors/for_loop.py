# expect: 4: a 'for' statement goes over a list or tuple
import tvm
from tvm import te
for i in 4:
    pass
