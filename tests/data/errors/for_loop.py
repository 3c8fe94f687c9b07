# expect: 4: 'for' statements are not supported
import tvm
from tvm import te
for i in range(4):
    pass
