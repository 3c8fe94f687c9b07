// oneDNN as the reference line for convolutions, as OpenBLAS is for matmuls: its direct
// convolution primitive loaded at run time with dlopen (libdnnl.so.2; without it there is no
// reference), with its own choice of algorithm and memory layouts, and the test that decides
// whether a program is a 2-D NCHW convolution it can stand for.
#pragma once

#include "te/Program.h"

#include <cstdint>
#include <optional>
#include <string>

namespace loopscope {

// out[n, f, y, x] = sum over c, ky, kx of in[n, c, y*stride + ky - pad, x*stride + kx - pad] *
// w[f, c, ky, kx], zero outside the input.
struct Conv2dShape {
    std::int64_t n = 1, c = 0, h = 0, w = 0; // input
    std::int64_t f = 0, kh = 0, kw = 0;      // filters
    std::int64_t strideH = 1, strideW = 1, padH = 0, padW = 0;
    std::int64_t oh = 0, ow = 0; // output
    double flops() const { return 2.0 * n * f * oh * ow * c * kh * kw; }
};

// The shape when the first variant's output is such a convolution in float32: a sum over three
// reduction axes of the product of a 4-D weight read at [f, c, ky, kx] and an input read at
// [n, c, y*s + ky, x*s + kx], the input a placeholder or a padded copy of one; or such sums in
// blocks of B output channels (the weight read at [f // B, c, ky, kx, f % B]) read back as
// out[n, f, y, x] = sums[n, f // B, y, x, f % B]; or with the data in blocks of channels too
// (NCHW16c between layers): sums[n, f // B, y, x, f % B] over rco, rci, ky, kx of
// in[n, rco, y*s + ky, x*s + kx, rci] * w[f // B, rco * Bi + rci, ky, kx, f % B].
std::optional<Conv2dShape> conv2dShape(const Program& program);

// The sizes of an int8 matmul, as quantized layers compute it: parameters M, N and K, and the
// first variant's output a 2-D int32 sum over one reduce axis of a uint8 read times an int8 read
// (each cast to int32), the weights in any layout (TOPI's packed NC16n4c among them).
struct Int8MatmulShape {
    std::int64_t m = 0, n = 0, k = 0;
    double ops() const { return 2.0 * m * n * k; }
};
std::optional<Int8MatmulShape> int8MatmulShape(const Program& program);

// The shape of an int8 convolution as TOPI's x86 int8 conv2d computes it, when the first
// variant's output is one: out[n, f // L, y, x, f % L] (int32) = sum over c // 4, ky, kx, c % 4
// of int32(data[n, c // 4, y*s + ky, x*s + kx, c % 4]) (uint8, padded beforehand: pad 0) *
// int32(w[f // L, c // 4, ky, kx, f % L, c % 4]) (int8).
std::optional<Conv2dShape> int8Conv2dShape(const Program& program);

class DnnlLibrary {
public:
    // Loads libdnnl.so.2 (once per process); nullptr when it cannot be loaded.
    static const DnnlLibrary* load();

    const std::string& label() const { return m_label; } // "oneDNN 2.6.3"

    // Median milliseconds of the convolution primitive (forward inference, the layouts oneDNN
    // prefers; reorders into them are not timed) with `threads` OpenMP threads (0: all);
    // negative when oneDNN refuses the shape.
    double convMs(const Conv2dShape& shape, int threads, int repeat, double minRepeatMs) const;
    // The same for oneDNN's int8 matmul primitive: uint8 x int8 -> int32, the weights in the
    // layout oneDNN prefers (its reorder not timed).
    double int8MatmulMs(const Int8MatmulShape& shape, int threads, int repeat,
                        double minRepeatMs) const;
    // oneDNN's int8 convolution: uint8 data, int8 weights, int32 output, the layouts it prefers.
    double int8ConvMs(const Conv2dShape& shape, int threads, int repeat, double minRepeatMs) const;

private:
    DnnlLibrary() = default;
    void* m_handle = nullptr;
    std::string m_label;
};

} // namespace loopscope
