#include "export/TvmTensorIR.h"

#include "export/PythonText.h"
#include "export/TvmScript.h"
#include "ir/GpuTarget.h"
#include "ir/Printer.h"
#include "runtime/Check.h"
#include "runtime/FlopCount.h"

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

std::string exportTensorIRScript(const Program& p, const Variant& v,
                                 const TvmTensorIRExport& options)
{
    const TirFunc* declared = v.snapshots.front().tensorIR();
    LS_ASSERT(declared, "TensorIR export of a variant that is not TensorIR");
    const bool s26 = options.spelling == TirSpelling::Tvm026;
    const std::string target = options.target.empty() ? v.target : options.target;
    const bool gpu = isGpuTarget(target);
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
        << "lib = " << build << "(sch.mod, target=" << python::string(gpu ? "cuda" : target)
        << ")\n"
        << "func = lib[" << python::string(declared->name) << "]\n\n"
        << "# Seeded random inputs, zeroed outputs.\n"
        << "rng = np.random.default_rng(1)\n";
    std::string args, refArgs;
    std::vector<Tensor> outputs;
    for (const Tensor& t : declared->params) {
        const std::string shape = python::shape(t, {}, v.loc);
        out << "np_" << t->name << " = "
            << (t->isPlaceholder()
                    ? python::randomArray(t->dtype, shape)
                    : "np.zeros(" + shape + ", dtype=" + python::string(t->dtype.str()) + ")")
            << "\n";
        args += (args.empty() ? "" : ", ") + ("nd_" + t->name);
        refArgs += (refArgs.empty() ? "" : ", ") + ("ref_" + t->name);
        if (t->isCompute()) outputs.push_back(t);
    }
    for (const Tensor& t : declared->params)
        out << "nd_" << t->name << " = " << tensor << "(np_" << t->name << ", dev)\n";
    out << "func(" << args << ")\n\n"
        << "# The reference: the function as declared (no schedule), built for the CPU.\n"
        << "ref = " << build << "(Module, target=\"llvm\")[" << python::string(declared->name)
        << "]\n";
    for (const Tensor& t : declared->params)
        out << "ref_" << t->name << " = " << tensor << "(np_" << t->name << ", tvm.cpu(0))\n";
    out << "ref(" << refArgs << ")\n";
    for (const Tensor& t : outputs) {
        const Tolerance tol = defaultTolerance(t->dtype);
        out << "np.testing.assert_allclose(nd_" << t->name << ".numpy(), ref_" << t->name
            << ".numpy(), rtol=" << python::number(tol.rtol)
            << ", atol=" << python::number(tol.atol) << ")\n";
    }
    out << "if os.environ.get(\"LOOPSCOPE_PRINT_SCHEDULED\"):\n"
        << "    print(sch.mod.script())\n\n"
        << "# Time it: the median of 3 measurements of 10 runs each. The operation count is\n"
        << "# Loopscope's: the floating-point operations of each compute body times its domain.\n"
        << "flops = " << python::number(flopCount(v.snapshots.front().outputs())) << "\n"
        << "evaluator = lib.time_evaluator(" << python::string(declared->name)
        << ", dev, number=10, repeat=3)\n"
        << "ms = evaluator(" << args << ").median * 1e3\n"
        << "print(\"%s: %.3f ms, %.2f GFLOPS\" % (" << python::string(v.name)
        << ", ms, flops / (ms * 1e6)))\n";
    return out.str();
}

} // namespace loopscope
