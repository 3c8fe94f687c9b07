#include "graph/Winograd.h"

namespace loopscope {

const WinogradTransform* winogradTransform(int m)
{
    // Interpolation points 0, 1, -1 (and infinity) for F(2x2, 3x3); 0, +-1, +-2 for F(4x4, 3x3).
    static const WinogradTransform f2{2,
                                      4,
                                      {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                                      {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
                                      {{1, 1, 1, 0}, {0, 1, -1, -1}}};
    static const WinogradTransform f4{
        4,
        6,
        {{4, 0, -5, 0, 1, 0},
         {0, -4, -4, 1, 1, 0},
         {0, 4, -4, -1, 1, 0},
         {0, -2, -1, 2, 1, 0},
         {0, 2, -1, -2, 1, 0},
         {0, 4, 0, -5, 0, 1}},
        {{1.0 / 4, 0, 0},
         {-1.0 / 6, -1.0 / 6, -1.0 / 6},
         {-1.0 / 6, 1.0 / 6, -1.0 / 6},
         {1.0 / 24, 1.0 / 12, 1.0 / 6},
         {1.0 / 24, -1.0 / 12, 1.0 / 6},
         {0, 0, 1}},
        {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};
    return m == 2 ? &f2 : m == 4 ? &f4 : nullptr;
}

} // namespace loopscope
