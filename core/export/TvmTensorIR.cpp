#include "export/TvmTensorIR.h"

#include "explore/TensorIRTranslation.h"
#include "export/PythonText.h"
#include "export/ScriptNames.h"
#include "export/TvmScript.h"
#include "ir/GpuTarget.h"
#include "ir/Printer.h"
#include "runtime/Check.h"
#include "runtime/FlopCount.h"
#include "te/Ast.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace loopscope {

namespace {

// An instruction of the trace in the other spelling: get_block and get_sblock are the one
// difference in what a trace records.
std::string inSpelling(std::string line, TirSpelling s)
{
    const std::string from = s == TirSpelling::Tvm026 ? "sch.get_block(" : "sch.get_sblock(";
    const std::string to = s == TirSpelling::Tvm026 ? "sch.get_sblock(" : "sch.get_block(";
    for (std::size_t at = line.find(from); at != std::string::npos; at = line.find(from, at)) {
        line.replace(at, from.size(), to);
        at += to.size();
    }
    return line;
}

// How TVM's trace records each schedule method: the instruction's kind (by release), its inputs
// and its attributes, by the keyword names Loopscope's trace lines use ("*": the positional
// arguments; "factors": a list whose items are inputs; "[]": an empty list, the consumer blocks
// Loopscope never gives), each attribute with its JSON type ('b' a boolean, which TVM 0.20
// writes as 1 or 0, 'i' an integer, 's' a string).
struct TraceInstruction {
    const char* method;
    const char* kind;
    const char* kind026;
    std::vector<const char*> inputs;
    std::vector<std::pair<const char*, char>> attrs;
};

const std::vector<TraceInstruction>& traceInstructions()
{
    static const std::vector<TraceInstruction> all = {
        {"get_block", "GetBlock", "GetSBlock", {}, {{"name", 's'}, {"func_name", 's'}}},
        {"get_sblock", "GetBlock", "GetSBlock", {}, {{"name", 's'}, {"func_name", 's'}}},
        {"get_loops", "GetLoops", "GetLoops", {"block"}, {}},
        {"get_child_blocks", "GetChildBlocks", "GetChildBlocks", {"block_or_loop"}, {}},
        {"get_producers", "GetProducers", "GetProducers", {"block"}, {}},
        {"get_consumers", "GetConsumers", "GetConsumers", {"block"}, {}},
        {"split",
         "Split",
         "Split",
         {"loop", "factors"},
         {{"preserve_unit_iters", 'b'}, {"disable_predication", 'b'}}},
        {"fuse", "Fuse", "Fuse", {"*"}, {{"preserve_unit_iters", 'b'}}},
        {"reorder", "Reorder", "Reorder", {"*"}, {}},
        {"parallel", "Parallel", "Parallel", {"loop"}, {}},
        {"vectorize", "Vectorize", "Vectorize", {"loop"}, {}},
        {"unroll", "Unroll", "Unroll", {"loop"}, {}},
        {"bind", "Bind", "Bind", {"loop"}, {{"thread_axis", 's'}}},
        {"compute_at",
         "ComputeAt",
         "ComputeAt",
         {"block", "loop"},
         {{"preserve_unit_loops", 'i'}, {"index", 'i'}}},
        {"reverse_compute_at",
         "ReverseComputeAt",
         "ReverseComputeAt",
         {"block", "loop"},
         {{"preserve_unit_loops", 'i'}, {"index", 'i'}}},
        {"cache_read",
         "CacheRead",
         "CacheRead",
         {"block", "[]"},
         {{"read_buffer_index", 'i'}, {"storage_scope", 's'}}},
        {"cache_write",
         "CacheWrite",
         "CacheWrite",
         {"block", "[]"},
         {{"write_buffer_index", 'i'}, {"storage_scope", 's'}}},
        {"compute_inline", "ComputeInline", "ComputeInline", {"block"}, {}},
        {"reverse_compute_inline", "ReverseComputeInline", "ReverseComputeInline", {"block"}, {}},
        {"decompose_reduction", "DecomposeReduction", "DecomposeReduction", {"block", "loop"}, {}},
        {"rfactor", "RFactor", "RFactor", {"loop"}, {{"factor_axis", 'i'}}},
        {"set_scope",
         "SetScope",
         "SetScope",
         {"block"},
         {{"buffer_index", 'i'}, {"storage_scope", 's'}}},
        {"storage_align",
         "StorageAlign",
         "StorageAlign",
         {"block"},
         {{"buffer_index", 'i'}, {"axis", 'i'}, {"factor", 'i'}, {"offset", 'i'}}},
        {"annotate", "Annotate", "Annotate", {"block_or_loop", "ann_val"}, {{"ann_key", 's'}}},
        {"unannotate", "Unannotate", "Unannotate", {"block_or_loop"}, {{"ann_key", 's'}}},
        {"blockize", "Blockize", "Blockize", {"target"}, {{"preserve_unit_iters", 'b'}}},
    };
    return all;
}

// A value of a trace line as TVM's JSON has it: a random variable by its name, None as "None".
nlohmann::json traceValue(const ast::Expr& e)
{
    switch (e.kind) {
    case ast::ExprKind::Name: return e.name;
    case ast::ExprKind::Int: return e.intValue;
    case ast::ExprKind::Float: return e.floatValue;
    case ast::ExprKind::String: return e.name;
    case ast::ExprKind::Bool: return e.boolValue;
    case ast::ExprKind::None: return "None";
    case ast::ExprKind::Unary:
        if (e.name == "-" && e.value && e.value->kind == ast::ExprKind::Int)
            return -e.value->intValue;
        break;
    case ast::ExprKind::List:
    case ast::ExprKind::Tuple: {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& x : e.items)
            out.push_back(traceValue(*x));
        return out;
    }
    default: break;
    }
    LS_ASSERT(false,
              "a trace line holds a value TVM's JSON does not: " << static_cast<int>(e.kind));
    return nullptr;
}

} // namespace

std::string traceJson(const Variant& v, TirSpelling spelling)
{
    const bool s26 = spelling == TirSpelling::Tvm026;
    nlohmann::json insts = nlohmann::json::array();
    for (const std::string& line : v.trace) {
        ast::ParseResult parsed = ast::parseScript(line + "\n");
        LS_ASSERT(parsed.ok && parsed.module.body.size() == 1,
                  "a trace line does not parse: " << line);
        const ast::Stmt& st = parsed.module.body.front();
        const ast::Expr& call = *st.value;
        LS_ASSERT(call.kind == ast::ExprKind::Call && call.value &&
                      call.value->kind == ast::ExprKind::Attribute,
                  "a trace line is not a schedule call: " << line);
        const std::string method = call.value->name;
        const TraceInstruction* inst = nullptr;
        for (const TraceInstruction& t : traceInstructions())
            if (method == t.method) inst = &t;
        if (method == "transform_layout")
            throw UserError(v.loc, "variant '" + v.name +
                                       "' lays a buffer out anew (sch.transform_layout), whose "
                                       "index map Loopscope does not write as trace JSON yet; "
                                       "export it with --format tvm");
        LS_ASSERT(inst, "no trace instruction for sch." << method);
        auto keyword = [&](const char* name) -> const ast::Expr* {
            for (const ast::Keyword& k : call.keywords)
                if (k.name == name) return k.value.get();
            return nullptr;
        };
        nlohmann::json inputs = nlohmann::json::array(), attrs = nlohmann::json::array();
        for (const char* in : inst->inputs) {
            const std::string name = in;
            if (name == "*") {
                for (const auto& x : call.items)
                    inputs.push_back(traceValue(*x));
            } else if (name == "[]") {
                inputs.push_back(nlohmann::json::array());
            } else if (name == "factors") {
                const ast::Expr* f = keyword("factors");
                LS_ASSERT(f, "a split without factors: " << line);
                for (const auto& x : f->items)
                    inputs.push_back(traceValue(*x));
            } else {
                const ast::Expr* x = keyword(in);
                LS_ASSERT(x, "sch." << method << " without " << name << ": " << line);
                // An annotation's string value is recorded as its Python literal.
                if (name == "ann_val" && x->kind == ast::ExprKind::String)
                    inputs.push_back("\"" + x->name + "\"");
                else
                    inputs.push_back(traceValue(*x));
            }
        }
        for (const auto& [name, type] : inst->attrs) {
            const ast::Expr* x = keyword(name);
            LS_ASSERT(x, "sch." << method << " without " << name << ": " << line);
            nlohmann::json value = traceValue(*x);
            if (type == 'i' && value.is_boolean()) value = value.get<bool>() ? 1 : 0;
            if (type == 'b' && !s26) value = value.get<bool>() ? 1 : 0;
            attrs.push_back(value);
        }
        nlohmann::json outputs = nlohmann::json::array();
        for (const auto& t : st.targets) {
            if (t->kind == ast::ExprKind::Name)
                outputs.push_back(t->name);
            else
                for (const auto& x : t->items)
                    outputs.push_back(x->name);
        }
        insts.push_back({s26 ? inst->kind026 : inst->kind, inputs, attrs, outputs});
    }
    return nlohmann::json::array({insts, nlohmann::json::array()}).dump() + "\n";
}

void writeTensorIRRun(std::ostream& out, const Variant& v, const std::vector<Tensor>& params,
                      const std::string& funcName, const std::string& declaredModule,
                      const TvmTensorIRExport& options)
{
    const bool s26 = options.spelling == TirSpelling::Tvm026;
    const std::string target = options.target.empty() ? v.target : options.target;
    // A variant that binds loops to GPU threads is a GPU's, whatever its target says.
    const bool gpu = isGpuTarget(target) || bindsGpuThreads(v);
    const std::string build = s26 ? "tvm.tirx.build" : "tvm.tir.build";
    const std::string tensor = s26 ? "tvm.runtime.tensor" : "tvm.nd.array";
    out << "# Loopscope evaluates this file only up to the line above. What follows needs TVM "
        << options.release << "\n"
        << "# and NumPy: it builds the variant, checks it against the declared function built as "
           "it is,\n"
        << "# and times it the way TVM's tutorials do.\n"
        << "import os\n\n"
        << "import numpy as np\n\n"
        << "if os.environ.get(\"LOOPSCOPE_PRINT_SCHEDULED\"):\n"
        << "    print(sch.mod.script())\n\n"
        << "dev = " << (gpu ? "tvm.cuda(0)" : "tvm.cpu(0)") << "\n";
    if (gpu)
        out << "if not dev.exist:\n"
            << "    print(\"no GPU here: the schedule applied; nothing was built or run\")\n"
            << "    raise SystemExit(0)\n";
    out << "lib = " << build << "(sch.mod, target=" << python::string(gpu ? "cuda" : target)
        << ")\n"
        << "func = lib[" << python::string(funcName) << "]\n\n"
        << "# Seeded random inputs, zeroed outputs.\n"
        << "rng = np.random.default_rng(1)\n";
    std::string args, refArgs;
    std::vector<Tensor> outputs;
    for (const Tensor& t : params) {
        const std::string shape = python::shape(t, {}, v.loc);
        out << "np_" << pythonIdentifier(t->name) << " = "
            << (t->isPlaceholder()
                    ? python::randomArray(t->dtype, shape)
                    : "np.zeros(" + shape + ", dtype=" + python::string(t->dtype.str()) + ")")
            << "\n";
        args += (args.empty() ? "" : ", ") + ("nd_" + pythonIdentifier(t->name));
        refArgs += (refArgs.empty() ? "" : ", ") + ("ref_" + pythonIdentifier(t->name));
        if (t->isCompute()) outputs.push_back(t);
    }
    for (const Tensor& t : params)
        out << "nd_" << pythonIdentifier(t->name) << " = " << tensor << "(np_"
            << pythonIdentifier(t->name) << ", dev)\n";
    out << "func(" << args << ")\n\n"
        << "# The reference: the function as declared (no schedule), built for the CPU.\n"
        << "ref = " << build << "(" << declaredModule << ", target=\"llvm\")["
        << python::string(funcName) << "]\n";
    for (const Tensor& t : params)
        out << "ref_" << pythonIdentifier(t->name) << " = " << tensor << "(np_"
            << pythonIdentifier(t->name) << ", tvm.cpu(0))\n";
    out << "ref(" << refArgs << ")\n";
    // As Loopscope's checks: atol in units of the output's largest magnitude, since a long
    // float sum rounds in units of its partial sums and a schedule may reorder it.
    for (const Tensor& t : outputs) {
        const Tolerance tol = defaultTolerance(t->dtype);
        const std::string name = pythonIdentifier(t->name);
        out << "np.testing.assert_allclose(nd_" << name << ".numpy(), ref_" << name
            << ".numpy(), rtol=" << python::number(tol.rtol);
        if (t->dtype.isFloat())
            out << ", atol=" << python::number(tol.atol) << " * max(1.0, float(np.abs(ref_" << name
                << ".numpy()).max())))\n";
        else
            out << ", atol=" << python::number(tol.atol) << ")\n";
    }
    out << "\n# Time it: the median of 3 measurements of 10 runs each. The operation count is\n"
        << "# Loopscope's: the floating-point operations of each compute body times its domain.\n"
        << "flops = " << python::number(flopCount(v.snapshots.front().outputs())) << "\n"
        << "evaluator = lib.time_evaluator(" << python::string(funcName)
        << ", dev, number=10, repeat=3)\n"
        << "ms = evaluator(" << args << ").median * 1e3\n"
        << "print(\"%s: %.3f ms, %.2f GFLOPS\" % (" << python::string(v.name)
        << ", ms, flops / (ms * 1e6)))\n";
}

std::string exportTensorIRScript(const Program& p, const Variant& v,
                                 const TvmTensorIRExport& options)
{
    const TirFunc* declared = v.snapshots.front().tensorIR();
    LS_ASSERT(declared, "TensorIR export of a variant that is not TensorIR");
    const bool s26 = options.spelling == TirSpelling::Tvm026;
    std::ostringstream out;
    out << "# Variant " << python::string(v.name);
    if (!options.source.empty()) out << " of " << options.source;
    out << ", exported by Loopscope as a standalone script for TVM " << options.release << ".\n"
        << "# The function as declared, in TVMScript as TVM " << (s26 ? "0.26" : "0.20")
        << " prints it, then this variant's\n"
        << "# schedule as TVM's trace records it; the other variants are left out.\n";
    if (!p.parameters.empty()) {
        out << "# Parameters:";
        for (const Parameter& par : p.parameters)
            out << (&par == &p.parameters.front() ? " " : ", ") << par.name << " = " << par.value;
        out << ".\n";
    }
    out << "import tvm\n"
        << "from tvm.script import ir as I\n"
        << "from tvm.script import " << (s26 ? "tirx" : "tir") << " as T\n\n";
    // The printed module without its commented imports (written above as imports).
    std::istringstream printed(printTensorIR(*declared, options.spelling));
    bool header = true;
    for (std::string line; std::getline(printed, line);) {
        if (header && (line.rfind("# from ", 0) == 0 || line.empty())) continue;
        header = false;
        out << line << "\n";
    }
    out << "\n\n# variant: " << v.name << "\n"
        << "sch = tvm." << (s26 ? "s_tir" : "tir") << ".Schedule(Module)\n";
    for (const std::string& line : v.trace)
        out << inSpelling(line, options.spelling) << "\n";

    out << "\n" << kTvmRunMarker << "\n";
    writeTensorIRRun(out, v, declared->params, declared->name, "Module", options);
    return out.str();
}

std::string exportTeAsTensorIR(const std::string& scriptText, const Program& p, const Variant& v,
                               const TvmTensorIRExport& options)
{
    const bool s26 = options.spelling == TirSpelling::Tvm026;
    std::vector<std::string> argVariables;
    std::string declarations = tvmDeclarations(scriptText, p, v, &argVariables);
    std::vector<std::string> taken = v.names;
    for (const char* name : {"prim_func", "sch", "lib", "func", "dev", "rng", "ref", "flops",
                             "evaluator", "ms", "np", "os", "tvm", "te", "T", "I"})
        taken.emplace_back(name);
    const TirTranslation t = translateToTensorIR(v, options.spelling, taken);
    if (!t.ok)
        throw UserError(t.error.loc, "export for TVM " + options.release + ": " + t.error.message);

    std::ostringstream out;
    out << "# Variant " << python::string(v.name);
    if (!options.source.empty()) out << " of " << options.source;
    out << ", exported by Loopscope as a standalone script for TVM " << options.release << ".\n"
        << "# The script's declarations, the function te.create_prim_func makes of them, and this\n"
        << "# variant's TE schedule as the tir.Schedule calls that make the same loop nest (TVM "
           "removed\n"
        << "# TE schedules in v0.20); the other variants are left out.\n";
    if (!p.parameters.empty()) {
        out << "# Parameters:";
        for (const Parameter& par : p.parameters)
            out << (&par == &p.parameters.front() ? " " : ", ") << par.name << " = " << par.value;
        out << ".\n";
    }
    if (declarations.find("import tvm\n") == std::string::npos) out << "import tvm\n";
    // TVM 0.24 renamed tvm.tir to tvm.tirx.
    if (s26) declarations = script::inTirxSpelling(declarations);
    if (declarations.find("from tvm import te\n") == std::string::npos)
        out << "from tvm import te\n";
    out << declarations << "\nprim_func = te.create_prim_func([";
    for (const std::string& a : argVariables)
        out << (&a == &argVariables.front() ? "" : ", ") << a;
    out << "])\n\n# variant: " << v.name << "\n"
        << "sch = tvm." << (s26 ? "s_tir" : "tir") << ".Schedule(prim_func)\n";
    for (const std::string& line : t.statements)
        out << line << "\n";
    out << "\n" << kTvmRunMarker << "\n";
    writeTensorIRRun(out, v, v.args, "main", "tvm.IRModule({\"main\": prim_func})", options);
    return out.str();
}

} // namespace loopscope
