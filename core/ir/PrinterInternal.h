// The TIR printer's own declarations, shared by the files that implement it (Printer.cpp: the
// function and its parameters, frames and names, where a declaration goes, the public entry
// points; PrinterExprs.cpp: expressions; PrinterStmts.cpp: statements). Private to core/ir.
#pragma once

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "ir/Tensor.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace loopscope::printer_detail {

// Python operator precedences as TVM's doc printer ranks them (python_doc_printer.cc).
enum Precedence : int {
    kOr = 3,
    kAnd = 4,
    kNot = 5,
    kCompare = 6,
    kAdd = 11,
    kMul = 12,
    kAtom = 15,
};

struct Doc {
    std::string text;
    int prec = kAtom;
};

struct Line {
    int indent;
    std::string text;
    std::vector<const void*> nodes = {}; // the statements this line prints (a T.grid: its loops)
};
using Lines = std::vector<Line>;

// The identity of the function in use paths: the root every path starts with.
inline const char kFunctionRoot = 0;
inline const void* const kRoot = &kFunctionRoot;

std::string join(const std::vector<std::string>& parts, const char* sep = ", ");
std::string quoted(std::string_view s);

// `header` with `body` indented under it (`pass` for an empty body).
Lines withBlock(std::string header, const Lines& body);
void append(Lines& out, const Lines& more);
// `nodes`, when given, gets each rendered line's statements, appended in order.
std::string render(const Lines& lines, int baseIndent,
                   std::vector<std::vector<const void*>>* nodes = nullptr);

// For every variable and buffer, the statements on the path from the function to the deepest
// statement that contains all its uses (TVM's IRDocsifier::SetCommonPrefix, statements only).
class UseScanner {
public:
    std::unordered_map<const void*, std::vector<const void*>> paths;
    std::vector<const VarNode*> vars; // in order of first use

    void scanStmt(const Stmt& s);

private:
    class ExprScanner;

    std::vector<const void*> m_stack{kRoot};
    // Thread launches: the object each launches (AttrNode::ref) and where it is.
    std::vector<std::pair<const void*, std::vector<const void*>>> m_launches;

    void scanExpr(const Expr& e);
    void useVar(const VarNode* v);
    void use(const void* obj);
    // `path` cut to where it and `stack` part.
    static void keepCommonPrefix(std::vector<const void*>& path,
                                 const std::vector<const void*>& stack);
};

struct Options {
    bool uniquify = true; // make names unique among the live definitions
    bool declare = true;  // declare undefined buffers and variables where TVM does
    // TensorIR, in a spelling: Python's float text, `T.block` or `T.sblock`.
    bool tensorIR = false;
    TirSpelling spelling = TirSpelling::Tvm020;
};

// A float as TVM prints it: C++'s %.17g (TVM 0.17) or Python's repr (0.20 on: `0.0`, `1e+20`).
std::string floatText(double v, bool python);

// A TVMScript printer with TVM's frame model: every For (the outermost loop of a T.grid),
// LetStmt, Allocate, AttrStmt, Realize and if-branch opens a frame; names defined in a frame are
// released when it closes; a buffer alias or free variable is declared in the open frame of the
// deepest statement containing all its uses, just before the statement being printed there.
class Printer {
public:
    explicit Printer(Options options);

    std::string tvmScript(const PrimFunc& f,
                          std::vector<std::vector<const void*>>* lineNodes = nullptr);
    std::string structured(const Stmt& body, const std::vector<Tensor>& args,
                           std::vector<std::vector<const void*>>* lineNodes = nullptr);
    std::string tensorIR(const TirFunc& f);
    std::string stmtOnly(const Stmt& s);
    std::string exprOnly(const Expr& e);

private:
    struct Frame {
        explicit Frame(const void* t) : tir(t) {}
        const void* tir;
        Lines lines;
        std::vector<const void*> defined;
        bool allowConcise = true;
    };

    Options m_options;
    UseScanner m_uses;
    std::vector<std::unique_ptr<Frame>> m_frames;
    std::unordered_set<std::string> m_names;
    std::unordered_map<const void*, std::string> m_objNames;
    std::unordered_map<const VarNode*, const ForNode*> m_openLoops; // enclosing loops, by variable

    // ---- frames and names (Printer.cpp) ----

    Frame& pushFrame(const void* tir);
    Lines popFrame();
    Frame& current() { return *m_frames.back(); }
    std::string define(const void* obj, std::string_view hint, Frame& f);
    void bindDataVar(const BufferNode* b, const std::string& name, Frame& f);
    Frame& lowestDefFrame(const void* obj);
    static bool shapeHasVar(const std::vector<Expr>& shape);
    static std::vector<const VarNode*> orderedVars(const Expr& e);
    void declareShapeVars(const std::vector<Expr>& shape, Frame& f);
    std::string varName(const VarNode* v);
    std::string bufferName(const BufferNode* b);
    std::string tensorName(const OperationNode* t);

    // ---- expressions (PrinterExprs.cpp) ----

    std::string tuple(const std::vector<Expr>& items);
    std::string args(std::initializer_list<Expr> items);
    std::string index(const Expr& e);
    std::string indices(const std::vector<Expr>& idx);
    static Doc intDoc(const IntImmNode* op);
    Doc binary(const BinaryNode* op);
    Doc expr(const Expr& e);
    Doc reduce(const ReduceNode* op);

    // ---- statements (PrinterStmts.cpp) ----

    void asDocBody(const Stmt& s, Frame& f);
    Lines stmt(const Stmt& s);
    Lines stmtLines(const Stmt& s);
    Lines forStmt(const ForNode* op);
    Lines letStmt(const LetStmtNode* op);
    Lines ifThenElse(const IfThenElseNode* op);
    Lines allocate(const AllocateNode* op);
    Lines attr(const AttrNode* op);
    const VarNode* findThreadVar(const AttrNode* op);
    Lines realize(const RealizeNode* op);
    Lines block(const BlockNode* op);
    std::string region(const TensorRegion& r);
    std::string allocBuffer(const BlockAlloc& a, Frame& f);
};

} // namespace loopscope::printer_detail
