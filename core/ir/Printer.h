// Text forms of the loop program: TVMScript exactly as TVM 0.17 prints a lowered function, a
// structured view of the program before storage flattening, and bare forms for diagnostics.
#pragma once

#include "ir/PrimFunc.h"
#include "ir/Stmt.h"

#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

// What `print(tvm.lower(s, args, simple_mode=True))` prints in TVM 0.17, ending with a newline:
// the module header, T.grid for perfect serial nests, `C_1 = T.Buffer((64,), data=C.data)` alias
// declarations where TVM puts them, names made unique per scope (`i_outer`, `C_1`, `i_1`).
std::string printTVMScript(const PrimFunc& f);
// The same text, and for each of its lines (0-based) the statements printed on it: a loop's
// `for` line, a T.grid line's loops, a branch's `if`, a store, a let. Line information in
// generated code points at these lines.
struct PrintedFunction {
    std::string text;
    std::vector<std::vector<const StmtNode*>> lineStatements;
};
PrintedFunction printTVMScriptWithLines(const PrimFunc& f);
PrintedFunction printStructuredWithLines(const Stmt& body, const std::vector<Tensor>& args);

// The loop program before flattening (tensor stores and loads at N-d indices, `T.realize`
// regions), in the same TVMScript style: `@T.prim_func`, `def main(args):`, the body.
std::string printStructured(const Stmt& body, const std::vector<Tensor>& args);

const char* tirSpellingName(TirSpelling s); // "0.20", "0.26"

// What `sch.mod.show()` prints for a TensorIR function, in the spelling's TVM: the module with
// its one function, blocks kept, Python's float text (`T.float32(0.0)`).
std::string printTensorIR(const TirFunc& f, TirSpelling spelling);

// One expression or statement for diagnostics and tests: no header, no alias declarations, names
// made identifier-safe (`i.outer` -> `i_outer`) but not unique. printStmt ends every line with
// a newline.
std::string printExpr(const Expr& e);
// A string as a Python (and TVMScript) literal: "a\"b\n".
std::string quotedString(std::string_view s);
std::string printStmt(const Stmt& s);

// A name as TVMScript prints it: every character other than a letter, digit or '_' becomes '_'.
std::string scriptName(std::string_view name);

} // namespace loopscope
