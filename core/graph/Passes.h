// The graph passes, in the order Relay runs them before fusion, as one readable list with a
// snapshot of the graph after each (for `model info --passes` and the tests):
//   FuseQuantized      DequantizeLinear -> Conv, MatMul or Add -> QuantizeLinear made one
//                      QLinearConv, QLinearMatMul or QLinearAdd: integer sums, requantized
//   SimplifyInference  BatchNormalization -> a multiply and an add by per-channel constants;
//                      Identity and inference Dropout removed
//   FoldConstants      nodes whose inputs are all constant evaluated once
//   FoldScaleAxis      a per-channel multiply (and add) after a convolution folded into its
//                      weights (and bias)
//   AlterConvLayout    a convolution's constant weights in blocks of 16 output channels (8
//                      where 16 does not divide them)
//   AlterQLinearConvLayout  a QLinearConv's int8 weights in TOPI's int8 blocks (F/L x C/4 x
//                      KH x KW x L x 4), its data's zero point moved into its bias
//   ConvertLayout      data in those blocks of channels from layer to layer (NCHW16c), converted
//                      where an operator or the model's output needs N x C x H x W
// Each pass is one file under graph/passes/ with one entry function.
#pragma once

#include "graph/Graph.h"

#include <string>
#include <vector>

namespace loopscope {

struct GraphSnapshot {
    std::string pass;
    std::string text; // the graph after it, as graphText prints it
    int nodes = 0;
    bool changed = false;
};

// Runs every pass; with `log`, a snapshot after each. Throws GraphError.
void optimizeGraph(Graph& graph, std::vector<GraphSnapshot>* log = nullptr);

// One line per node: "conv1_out = Conv(x, conv1.weight, conv1.bias) group=1 pads=1,1,1,1", the
// constants' shapes named.
std::string graphText(const Graph& graph);

// The passes (graph/passes/*.h).
bool fuseQuantized(Graph& graph);
bool simplifyInference(Graph& graph);
bool foldConstants(Graph& graph);
bool foldScaleAxis(Graph& graph);
bool alterConvLayout(Graph& graph);
bool alterDenseLayout(Graph& graph);
bool alterQLinearConvLayout(Graph& graph);
// The lanes of this machine's int8 dot product for quantized models (TOPI's VNNI intrinsic: 16
// with AVX512-VNNI), or 0 where it has none that computes exactly (without VNNI the fallback's
// int16 pairs saturate on full-range data).
std::int64_t int8DotLanesHere();
bool convertLayout(Graph& graph);
bool alterConvWinograd(Graph& graph);

// A convolution's constant weights (F x C x KH x KW) added as a new constant in blocks of
// `block` output channels (F/B x C x KH x KW x B); its name.
std::string addBlockedWeights(Graph& graph, const std::string& weights, std::int64_t block);

} // namespace loopscope
