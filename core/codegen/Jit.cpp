#include "codegen/CodegenLLVM.h"

#include "ir/IRMutator.h"
#include "ir/Printer.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

namespace {

// The blocks a thread freed last, kept for its next allocations of the same size (TVM's
// workspace pool does the same): a kernel that allocates a large temporary on every run (the
// transformed tiles of a Winograd convolution) would otherwise map fresh pages from the system
// and fault each one in, every run, where the allocator hands blocks over its mmap threshold
// back at once.
class WorkspaceCache {
public:
    static constexpr std::size_t kHeader = 64; // the block's size, keeping the data aligned
    static constexpr int kBlocks = 8;
    static constexpr std::size_t kMostBytes = std::size_t{256} << 20;

    ~WorkspaceCache()
    {
        for (int i = 0; i < m_count; ++i)
            std::free(m_blocks[i]);
    }
    void* take(std::size_t size)
    {
        for (int i = 0; i < m_count; ++i) {
            if (sizeOf(m_blocks[i]) != size) continue;
            void* block = m_blocks[i];
            m_bytes -= size;
            m_blocks[i] = m_blocks[--m_count];
            return block;
        }
        void* block = std::aligned_alloc(64, size + kHeader);
        if (block) *static_cast<std::size_t*>(block) = size;
        return block;
    }
    void give(void* block)
    {
        const std::size_t size = sizeOf(block);
        if (size > kMostBytes / 2) {
            std::free(block);
            return;
        }
        while (m_count > 0 && (m_count == kBlocks || m_bytes + size > kMostBytes)) {
            m_bytes -= sizeOf(m_blocks[0]); // the oldest
            std::free(m_blocks[0]);
            for (int i = 1; i < m_count; ++i)
                m_blocks[i - 1] = m_blocks[i];
            --m_count;
        }
        m_blocks[m_count++] = block;
        m_bytes += size;
    }

private:
    static std::size_t sizeOf(void* block) { return *static_cast<std::size_t*>(block); }
    void* m_blocks[kBlocks] = {};
    int m_count = 0;
    std::size_t m_bytes = 0;
};

thread_local WorkspaceCache t_workspaces;

} // namespace

extern "C" {
// Heap storage for large buffers of generated code, 64-byte aligned.
void* loopscope_alloc(std::int64_t bytes)
{
    std::size_t size = (static_cast<std::size_t>(bytes) + 63) / 64 * 64;
    auto* block = static_cast<char*>(t_workspaces.take(size == 0 ? 64 : size));
    return block ? block + WorkspaceCache::kHeader : nullptr;
}
void loopscope_free(void* p)
{
    if (p) t_workspaces.give(static_cast<char*>(p) - WorkspaceCache::kHeader);
}
}

namespace loopscope {

namespace {

std::string errorText(llvm::Error e)
{
    std::string s;
    llvm::raw_string_ostream os(s);
    os << e;
    return os.str();
}

// One target machine per compiling thread: it caches the subtarget (instruction, register and
// lowering tables) that a new one would build again for every kernel. Not shared across threads,
// as that cache is not locked.
llvm::TargetMachine* threadTargetMachine()
{
    thread_local std::unique_ptr<llvm::TargetMachine> tm = createHostTargetMachine();
    return tm.get();
}

// The same for machines target strings name. A few are kept: the editor asks again for every
// version of the text as the user types one.
llvm::TargetMachine* threadTargetMachine(const std::string& target)
{
    TargetChoice choice = parseTarget(target);
    if (choice.isHost()) return threadTargetMachine();
    thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
    auto it = machines.find(target);
    if (it != machines.end()) return it->second.get();
    auto tm = createTargetMachine(choice); // throws before anything is kept
    if (machines.size() >= 4) machines.clear();
    return machines.emplace(target, std::move(tm)).first->second.get();
}

// One for the host's features scheduled as another CPU model (Jit::create's `cpu`).
llvm::TargetMachine* threadTargetMachineAs(const std::string& cpu)
{
    if (cpu.empty()) return threadTargetMachine();
    thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
    auto it = machines.find(cpu);
    if (it != machines.end()) return it->second.get();
    TargetChoice choice;
    choice.cpu = cpu;
    choice.hostFeatures = true;
    auto tm = createTargetMachine(choice);
    return machines.emplace(cpu, std::move(tm)).first->second.get();
}

// The code section of an object and its line table: every function of a kernel is in one
// `.text` section, placed whole by the JIT, so one known symbol (`entry` at `entryAddress`)
// gives where the section was loaded.
// The kernel's instructions, decoded with the target's disassembler and printed as the
// assembly view prints them.
void disassemble(KernelLines& lines, llvm::TargetMachine& tm)
{
    const llvm::Target& target = tm.getTarget();
    const llvm::Triple& triple = tm.getTargetTriple();
    std::unique_ptr<llvm::MCRegisterInfo> mri(target.createMCRegInfo(triple.str()));
    llvm::MCTargetOptions options;
    std::unique_ptr<llvm::MCAsmInfo> mai(target.createMCAsmInfo(*mri, triple.str(), options));
    std::unique_ptr<llvm::MCSubtargetInfo> sti(
        target.createMCSubtargetInfo(triple.str(), tm.getTargetCPU(), tm.getTargetFeatureString()));
    std::unique_ptr<llvm::MCInstrInfo> mii(target.createMCInstrInfo());
    if (!mri || !mai || !sti || !mii) return;
    llvm::MCContext ctx(triple, mai.get(), mri.get(), sti.get());
    std::unique_ptr<llvm::MCDisassembler> dis(target.createMCDisassembler(*sti, ctx));
    std::unique_ptr<llvm::MCInstPrinter> printer(
        target.createMCInstPrinter(triple, 0, *mai, *mii, *mri));
    if (!dis || !printer) return;
    const auto bytes = llvm::ArrayRef<std::uint8_t>(
        reinterpret_cast<const std::uint8_t*>(lines.code.data()), lines.code.size());
    for (std::uint64_t at = 0; at < bytes.size();) {
        llvm::MCInst inst;
        std::uint64_t size = 0;
        const auto status = dis->getInstruction(inst, size, bytes.slice(at), at, llvm::nulls());
        if (size == 0) size = 1;
        std::string text;
        llvm::raw_string_ostream os(text);
        if (status == llvm::MCDisassembler::Success)
            printer->printInst(&inst, at, "", *sti, os);
        else
            os << "\t(bad)";
        os.flush();
        lines.instructionOffsets.push_back(static_cast<std::uint32_t>(at));
        lines.instructionText.push_back(text);
        at += size;
    }
}

std::unique_ptr<KernelLines> readLineTable(const llvm::SmallVectorImpl<char>& bytes,
                                           const std::string& entry, std::uint64_t entryAddress,
                                           llvm::TargetMachine& tm)
{
    auto lines = std::make_unique<KernelLines>();
    auto buffer = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(bytes.data(), bytes.size()),
                                                   "kernel", false);
    auto object = llvm::object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
    LS_ASSERT(static_cast<bool>(object),
              "the kernel's object cannot be read: " + errorText(object.takeError()));
    std::optional<llvm::object::SectionRef> text;
    for (const llvm::object::SectionRef& section : (*object)->sections()) {
        auto name = section.getName();
        if (name && *name == ".text") text = section;
    }
    LS_ASSERT(text.has_value(), "the kernel's object has no .text section");
    auto contents = text->getContents();
    LS_ASSERT(static_cast<bool>(contents), "the kernel's code cannot be read");
    lines->code = contents->str();
    std::uint64_t entryOffset = 0;
    for (const llvm::object::SymbolRef& sym : (*object)->symbols()) {
        auto name = sym.getName();
        auto address = sym.getAddress();
        if (name && address && *name == entry)
            entryOffset = *address;
        else if (!name)
            llvm::consumeError(name.takeError());
        if (!address) llvm::consumeError(address.takeError());
    }
    lines->codeStart = static_cast<std::uintptr_t>(entryAddress - entryOffset);
    auto dwarf = llvm::DWARFContext::create(**object);
    std::vector<std::pair<std::uint32_t, int>> rows;
    for (const auto& unit : dwarf->compile_units()) {
        const llvm::DWARFDebugLine::LineTable* table = dwarf->getLineTableForUnit(unit.get());
        if (!table) continue;
        for (const llvm::DWARFDebugLine::Row& row : table->Rows) {
            if (row.Address.SectionIndex != text->getIndex()) continue;
            rows.emplace_back(static_cast<std::uint32_t>(row.Address.Address),
                              row.EndSequence ? 0 : static_cast<int>(row.Line));
        }
    }
    // By offset; where one sequence ends and the next begins at the same offset, the beginning
    // (a line) comes after the end (no line), so that the offset has its line.
    std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) {
        return a.first != b.first ? a.first < b.first : a.second == 0 && b.second != 0;
    });
    for (auto& [offset, line] : rows) {
        lines->rowOffsets.push_back(offset);
        lines->rowLines.push_back(line);
    }
    disassemble(*lines, tm);
    return lines;
}

} // namespace

// The LLJIT and its lock; every kernel lives under its own resource tracker and keeps the JIT
// alive for as long as it lives.
struct Jit::Impl {
    std::string cpu; // empty: the host's
    std::mutex mutex;
    std::unique_ptr<llvm::orc::LLJIT> lljit;
};

std::unique_ptr<Jit> Jit::create(const RuntimeEntries& entries, std::string* error,
                                 const std::string& cpu)
{
    auto fail = [error](const std::string& why) -> std::unique_ptr<Jit> {
        if (error) *error = why;
        return nullptr;
    };
    if (!entries.parallelFor) return fail("the JIT needs the runtime's parallel-loop entry");
    createHostTargetMachine(); // initializes the native target
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb)
        return fail("cannot describe the host CPU for the JIT: " + errorText(jtmb.takeError()));
    // The host's features as detected, scheduled for the host's CPU or the one asked for.
    if (!cpu.empty()) try {
            checkTarget("llvm -mcpu=" + cpu); // a CPU LLVM knows
        } catch (const CodegenError& e) {
            return fail(e.what());
        }
    jtmb->setCPU(cpu.empty() ? hostCpu().name : cpu);
    jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
    jtmb->setOptions(hostTargetOptions()); // without it, no fused multiply-add in JIT code
    auto built = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
    if (!built) return fail("cannot create the JIT: " + errorText(built.takeError()));
    auto impl = std::make_shared<Impl>();
    impl->lljit = std::move(*built);
    impl->cpu = cpu;
    auto& es = impl->lljit->getExecutionSession();
    auto& dl = impl->lljit->getDataLayout();
    llvm::orc::MangleAndInterner mangle(es, dl);
    llvm::orc::SymbolMap runtime;
    auto add = [&](const char* name, void* p) {
        runtime[mangle(name)] = llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(p),
                                                         llvm::JITSymbolFlags::Exported);
    };
    add("loopscope_parallel_for", reinterpret_cast<void*>(entries.parallelFor));
    add("loopscope_alloc", reinterpret_cast<void*>(&loopscope_alloc));
    add("loopscope_free", reinterpret_cast<void*>(&loopscope_free));
    if (auto err = impl->lljit->getMainJITDylib().define(llvm::orc::absoluteSymbols(runtime)))
        return fail("cannot give the JIT its runtime entries: " + errorText(std::move(err)));
    // libm (expf, tanhf, ...) from the process.
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(dl.getGlobalPrefix());
    if (gen) impl->lljit->getMainJITDylib().addGenerator(std::move(*gen));
    return std::unique_ptr<Jit>(new Jit(std::move(impl)));
}

Jit::Jit(std::shared_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Jit::~Jit() = default;

struct JitKernel::Impl {
    std::shared_ptr<Jit::Impl> jit;
    llvm::orc::ResourceTrackerSP tracker;
};

JitKernel::JitKernel(std::unique_ptr<Impl> impl, std::vector<Var> sizes)
    : m_impl(std::move(impl)), m_sizes(std::move(sizes))
{
}

JitKernel::~JitKernel()
{
    if (m_impl && m_impl->tracker) {
        std::lock_guard<std::mutex> lock(m_impl->jit->mutex);
        llvm::cantFail(m_impl->tracker->remove());
    }
}

void JitKernel::run(void* const* buffers, const std::int64_t* sizes) const
{
    m_entry(const_cast<void**>(buffers), const_cast<std::int64_t*>(sizes));
}

namespace {

// A tensor intrinsic's C functions (call_extern) must be in the module (pragma import_llvm) or
// in this process to be called: refused by name before the JIT would fail to link them.
class ExternCalls : public IRVisitor {
public:
    std::set<std::string> names;

protected:
    void visitCall(const CallNode* op) override
    {
        IRVisitor::visitCall(op);
        if (op->op == CallOp::CallExtern || op->op == CallOp::CallPureExtern)
            names.insert(op->args[0].as<StringImmNode>()->value);
    }
};

void checkExternCalls(const PrimFunc& f, const llvm::Module& m)
{
    ExternCalls calls;
    calls.visit(f.body);
    for (const std::string& fn : calls.names) {
        const llvm::Function* decl = m.getFunction(fn);
        if (decl && !decl->isDeclaration()) continue;
        if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(fn))
            throw CodegenError("the program calls the C function '" + fn +
                               "' (call_extern), which nothing here defines: give its LLVM IR "
                               "with s[C].pragma(axis, \"import_llvm\", ir_text), or write the "
                               "intrinsic's body in TIR (vload, vstore, LLVM intrinsics)");
    }
}

} // namespace

std::unique_ptr<JitKernel> Jit::compile(const PrimFunc& f, int optLevel, bool lineInfo)
{
    Impl& jit = *m_impl;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    llvm::TargetMachine* tm = threadTargetMachineAs(jit.cpu);
    // A unique symbol per kernel: several kernels of the same name live in one JIT.
    static std::atomic<int> counter{0};
    PrimFunc named = f;
    named.name = scriptName(f.name) + "_k" + std::to_string(counter++);
    // Line info refers to the TIR as printed for the function's own name.
    PrintedFunction printed;
    LineOfStatement lineOf;
    if (lineInfo) {
        printed = printTVMScriptWithLines(f);
        for (std::size_t i = 0; i < printed.lineStatements.size(); ++i)
            for (const StmtNode* st : printed.lineStatements[i])
                lineOf.emplace(st, static_cast<int>(i + 1));
    }
    auto module = buildModule(named, *ctx, *tm, lineInfo ? &lineOf : nullptr);
    checkExternCalls(f, *module);
    optimizeModule(*module, *tm, optLevel);
    // Machine code is made here, on this thread's target machine, and only linked under the
    // JIT's lock: kernels compile side by side on several threads (a model's tasks do).
    llvm::SmallVector<char, 0> object;
    {
        llvm::raw_svector_ostream os(object);
        llvm::legacy::PassManager pm;
        LS_ASSERT(!tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile),
                  "the target machine cannot emit an object");
        pm.run(*module);
    }
    module.reset();
    ctx.reset();
    std::lock_guard<std::mutex> lock(jit.mutex);
    auto impl = std::make_unique<JitKernel::Impl>();
    impl->jit = m_impl;
    impl->tracker = jit.lljit->getMainJITDylib().createResourceTracker();
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(object.data(), object.size()), named.name);
    if (auto err = jit.lljit->addObjectFile(impl->tracker, std::move(buffer)))
        LS_ASSERT(false, "JIT cannot add the object: " + errorText(std::move(err)));
    auto sym = jit.lljit->lookup(named.name + "_packed");
    if (!sym) LS_ASSERT(false, "JIT lookup failed: " + errorText(sym.takeError()));
    auto kernel = std::make_unique<JitKernel>(std::move(impl), sizeParameters(f));
    kernel->m_entry = sym->toPtr<void (*)(void**, std::int64_t*)>();
    if (lineInfo) {
        auto entry = jit.lljit->lookup(named.name);
        if (!entry) LS_ASSERT(false, "JIT lookup failed: " + errorText(entry.takeError()));
        kernel->m_lines = readLineTable(object, named.name, entry->getValue(), *tm);
        kernel->m_lines->tir = std::move(printed.text);
    }
    return kernel;
}

int KernelLines::instructionAt(std::uintptr_t address) const
{
    if (!contains(address) || instructionOffsets.empty()) return -1;
    const auto offset = static_cast<std::uint32_t>(address - codeStart);
    auto it = std::upper_bound(instructionOffsets.begin(), instructionOffsets.end(), offset);
    if (it == instructionOffsets.begin()) return -1;
    return static_cast<int>(it - instructionOffsets.begin() - 1);
}

int KernelLines::lineAt(std::uintptr_t address) const
{
    if (!contains(address) || rowOffsets.empty()) return 0;
    const auto offset = static_cast<std::uint32_t>(address - codeStart);
    auto it = std::upper_bound(rowOffsets.begin(), rowOffsets.end(), offset);
    if (it == rowOffsets.begin()) return 0;
    return rowLines[static_cast<std::size_t>(it - rowOffsets.begin() - 1)];
}

void checkTarget(const std::string& target)
{
    threadTargetMachine(target);
}

bool targetIsHost(const std::string& target)
{
    if (parseTarget(target).isHost()) return true;
    llvm::TargetMachine* tm = threadTargetMachine(target);
    llvm::TargetMachine* host = threadTargetMachine();
    // (Only x86-64 Linux triples are accepted: their spellings differ, their code does not.)
    return tm->getTargetCPU() == host->getTargetCPU() &&
           tm->getMCSubtargetInfo()->getFeatureBits() ==
               host->getMCSubtargetInfo()->getFeatureBits();
}

std::string emitCode(const PrimFunc& f, EmitKind kind, const std::string& target, bool lineInfo)
{
    llvm::LLVMContext ctx;
    llvm::TargetMachine* tm = threadTargetMachine(target);
    PrimFunc named = f;
    named.name = scriptName(f.name);
    LineOfStatement lineOf;
    if (lineInfo) {
        PrintedFunction printed = printTVMScriptWithLines(f);
        for (std::size_t i = 0; i < printed.lineStatements.size(); ++i)
            for (const StmtNode* st : printed.lineStatements[i])
                lineOf.emplace(st, static_cast<int>(i + 1));
    }
    auto module = buildModule(named, ctx, *tm, lineInfo ? &lineOf : nullptr);
    if (kind != EmitKind::UnoptimizedLLVMIR) optimizeModule(*module, *tm);
    std::string out;
    llvm::raw_string_ostream os(out);
    if (kind == EmitKind::LLVMIR || kind == EmitKind::UnoptimizedLLVMIR) {
        module->print(os, nullptr);
        return os.str();
    }
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream bos(buffer);
    llvm::legacy::PassManager pm;
    auto type = kind == EmitKind::Assembly ? llvm::CGFT_AssemblyFile : llvm::CGFT_ObjectFile;
    LS_ASSERT(!tm->addPassesToEmitFile(pm, bos, nullptr, type),
              "the target machine cannot emit this file type");
    pm.run(*module);
    return std::string(buffer.begin(), buffer.end());
}

} // namespace loopscope
