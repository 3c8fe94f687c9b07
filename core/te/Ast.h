// The syntax tree of a TE script: the Python subset of DESIGN.md §1, every node with its location.
#pragma once

#include "ir/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscope::ast {

enum class ExprKind {
    Name,      // name
    Int,       // intValue
    Float,     // floatValue
    String,    // name holds the decoded text
    Bool,      // boolValue (True/False)
    None,      // None
    Tuple,     // items (parenthesized or bare, e.g. the index in A[i, k] is a Tuple)
    List,      // items
    Attribute, // value.name
    Subscript, // value[items...]  (A[i, k] has two items; s[C] one)
    Call,      // value(items..., keywords...)
    Binary,    // lhs op rhs; op is one of + - * / // % ** @ & | ^ << >>
    Unary,     // op value; op is one of - + ~ not
    Compare,   // lhs op rhs; op is one of < <= > >= == != (chains are a parse error)
    BoolOp,    // lhs op rhs; op is "and" or "or"
    Lambda,    // lambda params: value
    IfExp,     // items[0] if items[1] else items[2]  (parsed so it can be refused by name)
    Starred,   // *value: in a call's arguments, a list or tuple, or an assignment target
    Slice,     // lhs:rhs:value inside a subscript; each part may be null (a[1:], a[::2])
    Dict,      // {k: v, ...}: items holds each key followed by its value
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Keyword {
    std::string name;
    SourceLoc loc; // of the keyword's name
    ExprPtr value;
};

// How deeply expressions may nest (operands of operands, arguments of calls, ...): deeper is a
// diagnostic at the expression, so that evaluating, lowering and printing never recurse deeper.
// A 200,000-term sum is that deep too: sum a long list of terms with te.sum or split it.
constexpr int kMaxExpressionDepth = 1000;

struct Expr {
    ExprKind kind = ExprKind::None;
    SourceLoc loc; // first character of the expression (for Binary/Compare/BoolOp: of the lhs)
    // Binary/Unary/Compare/BoolOp: the operator; Call: the '('; Subscript: the '[';
    // Attribute: the attribute's name; IfExp: the 'if'
    SourceLoc opLoc;
    std::string name; // Name: identifier; Attribute: attribute; String: text; operators: spelling
    std::int64_t intValue = 0;
    double floatValue = 0.0;
    bool boolValue = false;
    std::vector<ExprPtr> items;      // Tuple/List elements, Call positional args, Subscript indices
    std::vector<Keyword> keywords;   // Call keyword args, in source order
    ExprPtr value;                   // Attribute/Subscript/Call target, Unary operand, Lambda body
    ExprPtr lhs, rhs;                // Binary, Compare, BoolOp
    std::vector<std::string> params; // Lambda parameter names
    int depth = 1; // levels of nested expressions under and including this one (kMaxDepth at most)
    std::vector<SourceLoc> paramLocs;
};

enum class StmtKind {
    Import, // import x / from x import y: accepted and ignored
    Assign, // targets[0] = targets[1] = ... = value (a target is a Name, Tuple or List of targets,
            // one of them may be Starred)
    Expr,   // value
    Pass,   // pass
    Return, // return [value]
    For,    // for targets[0] in value: body
    With,   // with value [as targets[0]]: body
    Def,    // decorators; def name(params) [-> value]: body
    Class,  // decorators; class name[(bases)]: body
    If,     // if value: body [else: orelse]  (an elif is an If alone in orelse)
    Assert, // assert value [, targets[0]]  (the message, if any)
};

// A parameter of a def: `A: T.Buffer((128, 128), "float32")`, `n=4`.
struct Param {
    std::string name;
    SourceLoc loc;
    ExprPtr annotation;   // null: none
    ExprPtr defaultValue; // null: none
};

struct Stmt {
    StmtKind kind = StmtKind::Expr;
    SourceLoc loc;   // first character of the statement (of its first decorator, if any)
    int endLine = 0; // last line the statement occupies (multi-line calls, a block's body)
    std::vector<ExprPtr> targets;
    ExprPtr value;
    std::string text; // the statement's source text, as the user wrote it (a block's header line)
    std::vector<Stmt> body;          // For, With, Def, Class, If
    std::vector<Stmt> orelse;        // If: the else branch (empty: none)
    std::vector<ExprPtr> decorators; // Def, Class
    std::string name;                // Def, Class
    SourceLoc nameLoc;               // Def, Class
    std::vector<Param> params;       // Def
    std::vector<ExprPtr> bases;      // Class
};

// A comment, without the leading '#' and surrounding blanks.
struct Comment {
    SourceLoc loc;
    std::string text;
    bool ownLine = false; // nothing but blanks before it on its line
};

struct Module {
    std::vector<Stmt> body;
    std::vector<Comment> comments;
};

// Either a module or the first syntax error, with its location.
struct ParseResult {
    Module module;
    bool ok = false;
    Diagnostic error;
};

// A line that is exactly this comment ends the script: Loopscope reads nothing after it, so a file
// can go on with code that only Python and TVM run (a TVM export puts its build, check and timing
// code there). Inside brackets it ends the script too (the bracket is then never closed); inside a
// string literal it is text.
inline constexpr const char* kEndOfScriptMarker = "# --- run in TVM ---";

// How deeply blocks may nest (a for in a with in a def ...): deeper is a diagnostic.
constexpr int kMaxBlockDepth = 100;

// Parses a script, up to a line that is kEndOfScriptMarker: TE declarations and schedules, and
// TVMScript (decorated def and class, for, with, return), and plain functions (def, if, return)
// as TVM's tensor intrinsics are written. Other statements (while, try, ...)
// and constructs outside the subset are reported by name at their location, never skipped.
ParseResult parseScript(const std::string& source);

// An expression written back as Python: the same expression, with parentheses around every
// operation that is an operand (a tensorize step's intrinsic, written as the script wrote it).
std::string scriptText(const Expr& e);

} // namespace loopscope::ast
