// The module and the target: buildModule (the code generator, CodegenLLVMInternal.h, over one
// function), LLVM's optimization pipeline, and target machines for the host or a named CPU.
#include "codegen/CodegenLLVM.h"

#include "codegen/CodegenLLVMInternal.h"

#include "ir/IRUtil.h"
#include "lower/CSignature.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>

namespace loopscope {

// The LLVM IR a schedule's pragma import_llvm gives (the tensorize tutorial's gemv_update): parsed
// into the kernel's context and linked into its module, its functions made the module's own so
// that kernels compiled side by side in one JIT do not define them twice.
void linkImportedLlvm(const PrimFunc& f, llvm::Module& m)
{
    std::vector<std::string> texts;
    anyAttr(f.body, [&](const AttrNode* a) {
        if (a->key != "pragma_import_llvm") return false;
        auto* text = a->value.as<StringImmNode>();
        if (!text)
            throw CodegenError("pragma import_llvm takes the LLVM IR of the functions it imports, "
                               "as a string");
        texts.push_back(text->value);
        return false;
    });
    for (const std::string& text : texts) {
        llvm::SMDiagnostic diag;
        std::unique_ptr<llvm::Module> imported =
            llvm::parseAssemblyString(text, diag, m.getContext());
        if (!imported)
            throw CodegenError("pragma import_llvm: its LLVM IR does not parse at line " +
                               std::to_string(diag.getLineNo()) + ", column " +
                               std::to_string(diag.getColumnNo()) + ": " + diag.getMessage().str());
        imported->setTargetTriple(m.getTargetTriple());
        imported->setDataLayout(m.getDataLayout());
        std::vector<std::string> defined;
        for (llvm::Function& fn : *imported)
            if (!fn.isDeclaration()) defined.push_back(fn.getName().str());
        if (llvm::Linker::linkModules(m, std::move(imported)))
            throw CodegenError("pragma import_llvm: its functions cannot be linked with the "
                               "kernel (a name defined twice, or types that differ)");
        for (const std::string& name : defined)
            if (llvm::Function* fn = m.getFunction(name))
                fn->setLinkage(llvm::GlobalValue::InternalLinkage);
    }
}

std::unique_ptr<llvm::Module> buildModule(const PrimFunc& f, llvm::LLVMContext& ctx,
                                          llvm::TargetMachine& tm, const LineOfStatement* lines)
{
    auto m = std::make_unique<llvm::Module>(f.name, ctx);
    m->setTargetTriple(tm.getTargetTriple().str());
    m->setDataLayout(tm.createDataLayout());
    codegen::Codegen cg(ctx, *m, tm);
    cg.build(f, sizeParameters(f), lines);
    linkImportedLlvm(f, *m);
    std::string err;
    llvm::raw_string_ostream os(err);
    LS_ASSERT(!llvm::verifyModule(*m, &os), "codegen produced an invalid module: " + os.str());
    return m;
}

void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel)
{
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    // Developer options (LOOPSCOPE_LLVM_ARGS="-time-passes -print-after=licm ...") need the
    // standard instrumentation; without them the pipeline runs bare.
    llvm::PassInstrumentationCallbacks pic;
    std::optional<llvm::StandardInstrumentations> si;
    if (std::getenv("LOOPSCOPE_LLVM_ARGS")) {
        si.emplace(m.getContext(), false);
        si->registerCallbacks(pic, &fam);
    }
    llvm::PassBuilder pb(&tm, pto, std::nullopt, &pic);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level = optLevel <= 0   ? llvm::OptimizationLevel::O0
                                    : optLevel == 1 ? llvm::OptimizationLevel::O1
                                    : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                    : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                      ? pb.buildO0DefaultPipeline(level)
                                      : pb.buildPerModuleDefaultPipeline(level);
    mpm.run(m, mam);
}

llvm::TargetOptions hostTargetOptions()
{
    llvm::TargetOptions options;
    options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    return options;
}

namespace {

// The native target, and LLVM's options from LOOPSCOPE_LLVM_ARGS: once per process.
void initializeLlvm()
{
    static std::once_flag once;
    std::call_once(once, [] {
        // LLVM cannot go on after a fatal error or a failed allocation: say so in plain words and
        // end the process with a status (the window restarts its worker and shows the message),
        // never an abort with a backtrace.
        llvm::install_fatal_error_handler([](void*, const char* reason, bool) {
            std::fprintf(stderr,
                         "loopscope: the code generator (LLVM) could not finish: %s\n"
                         "(try smaller sizes, fewer unrolled loops, or a smaller vector width)\n",
                         reason);
            std::_Exit(1);
        });
        llvm::install_bad_alloc_error_handler([](void*, const char* reason, bool) {
            std::fprintf(stderr,
                         "loopscope: out of memory while generating code (%s); try smaller "
                         "sizes\n",
                         reason);
            std::_Exit(1);
        });
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();
        llvm::InitializeNativeTargetDisassembler(); // the instructions of profiled kernels
        std::vector<std::string> words{"LOOPSCOPE_LLVM_ARGS"}; // names the source of a bad option
        const char* args = std::getenv("LOOPSCOPE_LLVM_ARGS");
        std::string given = args ? args : "";
#if LLVM_VERSION_MAJOR < 17
        // LLVM 16's loop vectorizer can move the load of an interleaved group (a[3i], a[3i+1],
        // a[3i+2] read as one wide load) above a store to one of those addresses that comes
        // before it in the loop, and so read stale values (LLVM issue 63602, fixed in 17). A
        // pooling loop's edge-free copy met it: sums off by the elements added before. Without
        // interleaved groups such accesses become gathers or stay scalar; none of the samples'
        // schedules uses one.
        if (given.find("interleaved-mem-accesses") == std::string::npos)
            words.emplace_back("-enable-interleaved-mem-accesses=false");
#endif
        std::istringstream in(given);
        for (std::string w; in >> w;)
            words.push_back(w);
        std::vector<const char*> argv;
        for (auto& w : words)
            argv.push_back(w.c_str());
        llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "",
                                          &llvm::errs());
    });
}

} // namespace

std::unique_ptr<llvm::TargetMachine> createHostTargetMachine()
{
    return createTargetMachine(TargetChoice{});
}

TargetChoice parseTarget(const std::string& target)
{
    TargetChoice c;
    std::istringstream in(target);
    std::string word;
    in >> word; // "llvm" (the evaluator accepts no other kind)
    auto value = [&](const std::string& option) -> std::optional<std::string> {
        if (word.rfind(option, 0) != 0) return std::nullopt;
        return word.substr(option.size());
    };
    while (in >> word) {
        if (auto v = value("-mcpu=")) {
            c.cpu = *v == "native" ? "" : *v;
        } else if (auto v = value("-mattr=")) {
            std::istringstream list(*v);
            for (std::string a; std::getline(list, a, ',');)
                if (!a.empty()) c.attrs.push_back(a[0] == '+' || a[0] == '-' ? a : "+" + a);
        } else if (auto v = value("-mtriple=")) {
            c.triple = *v;
        } else if (word == "-mcpu" || word == "-mattr" || word == "-mtriple") {
            throw CodegenError("write " + word + "=VALUE, without a space");
        } else if (word.rfind("-m", 0) == 0 && !value("-mfloat-abi=") && !value("-mabi=")) {
            throw CodegenError(
                "'" + word +
                "' is not an option of TVM's llvm target (-mcpu=, -mattr=, -mtriple=, ...)");
        } else if (word[0] != '-') {
            throw CodegenError("'" + word +
                               "' is not an option: they start with '-' (e.g. -mcpu=znver4)");
        }
    }
    // ELF for x86-64 Linux: what the exported header, the C harness and the JIT's objects are.
    if (!c.triple.empty() &&
        (c.triple.rfind("x86_64-", 0) != 0 || c.triple.find("linux") == std::string::npos ||
         c.triple.find("x32") != std::string::npos))
        throw CodegenError("target triple '" + c.triple +
                           "' is not supported: Loopscope generates x86-64 Linux code");
    return c;
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetChoice& choice)
{
    initializeLlvm();
    std::string triple = choice.triple.empty() ? llvm::sys::getProcessTriple() : choice.triple;
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) throw CodegenError("target triple '" + triple + "' is not supported: " + error);
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
    if (!choice.cpu.empty() && !info->isCPUStringValid(choice.cpu))
        throw CodegenError("-mcpu=" + choice.cpu +
                           " names no CPU LLVM " LLVM_VERSION_STRING
                           " knows (e.g. znver4, skylake-avx512, x86-64-v3)");
    llvm::StringMap<bool> detected; // every feature host detection asks about, on or off
    const bool hostKnown = llvm::sys::getHostCPUFeatures(detected);
    // A named CPU brings its own features; without one, the host's, changed by -mattr.
    std::string features;
    if ((choice.cpu.empty() || choice.hostFeatures) && hostKnown)
        for (auto& f : detected)
            features +=
                (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
    auto bits = [&](const std::string& fs) {
        return std::unique_ptr<llvm::MCSubtargetInfo>(target->createMCSubtargetInfo(triple, "", fs))
            ->getFeatureBits();
    };
    for (auto& a : choice.attrs) {
        std::string name = a.substr(1);
        // Other names LLVM knows turn a feature bit on (none is on for the generic CPU but those
        // host detection knows); one it does not know leaves them as they are, with a warning.
        bool known = detected.count(name) || bits("+" + name) != bits("");
        if (!known)
            throw CodegenError("-mattr: '" + name +
                               "' is not a feature LLVM " LLVM_VERSION_STRING
                               " knows for x86-64 (e.g. avx512f, fma)");
        features += (features.empty() ? "" : ",") + a;
    }
    std::string cpu = choice.cpu.empty() ? hostCpu().name : choice.cpu;
    auto* tm =
        target->createTargetMachine(triple, cpu, features, hostTargetOptions(), llvm::Reloc::PIC_,
                                    llvm::CodeModel::Small, llvm::CodeGenOpt::Aggressive);
    return std::unique_ptr<llvm::TargetMachine>(tm);
}

HostTarget hostTarget()
{
    auto tm = createHostTargetMachine();
    HostTarget h;
    h.triple = tm->getTargetTriple().str();
    h.cpu = tm->getTargetCPU().str();
    h.llvmCpu = hostCpu().llvmName;
    h.cpuReason = hostCpu().reason;
    h.features = tm->getTargetFeatureString().str();
    h.llvmVersion = LLVM_VERSION_STRING;
    h.vectorBits = h.features.find("+avx512f") != std::string::npos ? 512
                   : h.features.find("+avx") != std::string::npos   ? 256
                                                                    : 128;
    return h;
}

} // namespace loopscope
