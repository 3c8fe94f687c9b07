#include "export/Export.h"

#include "codegen/Codegen.h"
#include "codegen/Nvptx.h"
#include "export/CSource.h"
#include "export/CudaSource.h"
#include "export/TvmScript.h"
#include "export/TvmTensorIR.h"
#include "lower/Lower.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "lower/gpu/ThreadSync.h"
#include "runtime/VariantRun.h"

#include <optional>
#include <stdexcept>

namespace loopscope {

bool isTvmRelease(const std::string& release)
{
    for (int minor = 17; minor <= 26; ++minor)
        if (release == "0." + std::to_string(minor)) return true;
    return false;
}

int tvmMinor(const std::string& release)
{
    LS_ASSERT(isTvmRelease(release), "not a TVM release: " << release);
    return std::stoi(release.substr(2));
}

TirSpelling tirSpellingOf(const std::string& release)
{
    return tvmMinor(release) >= 24 ? TirSpelling::Tvm026 : TirSpelling::Tvm020;
}

ExportResult exportVariant(const std::string& scriptText, const Program& program,
                           const Variant& variant, const ExportOptions& options)
{
    const std::string& format = options.format;
    ExportResult out;
    out.function = exportedFunctionName(variant);
    if (format == "tvm") {
        const std::string release = options.tvmRelease.empty() ? "0.17" : options.tvmRelease;
        const int minor = tvmMinor(release);
        out.suffix = ".py";
        if (variant.snapshots.front().tensorIR()) {
            if (minor < 20)
                throw UserError(variant.loc,
                                "variant '" + variant.name +
                                    "' is scheduled with tir.Schedule: export it for TVM 0.20 "
                                    "or later (--tvm 0.20, --tvm 0.26)");
            TvmTensorIRExport tir;
            tir.source = options.sourceName;
            tir.release = release;
            tir.spelling = tirSpellingOf(release);
            tir.target = options.target;
            out.text = exportTensorIRScript(program, variant, tir);
            return out;
        }
        if (minor >= 20) {
            TvmTensorIRExport tir;
            tir.source = options.sourceName;
            tir.release = release;
            tir.spelling = tirSpellingOf(release);
            tir.target = options.target;
            out.text = exportTeAsTensorIR(scriptText, program, variant, tir);
            return out;
        }
        TvmScriptOptions tvm;
        tvm.source = options.sourceName;
        tvm.symbols = options.symbols;
        tvm.target = options.target;
        out.text = exportTvmScript(scriptText, program, variant, tvm);
        return out;
    }
    if (format == "tvm-trace") {
        const std::string release = options.tvmRelease.empty() ? "0.26" : options.tvmRelease;
        if (tvmMinor(release) < 20)
            throw UserError(variant.loc, "a trace is tir.Schedule's: --tvm 0.20 to 0.26");
        const TirSpelling spelling = tirSpellingOf(release);
        out.suffix = ".json";
        if (variant.snapshots.front().tensorIR()) {
            out.text = traceJson(variant, spelling);
            return out;
        }
        // A TE variant: the trace of its translation, read back as Loopscope reads the export.
        TvmTensorIRExport tir;
        tir.release = release;
        tir.spelling = spelling;
        std::string script = exportTeAsTensorIR(scriptText, program, variant, tir);
        script = script.substr(0, script.find(std::string("\n") + kTvmRunMarker + "\n") + 1);
        std::map<std::string, std::int64_t> sizes;
        for (const Parameter& p : program.parameters)
            sizes[p.name] = p.value;
        EvalResult back = evaluateScript(script, sizes);
        LS_ASSERT(back.ok && back.program.variants.size() == 1,
                  "the translation of '" << variant.name
                                         << "' does not read back: " << back.error.message);
        out.text = traceJson(back.program.variants.front(), spelling);
        return out;
    }
    if (format != "c" && format != "llvm" && format != "asm" && format != "obj" &&
        format != "ptx" && format != "cuda")
        throw std::invalid_argument("unknown format '" + format +
                                    "' (tvm, tvm-trace, c, llvm, asm, obj, ptx or cuda)");
    // A target LLVM cannot generate code for is a CodegenError from emitCode.
    const std::string& target = options.target.empty() ? variant.target : options.target;
    const Schedule& schedule = options.step < 0
                                   ? variant.schedule()
                                   : variant.snapshots.at(static_cast<std::size_t>(options.step));
    LoweredFunc f = lowerSchedule(schedule, variant.args, variant.funcName);
    f.func.name = out.function;
    if (format == "cuda") {
        // The kernels as CUDA C, as TVM's get_source() shows them; no architecture is involved.
        out.text = exportCudaSource(f.func);
        out.suffix = ".cu";
        return out;
    }
    if (format == "ptx") {
        // The GPU build's device code: tvm.build's barriers, each kernel through NVPTX. A CPU
        // target on the variant is no GPU's: then the oldest architecture (sm_50), as TVM.
        const std::string gpu = isGpuTarget(target) ? target : "cuda";
        std::string why;
        std::optional<GpuTarget> t = parseGpuTarget(gpu, &why);
        if (!t) throw CodegenError("target '" + gpu + "': " + why);
        f.func.body = lowerForDevice(f.func.body, false);
        out.text = generatePtx(f.func, *t).ptx;
        out.suffix = ".ptx";
        return out;
    }
    if (isGpuTarget(target))
        throw CodegenError("target '" + target +
                           "' is a GPU's: export its kernels with --format "
                           "ptx or cuda (CPU formats: c, llvm, asm, obj)");
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
