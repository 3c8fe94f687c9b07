// Static post-training quantization of a float model into a QDQ one, as ONNX Runtime's
// quantize_static writes it (QuantFormat.QDQ, per-channel weights): the batch norms folded into
// the convolutions first (as its pre-processing does), then every convolution, dense layer
// (Gemm), matmul by constant weights and residual add gets QuantizeLinear -> DequantizeLinear
// pairs on the data it reads and the data it writes (after a Relu or Clip that follows it; a max
// pool's output keeps its input's scale). Weights are int8, symmetric, one scale per output
// channel (a convolution's filters, a dense layer's or matmul's columns); a convolution's or
// dense layer's bias is int32 at the scale of the sums; activations are uint8 with the range
// seen on calibration inputs (the smallest and largest values, or a percentile of them).
// Loopscope then runs the model with integer tasks (FuseQuantized), and ONNX Runtime runs the
// same file.
#pragma once

#include "graph/Graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscope {

struct QuantizeOptions {
    // How an activation's range is taken from its calibration values: their smallest and
    // largest ("minmax"), or the `percentile`-th percentile of them and its mirror below.
    bool percentile = false;
    double percent = 99.99;
    // Calibration inputs: these (each a value for every graph input), or else `samples`
    // seeded random ones from `seed`.
    std::vector<std::map<std::string, HostBuffer>> inputs;
    int samples = 4;
    std::uint64_t seed = 1;
};

struct QuantizeReport {
    int operators = 0;   // convolutions, matmuls and adds now between Q/DQ pairs
    int weights = 0;     // constant weights quantized per channel
    int activations = 0; // tensors given a Q/DQ pair
    int samples = 0;     // calibration inputs run
    // One line per activation: "conv1_out: [0, 6.21] scale 0.02435 zero point 0".
    std::vector<std::string> ranges;
};

// Rewrites `graph` (as imported: shapes known) into its QDQ form. Throws GraphError.
QuantizeReport quantizeGraph(Graph& graph, const QuantizeOptions& options);

} // namespace loopscope
