// A script's expression written back as Python (te/Ast.h: scriptText).
#include "te/Ast.h"

#include "ir/Printer.h"

#include <cstdio>

namespace loopscope::ast {

namespace {

std::string list(const std::vector<ExprPtr>& items)
{
    std::string out;
    for (const ExprPtr& e : items)
        out += (out.empty() ? "" : ", ") + scriptText(*e);
    return out;
}

// An operand of an operator, in parentheses when it is itself an operation.
std::string operand(const Expr& e)
{
    const bool compound = e.kind == ExprKind::Binary || e.kind == ExprKind::Compare ||
                          e.kind == ExprKind::BoolOp || e.kind == ExprKind::Unary ||
                          e.kind == ExprKind::Lambda || e.kind == ExprKind::IfExp;
    return compound ? "(" + scriptText(e) + ")" : scriptText(e);
}

} // namespace

std::string scriptText(const Expr& e)
{
    switch (e.kind) {
    case ExprKind::Name: return e.name;
    case ExprKind::Int: return std::to_string(e.intValue);
    case ExprKind::Float: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", e.floatValue);
        std::string s = buf;
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        return s;
    }
    case ExprKind::String: return quotedString(e.name);
    case ExprKind::Bool: return e.boolValue ? "True" : "False";
    case ExprKind::None: return "None";
    case ExprKind::Tuple: return "(" + list(e.items) + (e.items.size() == 1 ? ",)" : ")");
    case ExprKind::List: return "[" + list(e.items) + "]";
    case ExprKind::Attribute: return operand(*e.value) + "." + e.name;
    case ExprKind::Subscript: return operand(*e.value) + "[" + list(e.items) + "]";
    case ExprKind::Call: {
        std::string args = list(e.items);
        for (const Keyword& k : e.keywords)
            args += (args.empty() ? "" : ", ") + k.name + "=" + scriptText(*k.value);
        return operand(*e.value) + "(" + args + ")";
    }
    case ExprKind::Binary:
    case ExprKind::Compare:
    case ExprKind::BoolOp: return operand(*e.lhs) + " " + e.name + " " + operand(*e.rhs);
    case ExprKind::Unary: return e.name + (e.name == "not" ? " " : "") + operand(*e.value);
    case ExprKind::Starred: return "*" + operand(*e.value);
    case ExprKind::Lambda: {
        std::string params;
        for (const std::string& p : e.params)
            params += (params.empty() ? "" : ", ") + p;
        return "lambda " + params + ": " + scriptText(*e.value);
    }
    case ExprKind::IfExp:
        return operand(*e.items[0]) + " if " + operand(*e.items[1]) + " else " +
               operand(*e.items[2]);
    case ExprKind::Slice:
        return (e.lhs ? scriptText(*e.lhs) : "") + ":" + (e.rhs ? scriptText(*e.rhs) : "") +
               (e.value ? ":" + scriptText(*e.value) : "");
    case ExprKind::Dict: {
        std::string out;
        for (std::size_t i = 0; i + 1 < e.items.size(); i += 2)
            out += (out.empty() ? "" : ", ") + scriptText(*e.items[i]) + ": " +
                   scriptText(*e.items[i + 1]);
        return "{" + out + "}";
    }
    }
    return "";
}

} // namespace loopscope::ast
