#include "export/TvmTensorIR.h"

#include "export/TvmScript.h"
#include "ir/GpuTarget.h"
#include "ir/Printer.h"
#include "runtime/Check.h"
#include "runtime/FlopCount.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace loopscope {

namespace {

std::string pyString(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string number(double v)
{
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e18)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string shapeText(const Tensor& t, SourceLoc loc)
{
    std::string s = "(";
    for (std::size_t d = 0; d < t->shape.size(); ++d) {
        std::int64_t n = 0;
        if (!isConstInt(t->shape[d], &n))
            throw UserError(loc, "the shape of '" + t->name + "' is not known");
        s += std::to_string(n) + (t->shape.size() == 1 ? "," : d + 1 < t->shape.size() ? ", " : "");
    }
    return s + ")";
}

std::string randomArray(DataType t, const std::string& shape)
{
    const std::string dtype = pyString(t.str());
    if (t.isFloat()) return "rng.uniform(-1, 1, size=" + shape + ").astype(" + dtype + ")";
    if (t.isBool()) return "rng.integers(0, 2, size=" + shape + ").astype(" + dtype + ")";
    if (t.isUInt()) return "rng.integers(0, 9, size=" + shape + ").astype(" + dtype + ")";
    return "rng.integers(-8, 9, size=" + shape + ").astype(" + dtype + ")";
}

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

std::string exportTensorIRScript(const Program& p, const Variant& v,
                                 const TvmTensorIRExport& options)
{
    const TirFunc* declared = v.snapshots.front().tensorIR();
    LS_ASSERT(declared, "TensorIR export of a variant that is not TensorIR");
    const bool s26 = options.spelling == TirSpelling::Tvm026;
    const std::string target = options.target.empty() ? v.target : options.target;
    const bool gpu = isGpuTarget(target);
    std::ostringstream out;
    out << "# Variant " << pyString(v.name);
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
    const std::string build = s26 ? "tvm.tirx.build" : "tvm.tir.build";
    const std::string tensor = s26 ? "tvm.runtime.tensor" : "tvm.nd.array";
    out << "# Loopscope evaluates this file only up to the line above. What follows needs TVM "
        << options.release << "\n"
        << "# and NumPy: it builds the variant, checks it against the declared function built as "
           "it is,\n"
        << "# and times it the way TVM's tutorials do.\n"
        << "import os\n\n"
        << "import numpy as np\n\n"
        << "dev = " << (gpu ? "tvm.cuda(0)" : "tvm.cpu(0)") << "\n"
        << "lib = " << build << "(sch.mod, target=" << pyString(gpu ? "cuda" : target) << ")\n"
        << "func = lib[" << pyString(declared->name) << "]\n\n"
        << "# Seeded random inputs, zeroed outputs.\n"
        << "rng = np.random.default_rng(1)\n";
    std::string args, refArgs;
    std::vector<Tensor> outputs;
    for (const Tensor& t : declared->params) {
        const std::string shape = shapeText(t, v.loc);
        out << "np_" << t->name << " = "
            << (t->isPlaceholder()
                    ? randomArray(t->dtype, shape)
                    : "np.zeros(" + shape + ", dtype=" + pyString(t->dtype.str()) + ")")
            << "\n";
        args += (args.empty() ? "" : ", ") + ("nd_" + t->name);
        refArgs += (refArgs.empty() ? "" : ", ") + ("ref_" + t->name);
        if (t->isCompute()) outputs.push_back(t);
    }
    for (const Tensor& t : declared->params)
        out << "nd_" << t->name << " = " << tensor << "(np_" << t->name << ", dev)\n";
    out << "func(" << args << ")\n\n"
        << "# The reference: the function as declared (no schedule), built for the CPU.\n"
        << "ref = " << build << "(Module, target=\"llvm\")[" << pyString(declared->name) << "]\n";
    for (const Tensor& t : declared->params)
        out << "ref_" << t->name << " = " << tensor << "(np_" << t->name << ", tvm.cpu(0))\n";
    out << "ref(" << refArgs << ")\n";
    for (const Tensor& t : outputs) {
        const Tolerance tol = defaultTolerance(t->dtype);
        out << "np.testing.assert_allclose(nd_" << t->name << ".numpy(), ref_" << t->name
            << ".numpy(), rtol=" << number(tol.rtol) << ", atol=" << number(tol.atol) << ")\n";
    }
    out << "if os.environ.get(\"LOOPSCOPE_PRINT_SCHEDULED\"):\n"
        << "    print(sch.mod.script())\n\n"
        << "# Time it: the median of 3 measurements of 10 runs each. The operation count is\n"
        << "# Loopscope's: the floating-point operations of each compute body times its domain.\n"
        << "flops = " << number(flopCount(v.snapshots.front().outputs())) << "\n"
        << "evaluator = lib.time_evaluator(" << pyString(declared->name)
        << ", dev, number=10, repeat=3)\n"
        << "ms = evaluator(" << args << ").median * 1e3\n"
        << "print(\"%s: %.3f ms, %.2f GFLOPS\" % (" << pyString(v.name)
        << ", ms, flops / (ms * 1e6)))\n";
    return out.str();
}

} // namespace loopscope
