#include "Cli.h"
#include "Commands.h"

#include "codegen/Codegen.h"
#include "export/Export.h"
#include "export/TensorIRScript.h"
#include "ir/GpuTarget.h"
#include "protocol/Codec.h"
#include "runtime/GpuRun.h"
#include "runtime/LocalRun.h"
#include "runtime/VariantRun.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace loopscope::cli {

namespace {

struct ExportArgs : Options {
    std::string format;     // --format tvm, c, llvm, asm or obj
    std::string output;     // -o OUT
    bool lines = false;     // --lines
    std::string tvmRelease; // --tvm 0.17 ... 0.26
};

} // namespace

json kernelBundle(const Options& o, const Program& program, const Variant& v)
{
    const std::string target = isGpuTarget(o.target)   ? o.target
                               : isGpuTarget(v.target) ? v.target
                                                       : "cuda";
    std::string why;
    const std::optional<GpuTarget> gpu = parseGpuTarget(target, &why);
    if (!gpu) throw CodegenError("target '" + target + "': " + why);
    VariantRunOptions options;
    options.config.symbols = o.symbols;
    options.config.jit = &cliJit(o);
    auto run = PreparedRun::prepare(program, v, options.config);
    if (!run->isGpu())
        throw CodegenError("it binds no loop to a GPU thread: a bundle holds GPU kernels");
    BenchmarkOptions timing;
    timing.repeat = 10;
    protocol::GpuRunRequest request = gpuRunRequest(*run, gpu->sm ? gpu->sm : 50, timing);
    request.warmup = 2;
    request.number = 0; // the runner fills each repeat with as many runs as take about 5 ms
    askForReference(*run, request);
    json bundle;
    bundle["loopscope_bundle"] = 1;
    bundle["script"] = std::filesystem::path(o.file).filename().string();
    bundle["variant"] = v.name;
    bundle["flops"] = run->flops();
    bundle["moved_bytes"] = argumentBytes(*run);
    bundle["arch"] = "sm_" + std::to_string(gpu->sm ? gpu->sm : 50);
    bundle["parameters"] = parametersJson(program, o);
    bundle["request"] = json::parse(protocol::encodeRequest(request, 1));
    json expected = json::array();
    for (const ExpectedValues& e : expectedValues(*run, 1000, 17))
        expected.push_back({{"buffer", e.buffer},
                            {"tensor", e.tensor},
                            {"rtol", e.rtol},
                            {"atol", e.atol},
                            {"indices", e.indices},
                            {"values", e.values}});
    bundle["expected"] = expected;
    return bundle;
}

namespace {

int exportVariant(ExportArgs& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return kDocumentError;
    // Without --variant, a script's only variant.
    if (o.variants.empty() && r.program.variants.size() != 1) {
        throw UsageError("export needs --variant NAME: " + o.file + " has " +
                             std::to_string(r.program.variants.size()) + " variants (" +
                             variantList(r.program) + ")",
                         false);
    }
    const Variant& v = *selectVariants(o, r.program).front();
    ExportOptions options;
    options.format = o.format;
    options.target = o.target;
    options.sourceName = std::filesystem::path(o.file).filename().string();
    options.symbols = o.symbols;
    options.lineInfo = o.lines;
    options.tvmRelease = o.tvmRelease;
    if (!o.tvmRelease.empty() && o.format != "tvm" && o.format != "tvm-trace")
        std::cerr << "loopscope-cli: note: --tvm is for --format tvm and tvm-trace\n";
    if (o.lines && (o.format == "tvm" || o.format == "c"))
        std::cerr << "loopscope-cli: note: --lines is for llvm, asm and obj\n";
    if (o.format == "c" && !o.target.empty())
        std::cerr << "loopscope-cli: note: --target does not change C source\n";
    const std::string& target = o.target.empty() ? v.target : o.target;
    if (o.format != "tvm" && o.format != "tvm-trace" && o.format != "c" && o.format != "cuda" &&
        o.format != "bundle" && !isGpuTarget(target)) {
        try {
            checkTarget(target);
        } catch (const CodegenError& e) {
            if (!o.target.empty()) throw UsageError(std::string("--target: ") + e.what(), false);
            reportDiagnostic(
                o, Diagnostic{v.targetLoc, std::string("target '") + target + "': " + e.what()});
            return kDocumentError;
        }
    }
    if (o.format != "tvm" && o.format != "tvm-trace" && o.format != "ptx" && o.format != "cuda" &&
        o.format != "bundle")
        noteThreadBindings(o, v);
    std::string text;
    std::vector<std::pair<std::string, std::string>> files; // path, contents
    try {
        if (o.format == "bundle") {
            text = kernelBundle(o, r.program, v).dump() + "\n";
        } else {
            std::string source;
            if (o.format == "tvm" || o.format == "tvm-trace") readFile(o.file, &source);
            ExportResult exported = exportVariant(source, r.program, v, options);
            text = std::move(exported.text);
            if (!exported.header.empty())
                files.push_back({std::filesystem::path(o.output).replace_extension(".h").string(),
                                 exported.header});
        }
    } catch (const UserError& e) {
        reportDiagnostic(o, e.diagnostic());
        return kDocumentError;
    } catch (const CodegenError& e) {
        reportDiagnostic(o, Diagnostic{v.loc, "variant '" + v.name + "' cannot be exported as " +
                                                  o.format + ": " + e.what()});
        return kDocumentError;
    }
    if (o.output.empty()) {
        std::cout << text;
        return kOk;
    }
    files.insert(files.begin(), {o.output, text});
    for (auto& [path, contents] : files)
        if (!writeFile(path, contents)) throw cannotWrite(path);
    return kOk;
}

int convertScript(ExportArgs& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return kDocumentError;
    std::string source;
    if (!readFile(o.file, &source)) throw UsageError("cannot read " + o.file, false);
    ConvertedScript converted;
    try {
        converted = convertToTensorIR(source, r.program, tirSpellingOf(o.tvmRelease));
    } catch (const UserError& e) {
        reportDiagnostic(o, e.diagnostic());
        return kDocumentError;
    }
    for (const ConvertedVariant& v : converted.variants) {
        const Variant* was = r.program.findVariant(v.name);
        if (!v.converted)
            reportDiagnostic(o, Diagnostic{v.calls.error.loc,
                                           "variant '" + v.name +
                                               "' stays a TE schedule: " + v.calls.error.message});
        else if (!v.checkError.empty())
            reportDiagnostic(o, Diagnostic{was->loc, "variant '" + v.name +
                                                         "' converted, but its loop nest is not "
                                                         "the TE schedule's: " +
                                                         v.checkError});
    }
    if (o.output.empty())
        std::cout << converted.text;
    else if (!writeFile(o.output, converted.text))
        throw cannotWrite(o.output);
    return converted.allConverted() ? kOk : kDocumentError;
}

} // namespace

int commandConvert(int argc, char** argv)
{
    ExportArgs o;
    parseCommand(argc, argv, o,
                 join({scriptOptions(o),
                       {{"--tvm", "", true,
                         [&](const std::string& v) {
                             if (!isTvmRelease(v) || tvmMinor(v) < 20)
                                 throw UsageError("--tvm '" + v +
                                                      "': a TVM release with tir.Schedule, from "
                                                      "0.20 to 0.26",
                                                  false);
                             o.tvmRelease = v;
                         }},
                        {"--output", "-o", true, [&](const std::string& v) { o.output = v; }}}}));
    if (o.tvmRelease.empty()) o.tvmRelease = "0.26";
    if (!o.variants.empty()) throw UsageError("convert writes the whole script: no --variant");
    return convertScript(o);
}

int commandExport(int argc, char** argv)
{
    ExportArgs o;
    parseCommand(
        argc, argv, o,
        join({scriptOptions(o),
              {{"--format", "", true, [&](const std::string& v) { o.format = v; }},
               {"--tvm", "", true,
                [&](const std::string& v) {
                    if (!isTvmRelease(v))
                        throw UsageError("--tvm '" + v + "': a TVM release from 0.17 to 0.26",
                                         false);
                    o.tvmRelease = v;
                }},
               {"--lines", "", false, [&](const std::string&) { o.lines = true; }},
               {"--output", "-o", true, [&](const std::string& v) { o.output = v; }},
               {"--target", "", true, [&](const std::string& v) {
                    o.target = v;
                    std::string why;
                    if (isGpuTarget(o.target) && !parseGpuTarget(o.target, &why))
                        throw UsageError("--target '" + o.target + "': " + why, false);
                    if (o.target.rfind("llvm", 0) != 0 && !isGpuTarget(o.target))
                        throw UsageError("--target '" + o.target +
                                             "' is not supported: Loopscope generates code for "
                                             "CPUs (\"llvm ...\") and NVIDIA GPUs (\"cuda "
                                             "-arch=sm_80\", \"nvptx -mcpu=sm_80\")",
                                         false);
                }}}}));
    if (o.variants.size() > 1)
        throw UsageError("export writes one variant: give one --variant NAME");
    if (o.format.empty())
        throw UsageError("export needs --format tvm|tvm-trace|c|llvm|asm|obj|ptx|cuda|bundle");
    if (o.format != "bundle" && std::find(std::begin(kExportFormats), std::end(kExportFormats),
                                          o.format) == std::end(kExportFormats))
        throw UsageError("unknown format '" + o.format +
                         "' (tvm, tvm-trace, c, llvm, asm, obj, ptx, cuda or bundle)");
    if (isGpuTarget(o.target) && o.format != "ptx" && o.format != "cuda" && o.format != "tvm" &&
        o.format != "tvm-trace" && o.format != "bundle")
        throw UsageError("--target '" + o.target +
                             "' names a GPU: its kernels export with --format ptx, cuda or bundle",
                         false);
    if (o.format == "obj" && o.output.empty()) throw UsageError("--format obj needs -o OUT");
    if (o.format == "obj" && std::filesystem::path(o.output).extension() == ".h")
        throw UsageError(
            "-o " + o.output +
            ": the object's header goes next to it as .h; name the object differently");
    return exportVariant(o);
}

} // namespace loopscope::cli
