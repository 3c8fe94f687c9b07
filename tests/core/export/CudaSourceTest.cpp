// GPU kernels as CUDA C, as TVM's get_source() prints them after tvm.build(..., "cuda"): the
// preamble, a declaration and a definition per kernel, every operation parenthesised; and what is
// exported compiles as CUDA (clang's CUDA mode, with the few declarations nvcc's headers would
// give, since no CUDA toolkit is installed).
#include "export/CudaSource.h"
#include "lower/Lower.h"
#include "support/Occurrences.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace loopscope {
namespace {

std::vector<std::pair<std::string, PrimFunc>> lowerScript(const std::string& file)
{
    EvalResult r = evaluateScript(readSourceFile(file));
    EXPECT_TRUE(r.ok) << r.error.message;
    std::vector<std::pair<std::string, PrimFunc>> out;
    for (const Variant& v : r.program.variants)
        out.emplace_back(v.name, lowerSchedule(v.schedule(), v.args, v.funcName).func);
    return out;
}

std::string cudaOf(const std::string& file, const std::string& variant = "")
{
    for (auto& [name, f] : lowerScript(file))
        if (variant.empty() || name == variant) return exportCudaSource(f);
    ADD_FAILURE() << "no variant " << variant;
    return {};
}

TEST(CudaSource, TheTutorialsVectorAddPrintsAsTvmPrintsIt)
{
    const std::string kernel =
        "extern \"C\" __global__ void __launch_bounds__(64) main_kernel(float* __restrict__ A, "
        "float* __restrict__ B, float* __restrict__ C)";
    const std::string expected =
        "\n#if (((__CUDACC_VER_MAJOR__ == 11) && (__CUDACC_VER_MINOR__ >= 4)) || \\\n"
        "     (__CUDACC_VER_MAJOR__ > 11))\n"
        "#define TVM_ENABLE_L2_PREFETCH 1\n"
        "#else\n"
        "#define TVM_ENABLE_L2_PREFETCH 0\n"
        "#endif\n"
        "\n"
        "#ifdef _WIN32\n"
        "  using uint = unsigned int;\n"
        "  using uchar = unsigned char;\n"
        "  using ushort = unsigned short;\n"
        "  using int64_t = long long;\n"
        "  using uint64_t = unsigned long long;\n"
        "#else\n"
        "  #define uint unsigned int\n"
        "  #define uchar unsigned char\n"
        "  #define ushort unsigned short\n"
        "  #define int64_t long long\n"
        "  #define uint64_t unsigned long long\n"
        "#endif\n" +
        kernel + ";\n" + kernel +
        " {\n"
        "  C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 64) + "
        "((int)threadIdx.x))] + B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))]);\n"
        "}\n\n";
    EXPECT_EQ(cudaOf("tests/data/tvm-gpu/vector_add_bind.py"), expected);
}

TEST(CudaSource, SharedTilesAreSharedArraysBetweenSyncthreads)
{
    const std::string cu = cudaOf("tests/data/gpu/matmul_shared.py", "shared");
    EXPECT_NE(cu.find("  __shared__ float A_shared[256];\n"), std::string::npos) << cu;
    EXPECT_NE(cu.find("  __shared__ float B_shared[256];\n"), std::string::npos) << cu;
    EXPECT_EQ(testsupport::occurrences(cu, "__syncthreads();"), 2u) << cu;
    EXPECT_NE(cu.find("for (int k_outer = 0; k_outer < 4; ++k_outer) {"), std::string::npos) << cu;
    EXPECT_NE(cu.find("__launch_bounds__(256)"), std::string::npos) << cu;
}

TEST(CudaSource, WarpReductionsShuffleWithTheirMask)
{
    const std::string cu = cudaOf("tests/data/gpu/reductions.py", "warp");
    EXPECT_EQ(cu.rfind("\n#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)\n", 0), 0u)
        << "the shuffle macros for GPUs before Volta come first\n"
        << cu;
    EXPECT_NE(cu.find("  mask[0] = __activemask();\n"), std::string::npos) << cu;
    EXPECT_NE(cu.find("  t0[0] = __shfl_down_sync(mask[0], reduce_temp0[0], 16, 32);\n"),
              std::string::npos)
        << cu;
    EXPECT_NE(cu.find("  reduce_temp0[0] = __shfl_sync(mask[0], reduce_temp0[0], 0, 32);\n"),
              std::string::npos)
        << cu;
    EXPECT_NE(cu.find("  float normal_reduce_temp0[1];\n"), std::string::npos) << cu;
    EXPECT_NE(cu.find("  uint mask[1];\n"), std::string::npos) << cu;
}

// clang in CUDA mode compiles every exported kernel file to PTX.
TEST(CudaSource, EveryExportedKernelCompilesAsCuda)
{
    const fs::path dir =
        fs::temp_directory_path() / ("loopscope-cuda-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path prelude = fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/gpu/cuda_prelude.h";
    int compiled = 0;
    for (const char* file :
         {"tests/data/tvm-gpu/vector_add_bind.py", "tests/data/tvm-gpu/conv_shared_vthread.py",
          "tests/data/tvm-gpu/row_max_allreduce.py", "tests/data/gpu/matmul_shared.py",
          "tests/data/gpu/reductions.py", "samples/gpu/matmul_cuda.py",
          "samples/gpu/opt_conv_cuda.py", "samples/gpu/softmax_cuda.py",
          "samples/gpu/add_relu_cuda.py"}) {
        for (auto& [name, f] : lowerScript(file)) {
            SCOPED_TRACE(std::string(file) + ", variant " + name);
            const fs::path cu = dir / (fs::path(file).stem().string() + "_" + name + ".cu");
            std::ofstream(cu) << exportCudaSource(f);
            const fs::path ptx = fs::path(cu).replace_extension(".ptx");
            const fs::path log = fs::path(cu).replace_extension(".log");
            const std::string command =
                "clang -x cuda --cuda-gpu-arch=sm_70 -nocudainc -nocudalib --cuda-device-only "
                "-Xclang -target-feature -Xclang +ptx63 -Wno-unknown-cuda-version -O2 -S -include "
                "'" +
                prelude.string() + "' -o '" + ptx.string() + "' '" + cu.string() + "' > '" +
                log.string() + "' 2>&1";
            ASSERT_EQ(std::system(command.c_str()), 0) << readText(log) << readText(cu);
            EXPECT_NE(readText(ptx).find(".entry main_kernel"), std::string::npos) << readText(ptx);
            ++compiled;
        }
    }
    EXPECT_EQ(compiled, 12 + 5 + 1 + 2 + 2);
    fs::remove_all(dir);
}

} // namespace
} // namespace loopscope
