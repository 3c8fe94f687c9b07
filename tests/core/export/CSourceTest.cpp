// The C export runs: every variant of the samples, exported as C, compiled by gcc (-O3 -fopenmp,
// warnings as errors), loaded and run on seeded inputs, computes what the reference interpreter
// says. Plus the C semantics the samples do not reach (floor division of negative numbers) and
// the header of an exported object.
#include "export/CSource.h"
#include "codegen/Codegen.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/Buffer.h"
#include "runtime/Check.h"
#include "runtime/Reference.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include "support/FlatBuffer.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace loopscope;
using loopscope::testsupport::flatBuffer;

namespace {

struct Sample {
    const char* file;
    std::map<std::string, std::int64_t> sizes;
};

const Sample kSamples[] = {
    {"matmul_ladder", {{"M", 64}, {"N", 64}, {"K", 64}}},
    {"opt_gemm", {{"M", 64}, {"N", 64}, {"K", 64}}},
    {"conv2d", {{"in_channel", 4}, {"out_channel", 4}, {"in_size", 8}}},
    {"conv2d_blocked", {{"in_channel", 4}, {"out_channel", 32}, {"in_size", 8}}},
    {"softmax", {{"N", 8}, {"M", 32}}},
    {"add_relu", {{"N", 64}}},
    {"transpose", {{"M", 64}, {"N", 64}}},
    {"gemm_best", {{"M", 136}, {"N", 136}, {"K", 40}}}, // edge tiles of both blocks
};

bool haveGcc()
{
    return std::system("gcc --version > /dev/null 2>&1") == 0;
}

struct Shell {
    int exitCode = -1;
    std::string output;
};

Shell shell(const std::string& cmd)
{
    Shell r;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        r.output.append(buf.data(), n);
    int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

using Entry = void (*)(void**, const std::int64_t*);

// The exported C, compiled into a shared object with an entry that takes the buffers as an array
// (C converts void* to every pointer parameter); its files are deleted on destruction. The object
// stays loaded: unloading it could unload libgomp under its idle worker threads.
class CompiledC {
public:
    CompiledC(const PrimFunc& f, const std::string& source)
    {
        static int counter = 0;
        m_dir = fs::temp_directory_path() /
                ("loopscope_csource_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
        fs::create_directories(m_dir);
        std::string call = scriptName(f.name) + "(";
        for (std::size_t i = 0; i < f.params.size(); ++i)
            call += (i ? ", buffers[" : "buffers[") + std::to_string(i) + "]";
        std::size_t nsizes = sizeParameters(f).size();
        for (std::size_t i = 0; i < nsizes; ++i)
            call += (f.params.empty() && i == 0 ? "sizes[" : ", sizes[") + std::to_string(i) + "]";
        std::ofstream(m_dir / "kernel.c")
            << source << "\nvoid loopscope_test_entry(void** buffers, const int64_t* sizes)\n{\n"
            << "    (void)buffers;\n    (void)sizes;\n    " << call << ");\n}\n";
        Shell cc =
            shell("gcc -std=c11 -O3 -fopenmp -Wall -Werror -shared -fPIC -o '" +
                  (m_dir / "kernel.so").string() + "' '" + (m_dir / "kernel.c").string() + "' -lm");
        if (cc.exitCode != 0) {
            m_error = "gcc failed:\n" + cc.output + "\n--- source ---\n" + source;
            return;
        }
        m_handle = dlopen((m_dir / "kernel.so").c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!m_handle) {
            m_error = std::string("dlopen failed: ") + dlerror();
            return;
        }
        m_entry = reinterpret_cast<Entry>(dlsym(m_handle, "loopscope_test_entry"));
        if (!m_entry) m_error = "no entry symbol";
    }
    ~CompiledC()
    {
        if (m_handle) dlclose(m_handle);
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    CompiledC(const CompiledC&) = delete;
    CompiledC& operator=(const CompiledC&) = delete;

    const std::string& error() const { return m_error; }
    void run(std::vector<void*> buffers, const std::vector<std::int64_t>& sizes) const
    {
        m_entry(buffers.data(), sizes.data());
    }

private:
    fs::path m_dir;
    void* m_handle = nullptr;
    Entry m_entry = nullptr;
    std::string m_error;
};

struct VariantCase {
    const Sample* sample;
    std::string variant;
};

void PrintTo(const VariantCase& c, std::ostream* os)
{
    *os << c.sample->file << ", variant " << c.variant;
}

std::vector<VariantCase> variantCases()
{
    std::vector<VariantCase> out;
    for (auto& s : kSamples) {
        fs::path src = fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / (std::string(s.file) + ".py");
        EvalResult r = evaluateScript(readText(src), s.sizes);
        if (!r.ok) {
            out.push_back({&s, "<script error>"}); // fails in the test with the diagnostic
            continue;
        }
        for (auto& v : r.program.variants)
            out.push_back({&s, v.name});
    }
    return out;
}

std::string caseName(const testing::TestParamInfo<VariantCase>& info)
{
    std::string out = std::string(info.param.sample->file) + "_";
    for (char c : info.param.variant)
        out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
}

class CSourceRuns : public testing::TestWithParam<VariantCase> {};

TEST_P(CSourceRuns, MatchesTheReference)
{
    if (!haveGcc()) GTEST_SKIP() << "gcc is not installed";
    const VariantCase& c = GetParam();
    fs::path src =
        fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / (std::string(c.sample->file) + ".py");
    EvalResult r = evaluateScript(readText(src), c.sample->sizes);
    ASSERT_TRUE(r.ok) << formatDiagnostic(src.string(), r.error);
    const Variant* v = r.program.findVariant(c.variant);
    ASSERT_NE(v, nullptr);
    LoweredFunc lowered = lowerSchedule(v->schedule(), v->args, v->funcName);
    lowered.func.name = "kernel";
    std::string source =
        exportCSource(lowered.func, std::string(c.sample->file) + ".py, variant " + v->name);
    CompiledC compiled(lowered.func, source);
    ASSERT_TRUE(compiled.error().empty()) << compiled.error();

    std::vector<HostBuffer> buffers;
    ReferenceEvaluator shapes({});
    for (std::size_t i = 0; i < v->args.size(); ++i) {
        HostBuffer b(v->args[i]->dtype, shapes.shape(v->args[i]));
        if (v->args[i]->isPlaceholder()) b.fillRandom(7919 + i);
        buffers.push_back(std::move(b));
    }
    std::vector<void*> pointers;
    for (auto& b : buffers)
        pointers.push_back(b.data());
    compiled.run(pointers, {});

    ReferenceEvaluator::Inputs inputs;
    for (std::size_t i = 0; i < v->args.size(); ++i)
        if (v->args[i]->isPlaceholder()) inputs[v->args[i].get()] = &buffers[i];
    ReferenceEvaluator reference(inputs);
    const auto& outputs = v->snapshots.front().outputs();
    int checked = 0;
    for (std::size_t i = 0; i < v->args.size(); ++i) {
        const Tensor& t = v->args[i];
        if (std::find(outputs.begin(), outputs.end(), t) == outputs.end()) continue;
        Tolerance tol = defaultTolerance(t->dtype);
        CheckResult check = checkOutput(reference, t, buffers[i], tol.rtol, tol.atol, 1);
        EXPECT_TRUE(check.ok) << t->name << ": " << check.firstMismatch << check.error
                              << "\n--- C ---\n"
                              << source;
        ++checked;
    }
    EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Samples, CSourceRuns, testing::ValuesIn(variantCases()), caseName);

// B[i] = A[i]  // 3 and C[i] = A[i] % 3 rounding toward negative infinity (Python's  // and %),
// which C's / and % do not do.
TEST(CSource, FloorDivisionAndModuloRoundDown)
{
    if (!haveGcc()) GTEST_SKIP() << "gcc is not installed";
    const std::int64_t n = 16;
    Buffer a = flatBuffer("A", n, DataType::int32()), b = flatBuffer("B", n, DataType::int32()),
           c = flatBuffer("C", n, DataType::int32());
    Var i("i");
    Expr x = makeBufferLoad(a, {i});
    Stmt body = makeFor(i, makeInt(0), makeInt(n), ForKind::Serial,
                        makeSeq({makeBufferStore(b, {i}, floordiv(x, makeInt(3))),
                                 makeBufferStore(c, {i}, floormod(x, makeInt(-3)))}));
    PrimFunc f{"kernel", {a, b, c}, body};
    std::string source = exportCSource(f);
    EXPECT_NE(source.find("ls_floordiv_i32"), std::string::npos) << source;
    CompiledC compiled(f, source);
    ASSERT_TRUE(compiled.error().empty()) << compiled.error();
    std::vector<std::int32_t> in(n), q(n), r(n);
    for (std::int64_t k = 0; k < n; ++k)
        in[k] = static_cast<std::int32_t>(k - 8);
    compiled.run({in.data(), q.data(), r.data()}, {});
    for (std::int64_t k = 0; k < n; ++k) {
        std::int32_t v = in[k];
        std::int32_t fq = v / 3 - ((v % 3 != 0) && (v < 0) ? 1 : 0);
        std::int32_t fr = v % -3 == 0 || (v % -3 < 0) ? v % -3 : v % -3 - 3;
        EXPECT_EQ(q[k], fq) << v << " // 3";
        EXPECT_EQ(r[k], fr) << v << " % -3";
    }
}

// A symbolic size becomes an int32_t parameter after the buffers; heap storage is freed.
TEST(CSource, SymbolicSizesAreParameters)
{
    if (!haveGcc()) GTEST_SKIP() << "gcc is not installed";
    EvalResult r =
        evaluateScript("n = te.var(\"n\")\nA = te.placeholder((n,), name=\"A\")\n"
                       "B = te.compute((n,), lambda i: A[i] * 2.0, name=\"B\")\n"
                       "s = te.create_schedule(B.op)\n"
                       "xo, xi = s[B].split(B.op.axis[0], factor=8)\ns[B].vectorize(xi)\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    LoweredFunc lowered = lowerSchedule(v.schedule(), v.args, "scale");
    std::string source = exportCSource(lowered.func);
    EXPECT_NE(source.find("void scale(float* restrict A, float* restrict B, int32_t n)"),
              std::string::npos)
        << source;
    CompiledC compiled(lowered.func, source);
    ASSERT_TRUE(compiled.error().empty()) << compiled.error();
    const std::int64_t n = 21; // not a multiple of 8: the split's tail is guarded
    std::vector<float> a(n), b(n + 1, -1.0f);
    for (std::int64_t k = 0; k < n; ++k)
        a[k] = static_cast<float>(k);
    compiled.run({a.data(), b.data()}, {n});
    for (std::int64_t k = 0; k < n; ++k)
        EXPECT_EQ(b[k], 2.0f * a[k]) << k;
    EXPECT_EQ(b[n], -1.0f) << "wrote past the end";
}

TEST(CSource, HeaderDeclaresThePrototype)
{
    Buffer a = flatBuffer("A", 4);
    PrimFunc f{"my_kernel", {a}, makeEvaluate(makeInt(0))};
    std::string header = exportCHeader(f);
    EXPECT_NE(header.find("#ifndef LOOPSCOPE_MY_KERNEL_H"), std::string::npos) << header;
    EXPECT_NE(header.find("#include <stdint.h>"), std::string::npos) << header;
    EXPECT_NE(header.find(cPrototype(f) + ";"), std::string::npos) << header;
    EXPECT_NE(header.find("#endif"), std::string::npos) << header;
}

TEST(CSource, ParallelLoopsBecomeOpenMP)
{
    fs::path src = fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/matmul_ladder.py";
    EvalResult r = evaluateScript(readText(src), {{"M", 64}, {"N", 64}, {"K", 64}});
    ASSERT_TRUE(r.ok);
    const Variant* v = r.program.findVariant("parallel");
    ASSERT_NE(v, nullptr);
    LoweredFunc lowered = lowerSchedule(v->schedule(), v->args, "gemm");
    std::string source = exportCSource(lowered.func, "matmul_ladder.py, variant parallel");
    EXPECT_EQ(source.rfind("// matmul_ladder.py, variant parallel\n", 0), 0u) << source;
    EXPECT_NE(
        source.find(
            "#pragma omp parallel for\n    for (int32_t i_outer = 0; i_outer < 2; ++i_outer) {"),
        std::string::npos)
        << source;
    for (const char* include : {"#include <math.h>", "#include <stdint.h>", "#include <stdlib.h>"})
        EXPECT_NE(source.find(include), std::string::npos) << source;
}

} // namespace
