// Test support for the editor part: samples, their stages after exploring, and a ScheduleContext
// derived from the script text the way the app's analysis would provide it (enough for the
// statements these tests write: placeholders, computes, reduce axes, op.axis bindings, split,
// tile and fuse results).
#pragma once

#include "editor/StatementWriter.h"
#include "explore/Explorer.h"
#include "support/SourceFiles.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace editortest {

inline std::string readSample(const std::string& name)
{
    return loopscope::readSourceFile("samples/" + name);
}

inline std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        lines.push_back(l);
    return lines;
}

inline const loopscope::VariantView* findVariant(const loopscope::Exploration& x,
                                                 const std::string& name)
{
    for (auto& v : x.variants)
        if (v.name == name) return &v;
    return nullptr;
}

// The stages after the last step of a variant (empty when the script or variant fails).
inline std::vector<loopscope::StageInfo> finalStages(const std::string& script,
                                                     const std::string& variant)
{
    loopscope::Exploration x = loopscope::explore(script, {}, variant);
    const loopscope::VariantView* v = findVariant(x, variant);
    if (!x.ok || !v || v->steps.empty()) return {};
    return v->steps.back().stages;
}

// Inserts `text` (lines) after 1-based line `line` of `script`.
inline std::string insertAfter(const std::string& script, int line, const std::string& text)
{
    std::vector<std::string> lines = splitLines(script);
    std::vector<std::string> add = splitLines(text);
    lines.insert(lines.begin() + line, add.begin(), add.end());
    std::string out;
    for (auto& l : lines)
        out += l + "\n";
    return out;
}

// Whether the script evaluates and every variant's last step lowers; `error` says why not.
inline bool evaluatesCleanly(const std::string& script, std::string* error)
{
    loopscope::Exploration x = loopscope::explore(script);
    if (!x.ok) {
        *error = std::to_string(x.error.loc.line) + ": " + x.error.message;
        return false;
    }
    for (auto& v : x.variants) {
        if (v.steps.back().error) {
            *error = v.name + ": " + v.steps.back().error->message;
            return false;
        }
    }
    return true;
}

// The context of the variant whose block is lines [first, last] (1-based).
inline loopscope::ScheduleContext contextFor(const std::string& script, int first, int last,
                                             const std::vector<loopscope::StageInfo>& stages)
{
    using std::regex;
    using std::smatch;
    loopscope::ScheduleContext c;
    c.usedNames = {"tvm", "te"};
    std::map<std::string, std::string> varToAxis;
    std::map<std::string, std::string> varToStage;
    auto bind = [&](const std::string& var, const std::string& axis) {
        c.axisVars[axis] = var;
        varToAxis[var] = axis;
    };
    auto rootAxis = [&](const std::string& tensorVar, bool reduce, std::size_t index) {
        auto it = varToStage.find(tensorVar);
        if (it == varToStage.end()) return std::string();
        for (auto& s : stages) {
            if (s.name != it->second) continue;
            // Root axes: op.axis then op.reduce_axis; reductions are the trailing ones.
            std::size_t ndp = 0;
            for (auto& r : s.rootAxes) {
                for (auto& a : s.axes) {
                    if (a.var == r || a.var.rfind(r + ".", 0) == 0) {
                        ndp += a.reduction ? 0 : 1;
                        break;
                    }
                }
            }
            std::size_t k = reduce ? ndp + index : index;
            return k < s.rootAxes.size() ? s.rootAxes[k] : std::string();
        }
        return std::string();
    };
    static const regex assign(R"(^\s*([A-Za-z_][\w\s,()]*?)\s*=[^=])");
    static const regex tensor(R"(^(\w+)\s*=\s*te\.(placeholder|compute)\(.*name=\"(\w+)\")");
    static const regex reduceAxis(R"(^(\w+)\s*=\s*te\.reduce_axis\(.*name=\"(\w+)\")");
    static const regex schedule(R"(^(\w+)\s*=\s*te\.create_schedule)");
    static const regex opAxisOne(R"(^(\w+)\s*=\s*\w+\[(\w+)\]\.op\.(axis|reduce_axis)\[(\d+)\])");
    static const regex opAxisAll(
        R"(^\(?([\w, ]+?),?\)?\s*=\s*\w+\[(\w+)\]\.op\.(axis|reduce_axis)\s*$)");
    static const regex split(R"(^(\w+),\s*(\w+)\s*=\s*\w+\[\w+\]\.split\((\w+),)");
    static const regex tile(
        R"(^(\w+),\s*(\w+),\s*(\w+),\s*(\w+)\s*=\s*\w+\[\w+\]\.tile\((\w+),\s*(\w+),)");
    static const regex fuse(R"(^(\w+)\s*=\s*\w+\[\w+\]\.fuse\(([\w, ]+)\))");
    std::vector<std::string> lines = splitLines(script);
    for (int n = 1; n <= static_cast<int>(lines.size()); ++n) {
        const std::string& line = lines[static_cast<std::size_t>(n - 1)];
        smatch m;
        if (std::regex_search(line, m, assign)) {
            std::string targets = m[1];
            for (char& ch : targets)
                if (ch == ',' || ch == '(' || ch == ')') ch = ' ';
            std::istringstream in(targets);
            for (std::string t; in >> t;)
                c.usedNames.insert(t);
        }
        if (std::regex_search(line, m, tensor)) {
            c.tensorVars[m[3]] = m[1];
            varToStage[m[1]] = m[3];
        }
        bool inBlock = n >= first && n <= last;
        if (n < first && std::regex_search(line, m, reduceAxis)) bind(m[1], m[2]);
        if (inBlock && std::regex_search(line, m, schedule)) c.scheduleVar = m[1];
        if (!inBlock) continue;
        if (std::regex_search(line, m, opAxisOne)) {
            bind(m[1], rootAxis(m[2], m[3] == "reduce_axis", std::stoul(m[4])));
        } else if (std::regex_search(line, m, opAxisAll)) {
            std::string names = m[1];
            for (char& ch : names)
                if (ch == ',') ch = ' ';
            std::istringstream in(names);
            std::size_t k = 0;
            for (std::string t; in >> t; ++k)
                bind(t, rootAxis(m[2], m[3] == "reduce_axis", k));
        } else if (std::regex_search(line, m, split)) {
            std::string parent = varToAxis[m[3]];
            bind(m[1], parent + ".outer");
            bind(m[2], parent + ".inner");
        } else if (std::regex_search(line, m, tile)) {
            std::string x = varToAxis[m[5]], y = varToAxis[m[6]];
            bind(m[1], x + ".outer");
            bind(m[2], y + ".outer");
            bind(m[3], x + ".inner");
            bind(m[4], y + ".inner");
        } else if (std::regex_search(line, m, fuse)) {
            std::string args = m[2];
            for (char& ch : args)
                if (ch == ',') ch = ' ';
            std::istringstream in(args);
            std::string fused;
            for (std::string t; in >> t;)
                fused = fused.empty() ? varToAxis[t] : fused + "." + varToAxis[t] + ".fused";
            bind(m[1], fused);
        }
    }
    return c;
}

// The context of a named variant of a script, with its stages.
struct VariantFixture {
    std::string script;
    int line = 0;
    int lastLine = 0;
    std::vector<loopscope::StageInfo> stages;
    loopscope::ScheduleContext context;
};

inline VariantFixture fixture(const std::string& script, const std::string& variant)
{
    VariantFixture f;
    f.script = script;
    loopscope::Exploration x = loopscope::explore(script, {}, variant);
    const loopscope::VariantView* v = findVariant(x, variant);
    if (!x.ok || !v) return f;
    f.line = v->line;
    f.lastLine = v->lastLine;
    f.stages = v->steps.back().stages;
    if (v->tensorIR) {
        // The app's own context: a TensorIR variant's handles come from the evaluator.
        f.lastLine = v->scheduleEndLine;
        f.context = loopscope::scheduleContextFor(*v, v->steps.back(), x.allNames);
        return f;
    }
    f.context = contextFor(script, v->line, v->lastLine, f.stages);
    f.context.schedule = v->steps.back().schedule;
    return f;
}

} // namespace editortest
