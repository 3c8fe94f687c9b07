#include "export/TvmScript.h"

#include "export/ScriptNames.h"

#include "export/PythonText.h"

#include "ir/Analyzer.h"
#include "ir/IRUtil.h"
#include "runtime/Check.h"
#include "runtime/FlopCount.h"
#include "te/Ast.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace loopscope {

namespace {

using ast::ExprKind;
using script::callsAttribute;
using script::collectReads;
using script::collectTargets;
using script::splitLines;

bool isIntLiteral(const ast::Expr& e, std::int64_t* out)
{
    if (e.kind == ExprKind::Int) {
        *out = e.intValue;
        return true;
    }
    if (e.kind == ExprKind::Unary && e.name == "-" && e.value && e.value->kind == ExprKind::Int) {
        *out = -e.value->intValue;
        return true;
    }
    return false;
}

// The text of a statement's value: what follows `NAME = ` for an assignment.
std::string valueText(const ast::Stmt& st)
{
    if (!st.value) return {};
    SourceLoc at = st.loc;
    for (std::size_t i = 0; i < st.text.size(); ++i) {
        if (at.line == st.value->loc.line && at.col == st.value->loc.col) return st.text.substr(i);
        if (st.text[i] == '\n') {
            ++at.line;
            at.col = 1;
        } else {
            ++at.col;
        }
    }
    return {};
}

struct Kept {
    const ast::Stmt* stmt = nullptr;
    bool inVariant = false; // one of the variant's own statements
};

class Exporter {
public:
    Exporter(const std::string& text, const Program& p, const Variant& v, const TvmScriptOptions& o)
        : m_text(text), m_lines(splitLines(text)), m_program(p), m_variant(v), m_options(o)
    {
    }

    std::string run()
    {
        ast::ParseResult parsed = ast::parseScript(m_text);
        if (!parsed.ok) throw UserError(parsed.error.loc, parsed.error.message);
        m_module = std::move(parsed.module);
        selectStatements();
        std::ostringstream out;
        header(out);
        body(out);
        out << "\n" << kTvmRunMarker << "\n";
        boilerplate(out);
        return out.str();
    }

    // The declarations alone (no statement of any variant's schedule), and the variables of
    // the variant's arguments.
    std::string declarations(std::vector<std::string>* argVariables)
    {
        ast::ParseResult parsed = ast::parseScript(m_text);
        if (!parsed.ok) throw UserError(parsed.error.loc, parsed.error.message);
        m_module = std::move(parsed.module);
        m_declarationsOnly = true;
        selectStatements();
        std::ostringstream out;
        body(out);
        for (const Tensor& t : m_variant.args)
            argVariables->push_back(variableOf(t));
        return out.str();
    }

private:
    int variantIndexAt(SourceLoc loc) const
    {
        for (std::size_t i = 0; i < m_program.variants.size(); ++i) {
            const SourceLoc& l = m_program.variants[i].loc;
            if (l.line == loc.line && l.col == loc.col) return static_cast<int>(i);
        }
        return -1;
    }

    // Keeps the statements up to the variant's last one that are either its own (they use its
    // schedule) or declarations (they use no schedule); drops other variants' statements and any
    // declaration that reads a name only they define.
    void selectStatements()
    {
        int target = static_cast<int>(&m_variant - m_program.variants.data());
        LS_ASSERT(target >= 0 && static_cast<std::size_t>(target) < m_program.variants.size(),
                  "TVM export: the variant is not one of the program's");
        std::map<std::string, int> schedules; // schedule variable -> variant
        std::set<std::string> dropped;        // names last bound by a dropped statement
        int created = 0;
        for (auto& st : m_module.body) {
            if (st.loc.line > m_variant.lastLine) break;
            std::set<std::string> reads;
            if (st.value) collectReads(*st.value, {}, &reads);
            std::vector<std::string> targets;
            for (auto& t : st.targets)
                collectTargets(*t, &targets);
            std::set<int> touched;
            for (auto& n : reads)
                if (auto it = schedules.find(n); it != schedules.end()) touched.insert(it->second);
            int createdHere = -1;
            if (st.value && callsAttribute(*st.value, "create_schedule")) {
                createdHere = variantIndexAt(st.loc);
                if (createdHere < 0) createdHere = created;
                ++created;
                touched.insert(createdHere);
                m_lastCreateBefore = createdHere < target ? st.endLine : m_lastCreateBefore;
                if (createdHere == target) m_create = &st;
            }
            bool keep, own = touched.count(target) != 0;
            if (own)
                keep = !m_declarationsOnly;
            else if (!touched.empty())
                keep = false;
            else
                keep = std::none_of(reads.begin(), reads.end(),
                                    [&](const std::string& n) { return dropped.count(n); });
            for (auto& n : targets) {
                if (keep)
                    dropped.erase(n);
                else
                    dropped.insert(n);
                if (createdHere >= 0)
                    schedules[n] = createdHere;
                else if (st.value && st.value->kind == ExprKind::Name &&
                         schedules.count(st.value->name))
                    schedules[n] = schedules[st.value->name];
                else
                    schedules.erase(n);
            }
            if (keep) m_kept.push_back({&st, own});
        }
        LS_ASSERT(m_create,
                  "TVM export: the variant's te.create_schedule statement is not in the script");
    }

    void header(std::ostringstream& out) const
    {
        out << "# Variant " << python::string(m_variant.name);
        if (!m_options.source.empty()) out << " of " << m_options.source;
        out << ", exported by Loopscope as a standalone script for TVM 0.17.\n"
            << "# The script's declarations and this variant's schedule; the other variants are "
               "left out.\n";
        if (!m_program.parameters.empty()) {
            out << "# Parameters:";
            for (auto& par : m_program.parameters)
                out << (&par == &m_program.parameters.front() ? " " : ", ") << par.name << " = "
                    << par.value;
            out << ".\n";
        }
        bool hasTvm = false, hasTe = false;
        for (auto& k : m_kept) {
            if (k.stmt->kind != ast::StmtKind::Import) continue;
            hasTvm = hasTvm || k.stmt->text == "import tvm";
            hasTe = hasTe || k.stmt->text == "from tvm import te";
        }
        if (!hasTvm || !hasTe) out << "\n";
        if (!hasTvm) out << "import tvm\n";
        if (!hasTe) out << "from tvm import te\n";
    }

    // A statement alone on its lines is copied line by line (with its comments); otherwise its
    // text is used. Parameters are rewritten when their value differs from the literal.
    std::vector<std::string> statementLines(const ast::Stmt& st) const
    {
        std::int64_t literal;
        if (st.kind == ast::StmtKind::Assign && st.value && isIntLiteral(*st.value, &literal)) {
            bool names =
                std::all_of(st.targets.begin(), st.targets.end(),
                            [](const ast::ExprPtr& t) { return t->kind == ExprKind::Name; });
            bool differs = false;
            std::vector<std::int64_t> values;
            for (auto& t : st.targets) {
                const Parameter* par =
                    t->kind == ExprKind::Name ? m_program.findParameter(t->name) : nullptr;
                values.push_back(par ? par->value : literal);
                differs = differs || values.back() != literal;
            }
            if (names && differs) {
                std::vector<std::string> out;
                if (std::all_of(values.begin(), values.end(),
                                [&](std::int64_t x) { return x == values[0]; })) {
                    std::string s;
                    for (auto& t : st.targets)
                        s += t->name + " = ";
                    out.push_back(s + std::to_string(values[0]));
                } else {
                    for (std::size_t i = 0; i < st.targets.size(); ++i)
                        out.push_back(st.targets[i]->name + " = " + std::to_string(values[i]));
                }
                out.back() += "  # " + std::to_string(literal) + " in the original script";
                return out;
            }
        }
        // `M, N, K = 1024, 1024, 1024`: each name a parameter too.
        if (st.kind == ast::StmtKind::Assign && st.value && st.targets.size() == 1 &&
            st.value->kind == ExprKind::Tuple && st.targets[0]->kind == ExprKind::Tuple &&
            st.targets[0]->items.size() == st.value->items.size()) {
            std::string names, now, before;
            bool literals = true, differs = false;
            for (std::size_t i = 0; i < st.value->items.size() && literals; ++i) {
                const ast::Expr& t = *st.targets[0]->items[i];
                literals = t.kind == ExprKind::Name && isIntLiteral(*st.value->items[i], &literal);
                if (!literals) break;
                const Parameter* par = m_program.findParameter(t.name);
                const std::int64_t v = par ? par->value : literal;
                differs = differs || v != literal;
                const char* sep = i ? ", " : "";
                names += sep + t.name;
                now += sep + std::to_string(v);
                before += sep + std::to_string(literal);
            }
            if (literals && differs)
                return {names + " = " + now + "  # " + before + " in the original script"};
        }
        bool alone = true;
        for (auto& other : m_module.body) {
            if (&other == &st) continue;
            if (other.loc.line <= st.endLine && other.endLine >= st.loc.line) alone = false;
        }
        if (!alone || st.endLine > static_cast<int>(m_lines.size())) return splitLines(st.text);
        return {m_lines.begin() + st.loc.line - 1, m_lines.begin() + st.endLine};
    }

    void body(std::ostringstream& out) const
    {
        std::map<int, const ast::Comment*> comments;
        for (auto& c : m_module.comments)
            if (c.ownLine) comments[c.loc.line] = &c;
        int previousEnd = 0;   // last line of the statement before, kept or not
        int previousKept = -1; // last line written
        auto statementIt = m_module.body.begin();
        for (auto& k : m_kept) {
            const ast::Stmt& st = *k.stmt;
            for (; &*statementIt != &st; ++statementIt)
                previousEnd = statementIt->endLine;
            ++statementIt;
            // The comment lines directly above the statement belong to it. A "# variant:" comment
            // names a schedule: only the one naming this variant stays.
            int first = st.loc.line;
            while (first - 1 > previousEnd && comments.count(first - 1))
                --first;
            // The comment that opens the file describes the whole script: the header replaces it.
            int commentsFrom = first == 1 ? st.loc.line : first;
            bool blank = previousKept >= 0 && first > previousKept + 1;
            if (blank || previousKept < 0) out << "\n";
            for (int line = commentsFrom; line < st.loc.line; ++line) {
                bool variantComment = comments.at(line)->text.rfind("variant:", 0) == 0;
                bool naming = line > m_lastCreateBefore && line < m_create->loc.line;
                if (!variantComment || (naming && !m_declarationsOnly))
                    out << m_lines[static_cast<std::size_t>(line - 1)] << "\n";
            }
            for (auto& l : statementLines(st))
                out << l << "\n";
            previousKept = st.endLine;
            previousEnd = st.endLine;
        }
    }

    // The variable a tensor was assigned to where it was declared; else its own name.
    std::string variableOf(const Tensor& t) const
    {
        const ast::Stmt* best = nullptr;
        for (auto& st : m_module.body) {
            bool starts = st.loc.line < t->loc.line ||
                          (st.loc.line == t->loc.line && st.loc.col <= t->loc.col);
            if (starts && st.endLine >= t->loc.line) best = &st;
        }
        if (best && best->kind == ast::StmtKind::Assign &&
            best->targets.front()->kind == ExprKind::Name)
            return best->targets.front()->name;
        return t->name;
    }

    void boilerplate(std::ostringstream& out) const
    {
        SizeValues sizes;
        std::vector<std::string> symbolNotes;
        for (auto& sv : m_program.sizeVars) {
            auto it = m_options.symbols.find(sv.name);
            std::int64_t value = it == m_options.symbols.end() ? 1024 : it->second;
            sizes[sv.var.get()] = value;
            symbolNotes.push_back(sv.name + " = " + std::to_string(value));
        }
        const std::vector<Tensor>& outputs = m_variant.snapshots.front().outputs();
        auto isOutput = [&](const Tensor& t) {
            return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
        };

        std::string schedule = "s";
        if (!m_create->targets.empty() && m_create->targets.front()->kind == ExprKind::Name)
            schedule = m_create->targets.front()->name;
        std::string args;
        for (auto& t : m_variant.args)
            args += (args.empty() ? "" : ", ") + variableOf(t);
        std::string createText = valueText(*m_create);
        if (createText.empty()) {
            createText = "te.create_schedule([";
            for (auto& t : outputs)
                createText += variableOf(t) + ".op" + (&t == &outputs.back() ? "" : ", ");
            createText += "])";
        }
        // A `func = tvm.build(s, ...)` of the variant itself is reused.
        std::string func;
        for (auto& k : m_kept) {
            const ast::Stmt& st = *k.stmt;
            if (!k.inVariant || st.kind != ast::StmtKind::Assign || st.targets.size() != 1)
                continue;
            const ast::Expr& value = *st.value;
            bool build = value.kind == ExprKind::Call && value.value &&
                         value.value->kind == ExprKind::Attribute && value.value->name == "build" &&
                         st.targets.front()->kind == ExprKind::Name;
            if (build) func = st.targets.front()->name;
        }

        out << "# Loopscope evaluates this file only up to the line above. What follows needs TVM "
               "0.17\n"
            << "# and NumPy: it builds the variant, checks it against TVM's default schedule of "
               "the same\n"
            << "# computation, and times it the way TVM's tutorials do.\n"
            << "import numpy as np\n"
            << "import tvm.testing\n\n"
            << "dev = tvm.cpu(0)\n";
        if (func.empty()) {
            func = "func";
            out << "func = tvm.build(" << schedule << ", [" << args
                << "], target=" << python::string(buildTarget())
                << ", name=" << python::string(m_variant.funcName) << ")\n";
        }
        out << "\n# Seeded random inputs, zeroed outputs";
        if (!symbolNotes.empty()) {
            out << " (symbolic sizes: ";
            for (auto& n : symbolNotes)
                out << (&n == &symbolNotes.front() ? "" : ", ") << n;
            out << ")";
        }
        out << ".\nrng = np.random.default_rng(1)\n";
        std::string callArgs, refArgs;
        std::vector<const Tensor*> computed;
        for (auto& t : m_variant.args) {
            std::string name = variableOf(t), shape = python::shape(t, sizes, m_variant.loc);
            std::string zeros = "tvm.nd.array(np.zeros(" + shape +
                                ", dtype=" + python::string(t->dtype.str()) + "), dev)";
            if (t->isPlaceholder()) {
                out << "nd_" << name << " = tvm.nd.array(" << python::randomArray(t->dtype, shape)
                    << ", dev)\n";
                refArgs += (refArgs.empty() ? "" : ", ") + ("nd_" + name);
            } else {
                out << "nd_" << name << " = " << zeros << "\n";
                refArgs += (refArgs.empty() ? "" : ", ") + ("ref_" + name);
                computed.push_back(&t);
            }
            callArgs += (callArgs.empty() ? "" : ", ") + ("nd_" + name);
        }
        out << func << "(" << callArgs << ")\n\n";

        out << "# The reference: the same computation with the default schedule (no primitives).\n"
            << "ref_s = " << createText << "\n"
            << "ref_func = tvm.build(ref_s, [" << args
            << "], target=" << python::string(buildTarget()) << ")\n";
        for (const Tensor* t : computed)
            out << "ref_" << variableOf(*t) << " = tvm.nd.array(np.zeros("
                << python::shape(*t, sizes, m_variant.loc)
                << ", dtype=" << python::string((*t)->dtype.str()) << "), dev)\n";
        out << "ref_func(" << refArgs << ")\n";
        for (const Tensor* t : computed) {
            if (!isOutput(*t)) continue;
            Tolerance tol = defaultTolerance((*t)->dtype);
            std::string name = variableOf(*t);
            out << "tvm.testing.assert_allclose(nd_" << name << ".numpy(), ref_" << name
                << ".numpy(), rtol=" << python::number(tol.rtol)
                << ", atol=" << python::number(tol.atol) << ")\n";
        }

        double flops = flopCount(outputs, sizes);
        out << "\n# Time it: the median of 3 measurements of 10 runs each. The operation count is\n"
            << "# Loopscope's: the floating-point operations of each compute body times its "
               "domain.\n"
            << "flops = " << python::number(flops) << "\n"
            << "evaluator = " << func << ".time_evaluator(" << func
            << ".entry_name, dev, number=10, repeat=3)\n"
            << "ms = evaluator(" << callArgs << ").median * 1e3\n"
            << "print(\"%s: %.3f ms, %.2f GFLOPS\" % (" << python::string(m_variant.name)
            << ", ms, flops / (ms * 1e6)))\n";
    }

    const std::string& m_text;
    std::vector<std::string> m_lines;
    const Program& m_program;
    const Variant& m_variant;
    const TvmScriptOptions& m_options;

    const std::string& buildTarget() const
    {
        return m_options.target.empty() ? m_variant.target : m_options.target;
    }
    ast::Module m_module;
    std::vector<Kept> m_kept;
    const ast::Stmt* m_create = nullptr;
    int m_lastCreateBefore = 0; // last line of the te.create_schedule before the variant's
    bool m_declarationsOnly = false;
};

} // namespace

std::string tvmDeclarations(const std::string& scriptText, const Program& p, const Variant& v,
                            std::vector<std::string>* argVariables)
{
    const TvmScriptOptions options;
    return Exporter(scriptText, p, v, options).declarations(argVariables);
}

std::string exportTvmScript(const std::string& scriptText, const Program& p, const Variant& v,
                            const TvmScriptOptions& options)
{
    return Exporter(scriptText, p, v, options).run();
}

} // namespace loopscope
