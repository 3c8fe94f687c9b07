#include "export/TensorIRScript.h"

#include "export/ScriptNames.h"
#include "lower/Lower.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace loopscope {

bool ConvertedScript::allConverted() const
{
    for (const ConvertedVariant& v : variants)
        if (!v.converted || !v.checkError.empty()) return false;
    return true;
}

namespace {

int variantAt(const Program& p, SourceLoc loc)
{
    for (std::size_t i = 0; i < p.variants.size(); ++i)
        if (p.variants[i].loc.line == loc.line && p.variants[i].loc.col == loc.col)
            return static_cast<int>(i);
    return -1;
}

// The script's variable holding each of the variant's arguments.
std::string argumentList(const Variant& v)
{
    std::string out;
    for (const Tensor& t : v.args) {
        std::string name = t->name;
        auto own = v.tensorVars.find(t->name);
        if (own == v.tensorVars.end() || own->second != t->name)
            for (const auto& [var, tensor] : v.tensorVars)
                if (tensor == t->name) name = var;
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

} // namespace

ConvertedScript convertToTensorIR(const std::string& scriptText, const Program& p,
                                  TirSpelling spelling)
{
    ast::ParseResult parsed = ast::parseScript(scriptText);
    if (!parsed.ok) throw UserError(parsed.error.loc, parsed.error.message);
    const std::vector<ast::Stmt>& body = parsed.module.body;
    const bool s26 = spelling == TirSpelling::Tvm026;

    // Which variant's schedule each statement works on (-1: a declaration): the statement that
    // creates it, and every statement that reads a name such a statement bound.
    std::map<std::string, int> owner;
    std::vector<int> stmtVariant(body.size(), -1);
    for (std::size_t i = 0; i < body.size(); ++i) {
        const ast::Stmt& st = body[i];
        int v = -1;
        if (st.value && script::callsAttribute(*st.value, "create_schedule")) {
            v = variantAt(p, st.loc);
        } else {
            std::set<std::string> reads;
            if (st.value) script::collectReads(*st.value, {}, &reads);
            for (const auto& t : st.targets)
                if (t->kind != ast::ExprKind::Name && t->kind != ast::ExprKind::Tuple &&
                    t->kind != ast::ExprKind::List)
                    script::collectReads(*t, {}, &reads); // s[C].x = ...
            for (const std::string& n : reads)
                if (auto it = owner.find(n); it != owner.end()) v = std::max(v, it->second);
        }
        std::vector<std::string> targets;
        for (const auto& t : st.targets)
            script::collectTargets(*t, &targets);
        for (const std::string& t : targets)
            if (v >= 0)
                owner[t] = v;
            else
                owner.erase(t);
        stmtVariant[i] = v;
    }

    ConvertedScript out;
    std::map<int, std::vector<std::string>> replacement; // first line -> the lines instead
    std::set<int> dropped;                               // lines left out
    for (std::size_t vi = 0; vi < p.variants.size(); ++vi) {
        const Variant& v = p.variants[vi];
        ConvertedVariant cv;
        cv.name = v.name;
        if (v.snapshots.front().tensorIR()) {
            cv.converted = true; // TensorIR already: kept as written
            out.variants.push_back(std::move(cv));
            continue;
        }
        std::vector<std::string> taken = v.names;
        taken.emplace_back("sch");
        cv.calls = translateToTensorIR(v, spelling, taken);
        const ast::Stmt* create = nullptr;
        bool shows = false;
        std::string build;
        for (std::size_t i = 0; i < body.size(); ++i) {
            if (stmtVariant[i] != static_cast<int>(vi)) continue;
            const ast::Stmt& st = body[i];
            if (!create) create = &st;
            if (st.value && script::callsAttribute(*st.value, "lower")) shows = true;
            if (st.value && script::callsAttribute(*st.value, "build") && st.targets.size() == 1 &&
                st.targets.front()->kind == ast::ExprKind::Name)
                build = st.targets.front()->name;
        }
        if (!create) {
            cv.calls.ok = false;
            cv.calls.error = {v.loc, "its te.create_schedule statement is not a statement of its "
                                     "own"};
        }
        if (!cv.calls.ok) {
            replacement[v.loc.line].push_back("# Not converted to TensorIR (line " +
                                              std::to_string(cv.calls.error.loc.line) +
                                              "): " + cv.calls.error.message);
            out.variants.push_back(std::move(cv));
            continue;
        }
        cv.converted = true;
        for (std::size_t i = 0; i < body.size(); ++i)
            if (stmtVariant[i] == static_cast<int>(vi))
                for (int line = body[i].loc.line; line <= body[i].endLine; ++line)
                    dropped.insert(line);
        std::vector<std::string>& lines = replacement[create->loc.line];
        lines.push_back(std::string("sch = tvm.") + (s26 ? "s_tir" : "tir") +
                        ".Schedule(te.create_prim_func([" + argumentList(v) + "]))");
        for (const std::string& call : cv.calls.statements)
            lines.push_back(call);
        if (shows) lines.emplace_back("sch.mod.show()");
        if (!build.empty())
            lines.push_back(build + " = tvm." + (s26 ? "tirx" : "tir") +
                            ".build(sch.mod, target=\"" + v.target + "\")");
        out.variants.push_back(std::move(cv));
    }

    std::ostringstream text;
    text << "# Converted by Loopscope for TVM " << (s26 ? "0.24-0.26" : "0.20-0.23")
         << ": each variant's TE schedule is the tir.Schedule calls that make\n"
         << "# its loop nest (TVM removed TE schedules in v0.20); the declarations are as "
            "written.\n";
    const std::vector<std::string> lines = script::splitLines(scriptText);
    for (int line = 1; line <= static_cast<int>(lines.size()); ++line) {
        if (auto it = replacement.find(line); it != replacement.end())
            for (const std::string& l : it->second)
                text << l << "\n";
        if (dropped.count(line)) continue;
        const std::string& l = lines[static_cast<std::size_t>(line - 1)];
        text << (s26 ? script::inTirxSpelling(l) : l) << "\n";
    }
    out.text = text.str();

    // The proof: the converted text gives each converted variant the TE loop nest.
    std::map<std::string, std::int64_t> sizes;
    for (const Parameter& par : p.parameters)
        if (par.overridden) sizes[par.name] = par.value;
    EvalResult back = evaluateScript(out.text, sizes);
    for (ConvertedVariant& cv : out.variants) {
        if (!cv.converted) continue;
        const Variant* was = p.findVariant(cv.name);
        const Variant* now = back.program.findVariant(cv.name);
        if (!now) {
            cv.checkError = back.ok ? "the converted script has no variant '" + cv.name + "'"
                                    : "the converted script does not evaluate (line " +
                                          std::to_string(back.error.loc.line) +
                                          "): " + back.error.message;
            continue;
        }
        try {
            cv.checkError = loopNestDifference(
                lowerSchedule(was->schedule(), was->args, was->funcName).func.body,
                lowerSchedule(now->schedule(), now->args, now->funcName).func.body);
        } catch (const UserError& e) {
            cv.checkError = e.message();
        }
    }
    return out;
}

} // namespace loopscope
