# expect: 4: name 'open' is not defined: a TE script is not Python, and nothing in it reads or writes files
import tvm
from tvm import te
secret = open("/etc/passwd").read()
