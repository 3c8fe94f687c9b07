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
    Assign, // targets[0] = targets[1] = ... = value (a target is a Name, Tuple or List of targets)
    Expr,   // value
    Pass,   // pass
};

struct Stmt {
    StmtKind kind = StmtKind::Expr;
    SourceLoc loc;   // first character of the statement
    int endLine = 0; // last line the statement occupies (multi-line calls)
    std::vector<ExprPtr> targets;
    ExprPtr value;
    std::string text; // the statement's source text, as the user wrote it
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

// Parses a TE script, up to a line that is kEndOfScriptMarker. Block statements (for, if, def,
// with, ...) and other constructs outside the subset are reported by name at their location, never
// skipped.
ParseResult parseScript(const std::string& source);

} // namespace loopscope::ast
