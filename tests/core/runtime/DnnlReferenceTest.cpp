// oneDNN as the convolutions' reference line: the sample convolutions (weights as ONNX has them
// and in blocks of output channels) are recognised with their shape (padding through a padded
// stage, stride from the index), other programs are not, and the library times the shape it is
// given.
#include "runtime/DnnlReference.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace loopscope;

namespace {

std::string readSample(const char* name)
{
    return readSourceFile(std::string("samples/") + name);
}

TEST(DnnlReference, TheSampleConvolutionIsRecognisedWithItsShape)
{
    EvalResult r = evaluateScript(readSample("conv2d.py"), {{"in_size", 28}, {"out_channel", 32}});
    ASSERT_TRUE(r.ok) << r.error.message;
    auto s = conv2dShape(r.program);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->n, 1);
    EXPECT_EQ(s->c, 64);
    EXPECT_EQ(s->h, 28);
    EXPECT_EQ(s->w, 28);
    EXPECT_EQ(s->f, 32);
    EXPECT_EQ(s->kh, 3);
    EXPECT_EQ(s->kw, 3);
    EXPECT_EQ(s->padH, 1);
    EXPECT_EQ(s->padW, 1);
    EXPECT_EQ(s->strideH, 1);
    EXPECT_EQ(s->oh, 28);
    EXPECT_EQ(s->ow, 28);
    EXPECT_DOUBLE_EQ(s->flops(), 2.0 * 32 * 28 * 28 * 64 * 9);
}

// Weights in blocks of output channels, the sums read back into NCHW: the same convolution.
TEST(DnnlReference, AConvolutionInBlocksOfOutputChannelsIsRecognised)
{
    EvalResult r =
        evaluateScript(readSample("conv2d_blocked.py"), {{"in_size", 28}, {"out_channel", 32}});
    ASSERT_TRUE(r.ok) << r.error.message;
    auto s = conv2dShape(r.program);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->c, 64);
    EXPECT_EQ(s->h, 28);
    EXPECT_EQ(s->f, 32);
    EXPECT_EQ(s->kh, 3);
    EXPECT_EQ(s->padH, 1);
    EXPECT_EQ(s->oh, 28);
    EXPECT_DOUBLE_EQ(s->flops(), 2.0 * 32 * 28 * 28 * 64 * 9);

    // Read back any other way, it is not a convolution oneDNN computes.
    for (const char* readBack :
         {"sums[n, f // block, y, x, f % 8]", "sums[n, f % 2, y, x, f // block]",
          "sums[n, f // block, x, y, f % block]"}) {
        std::string text = readSample("conv2d_blocked.py");
        const std::string original = "sums[n, f // block, y, x, f % block]";
        text.replace(text.find(original), original.size(), readBack);
        EvalResult other = evaluateScript(text, {{"in_size", 28}, {"out_channel", 32}});
        ASSERT_TRUE(other.ok) << readBack << ": " << other.error.message;
        EXPECT_FALSE(conv2dShape(other.program).has_value()) << readBack;
    }
}

// The data in blocks of channels too (as a model's convolutions run between layers): the same
// convolution; a weight read at another channel than rco * 16 + rci is not.
TEST(DnnlReference, AConvolutionWithItsDataInBlocksOfChannelsIsRecognised)
{
    EvalResult r = evaluateScript(readSample("conv2d_nchwc.py"),
                                  {{"in_size", 28}, {"out_channel", 32}, {"in_channel", 48}});
    ASSERT_TRUE(r.ok) << r.error.message;
    auto s = conv2dShape(r.program);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->c, 48);
    EXPECT_EQ(s->h, 28);
    EXPECT_EQ(s->f, 32);
    EXPECT_EQ(s->kw, 3);
    EXPECT_EQ(s->padW, 1);
    EXPECT_EQ(s->ow, 28);
    EXPECT_DOUBLE_EQ(s->flops(), 2.0 * 32 * 28 * 28 * 48 * 9);

    for (const char* channel : {"rco * 8 + rci", "rci * block + rco", "rco + rci"}) {
        std::string text = readSample("conv2d_nchwc.py");
        const std::string original = "rco * block + rci";
        text.replace(text.find(original), original.size(), channel);
        EvalResult other = evaluateScript(text, {{"in_size", 28}, {"out_channel", 32}});
        ASSERT_TRUE(other.ok) << channel << ": " << other.error.message;
        EXPECT_FALSE(conv2dShape(other.program).has_value()) << channel;
    }
}

TEST(DnnlReference, StridesAndUnpaddedInputsAreRecognisedAndOtherProgramsAreNot)
{
    EvalResult strided = evaluateScript(R"(from tvm import te
data = te.placeholder((2, 8, 17, 17), name="data")
w = te.placeholder((4, 8, 3, 3), name="w")
rc = te.reduce_axis((0, 8), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
out = te.compute((2, 4, 8, 8), lambda n, f, y, x: te.sum(data[n, rc, y * 2 + ry, x * 2 + rx] * w[f, rc, ry, rx], axis=[rc, ry, rx]), name="out")
s = te.create_schedule(out.op)
)");
    ASSERT_TRUE(strided.ok) << strided.error.message;
    auto s = conv2dShape(strided.program);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->strideH, 2);
    EXPECT_EQ(s->strideW, 2);
    EXPECT_EQ(s->padH, 0);
    EXPECT_EQ(s->n, 2);

    for (const char* other : {"opt_gemm.py", "softmax.py", "transpose.py", "add_relu.py"}) {
        EvalResult r = evaluateScript(readSample(other));
        ASSERT_TRUE(r.ok) << other;
        EXPECT_FALSE(conv2dShape(r.program).has_value()) << other;
    }
}

TEST(DnnlReference, TheLibraryTimesAConvolution)
{
    const DnnlLibrary* dnnl = DnnlLibrary::load();
    ASSERT_NE(dnnl, nullptr) << "libdnnl.so.2 (libdnnl-dev) is installed by the setup";
    EXPECT_EQ(dnnl->label().rfind("oneDNN ", 0), 0u) << dnnl->label();
    Conv2dShape s;
    s.c = 16;
    s.h = s.w = 14;
    s.f = 16;
    s.kh = s.kw = 3;
    s.padH = s.padW = 1;
    s.oh = s.ow = 14;
    double ms = dnnl->convMs(s, 1, 2, 1);
    EXPECT_GT(ms, 0);
}

// The int8 ladder (uint8 x int8 -> int32, the weights packed as TOPI packs them) is oneDNN's
// int8 matmul; the float matmul ladder and the convolution are not.
TEST(DnnlReference, AnInt8MatmulIsRecognisedAndTimed)
{
    EvalResult r =
        evaluateScript(readSample("int8_matmul_ladder.py"), {{"M", 64}, {"N", 32}, {"K", 128}});
    ASSERT_TRUE(r.ok) << r.error.message;
    auto shape = int8MatmulShape(r.program);
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->m, 64);
    EXPECT_EQ(shape->n, 32);
    EXPECT_EQ(shape->k, 128);
    for (const char* other : {"matmul_ladder.py", "conv2d.py"}) {
        EvalResult o = evaluateScript(readSample(other));
        ASSERT_TRUE(o.ok) << other << ": " << o.error.message;
        EXPECT_FALSE(int8MatmulShape(o.program).has_value()) << other;
    }
    const DnnlLibrary* dnnl = DnnlLibrary::load();
    ASSERT_NE(dnnl, nullptr) << "libdnnl.so.2 (libdnnl-dev) is installed by the setup";
    EXPECT_GT(dnnl->int8MatmulMs(*shape, 1, 2, 1), 0);
}

// The int8 convolution sample (TOPI's NCHW4c data, OIHW16o4i weights, padded beforehand) is
// oneDNN's int8 convolution of its shape; the float ones are not int8.
TEST(DnnlReference, AnInt8ConvolutionIsRecognisedAndTimed)
{
    EvalResult r = evaluateScript(readSample("int8_conv2d_nchwc.py"),
                                  {{"in_channel", 16}, {"out_channel", 32}, {"in_size", 14}});
    ASSERT_TRUE(r.ok) << r.error.message;
    auto shape = int8Conv2dShape(r.program);
    ASSERT_TRUE(shape.has_value());
    EXPECT_EQ(shape->c, 16);
    EXPECT_EQ(shape->f, 32);
    EXPECT_EQ(shape->h, 16); // padded beforehand
    EXPECT_EQ(shape->kh, 3);
    EXPECT_EQ(shape->oh, 14);
    EXPECT_EQ(shape->strideH, 1);
    EXPECT_FALSE(conv2dShape(r.program).has_value());
    EvalResult f = evaluateScript(readSample("conv2d_nchwc.py"));
    ASSERT_TRUE(f.ok) << f.error.message;
    EXPECT_FALSE(int8Conv2dShape(f.program).has_value());
    const DnnlLibrary* dnnl = DnnlLibrary::load();
    ASSERT_NE(dnnl, nullptr) << "libdnnl.so.2 (libdnnl-dev) is installed by the setup";
    EXPECT_GT(dnnl->int8ConvMs(*shape, 1, 2, 1), 0);
}

} // namespace
