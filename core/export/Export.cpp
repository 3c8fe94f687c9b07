#include "export/Export.h"

#include "codegen/Codegen.h"
#include "export/CSource.h"
#include "export/TvmScript.h"
#include "lower/Lower.h"
#include "runtime/VariantRun.h"

#include <stdexcept>

namespace loopscope {

ExportResult exportVariant(const std::string& scriptText, const Program& program,
                           const Variant& variant, const ExportOptions& options)
{
    const std::string& format = options.format;
    ExportResult out;
    out.function = exportedFunctionName(variant);
    if (format == "tvm") {
        TvmScriptOptions tvm;
        tvm.source = options.sourceName;
        tvm.symbols = options.symbols;
        tvm.target = options.target;
        out.text = exportTvmScript(scriptText, program, variant, tvm);
        out.suffix = ".py";
        return out;
    }
    if (format != "c" && format != "llvm" && format != "asm" && format != "obj")
        throw std::invalid_argument("unknown format '" + format + "' (tvm, c, llvm, asm or obj)");
    // A target LLVM cannot generate code for is a CodegenError from emitCode.
    const std::string& target = options.target.empty() ? variant.target : options.target;
    const Schedule& schedule = options.step < 0
                                   ? variant.schedule()
                                   : variant.snapshots.at(static_cast<std::size_t>(options.step));
    LoweredFunc f = lowerSchedule(schedule, variant.args, variant.funcName);
    f.func.name = out.function;
    if (format == "c") {
        std::string title = options.sourceName.empty()
                                ? "variant " + variant.name
                                : options.sourceName + ", variant " + variant.name;
        out.text = exportCSource(f.func, title);
        out.suffix = ".c";
    } else if (format == "llvm") {
        out.text = emitCode(f.func, EmitKind::LLVMIR, target, options.lineInfo);
        out.suffix = ".ll";
    } else if (format == "asm") {
        out.text = emitCode(f.func, EmitKind::Assembly, target, options.lineInfo);
        out.suffix = ".s";
    } else {
        out.text = emitCode(f.func, EmitKind::Object, target, options.lineInfo);
        out.header = exportCHeader(f.func);
        out.suffix = ".o";
        out.binary = true;
    }
    return out;
}

} // namespace loopscope
