// Winograd's minimal filtering for 3x3 convolutions of stride 1 (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016), as TOPI's conv2d_winograd computes them:
// a tile of m x m outputs from an input tile of a x a (a = m + 2) as A^T [(G g G^T) . (B^T d B)] A,
// so m x m x 9 multiplications become a x a: F(2x2, 3x3) needs 16 for 36 (2.25x fewer),
// F(4x4, 3x3) 36 for 144 (4x). The price is rounding: the transforms' larger coefficients of
// F(4x4) amplify float32's error (the tests state the tolerance of each).
#pragma once

#include <cstdint>
#include <vector>

namespace loopscope {

struct WinogradTransform {
    int m = 0;                           // outputs per tile side
    int a = 0;                           // input tile side: m + 2
    std::vector<std::vector<double>> bt; // a x a: B^T, the input transform
    std::vector<std::vector<double>> g;  // a x 3: G, the filter transform
    std::vector<std::vector<double>> at; // m x a: A^T, the output transform
};

// F(2x2, 3x3) or F(4x4, 3x3); null for another m.
const WinogradTransform* winogradTransform(int m);

// The attribute AlterConvWinograd gives a convolution it computes by Winograd's method: m, the
// outputs per tile side. Its input 3 is then the transformed weights, a x a x C x F.
inline constexpr const char* kWinogradTile = "loopscope_winograd_m";

} // namespace loopscope
