#include "export/TvmTensorIR.h"

#include "export/PythonText.h"
#include "export/TensorIRTranslation.h"
#include "export/TvmScript.h"
#include "ir/GpuTarget.h"
#include "ir/Printer.h"
#include "runtime/Check.h"
#include "runtime/FlopCount.h"

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

} // namespace

void writeTensorIRRun(std::ostream& out, const Variant& v, const std::vector<Tensor>& params,
                      const std::string& funcName, const std::string& declaredModule,
                      const TvmTensorIRExport& options)
{
    const bool s26 = options.spelling == TirSpelling::Tvm026;
    const std::string target = options.target.empty() ? v.target : options.target;
    // A variant that binds loops to GPU threads is a GPU's, whatever its target says.
    const bool gpu =
        isGpuTarget(target) || std::any_of(v.steps.begin(), v.steps.end(),
                                           [](const Step& s) { return s.primitive == "bind"; });
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
        out << "np_" << python::identifier(t->name) << " = "
            << (t->isPlaceholder()
                    ? python::randomArray(t->dtype, shape)
                    : "np.zeros(" + shape + ", dtype=" + python::string(t->dtype.str()) + ")")
            << "\n";
        args += (args.empty() ? "" : ", ") + ("nd_" + python::identifier(t->name));
        refArgs += (refArgs.empty() ? "" : ", ") + ("ref_" + python::identifier(t->name));
        if (t->isCompute()) outputs.push_back(t);
    }
    for (const Tensor& t : params)
        out << "nd_" << python::identifier(t->name) << " = " << tensor << "(np_"
            << python::identifier(t->name) << ", dev)\n";
    out << "func(" << args << ")\n\n"
        << "# The reference: the function as declared (no schedule), built for the CPU.\n"
        << "ref = " << build << "(" << declaredModule << ", target=\"llvm\")["
        << python::string(funcName) << "]\n";
    for (const Tensor& t : params)
        out << "ref_" << python::identifier(t->name) << " = " << tensor << "(np_"
            << python::identifier(t->name) << ", tvm.cpu(0))\n";
    out << "ref(" << refArgs << ")\n";
    // As Loopscope's checks: atol in units of the output's largest magnitude, since a long
    // float sum rounds in units of its partial sums and a schedule may reorder it.
    for (const Tensor& t : outputs) {
        const Tolerance tol = defaultTolerance(t->dtype);
        const std::string name = python::identifier(t->name);
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
    if (s26) {
        for (std::size_t at = declarations.find("tvm.tir."); at != std::string::npos;
             at = declarations.find("tvm.tir.", at + 9))
            declarations.replace(at, 8, "tvm.tirx.");
        for (std::size_t at = declarations.find("from tvm import tir\n"); at != std::string::npos;
             at = declarations.find("from tvm import tir\n", at + 1))
            declarations.replace(at, 20, "from tvm import tirx as tir\n");
    }
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
