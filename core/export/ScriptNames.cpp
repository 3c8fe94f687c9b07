#include "export/ScriptNames.h"

#include <algorithm>
#include <sstream>

namespace loopscope::script {

using ast::ExprKind;

void collectReads(const ast::Expr& e, std::set<std::string> bound, std::set<std::string>* out)
{
    if (e.kind == ExprKind::Name && !bound.count(e.name)) out->insert(e.name);
    if (e.kind == ExprKind::Lambda) bound.insert(e.params.begin(), e.params.end());
    for (auto& x : e.items)
        if (x) collectReads(*x, bound, out);
    for (auto& k : e.keywords)
        if (k.value) collectReads(*k.value, bound, out);
    for (auto* x : {&e.value, &e.lhs, &e.rhs})
        if (*x) collectReads(**x, bound, out);
}

void collectTargets(const ast::Expr& e, std::vector<std::string>* out)
{
    if (e.kind == ExprKind::Name) out->push_back(e.name);
    if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List)
        for (auto& x : e.items)
            collectTargets(*x, out);
}

bool callsAttribute(const ast::Expr& e, const std::string& fn)
{
    if (e.kind == ExprKind::Call && e.value && e.value->kind == ExprKind::Attribute &&
        e.value->name == fn)
        return true;
    for (auto& x : e.items)
        if (x && callsAttribute(*x, fn)) return true;
    for (auto& k : e.keywords)
        if (k.value && callsAttribute(*k.value, fn)) return true;
    for (auto* x : {&e.value, &e.lhs, &e.rhs})
        if (*x && callsAttribute(**x, fn)) return true;
    return false;
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

std::string inTirxSpelling(const std::string& text)
{
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        std::string line = text.substr(start, end - start);
        for (std::size_t at = line.find("tvm.tir."); at != std::string::npos;
             at = line.find("tvm.tir.", at + 9))
            line.replace(at, 8, "tvm.tirx.");
        if (line == "from tvm import tir") line = "from tvm import tirx as tir";
        out += line + (end < text.size() ? "\n" : "");
        start = end + 1;
    }
    return out;
}

} // namespace loopscope::script
