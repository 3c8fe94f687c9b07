// Writes ONNX models of known architectures with seeded random weights, through the ONNX protobuf
// API: full-size ResNet-18 (224x224, 45 MB: too large for the repository, so made on demand for
// `model make` and the model benchmark), and small blocks the tests build graphs from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

// "resnet18" (torchvision's ResNet-18, batch 1, 3x224x224, batch norms as nodes), "mobilenetv2"
// (torchvision's MobileNetV2, 3x224x224), "encoder" (one transformer encoder block, 1x64x128),
// "resnet-block" (conv -> batch norm -> relu -> conv -> batch norm -> add -> relu, 1x16x14x14),
// "mlp" (8x784 -> 512 -> 256 -> 10, Gemm with transB=1, ReLU, softmax).
const std::vector<std::string>& modelKinds();

// Writes the model; false with why not (an unknown kind, a file that cannot be written).
bool makeModel(const std::string& kind, const std::string& path, std::uint64_t seed,
               std::string* why);

// The same model as the bytes of its file.
std::string makeModelBytes(const std::string& kind, std::uint64_t seed);

// One dense layer as models have it, with seeded weights: input `x` of shape `input` (... x K),
// a Gemm by weights K x N (N x K with transB, as PyTorch's Linear exports them) and a bias,
// or a MatMul by K x N weights then an Add of the bias (any rank of x, as a transformer's
// projections); a Relu after it when asked.
struct DenseLayerSpec {
    std::vector<std::int64_t> input;
    std::int64_t n = 0;
    bool transB = false;
    bool matmul = false; // MatMul + Add instead of Gemm
    bool relu = false;
};
std::string makeDenseModelBytes(const DenseLayerSpec& spec, std::uint64_t seed);

// One 3x3 convolution of stride 1 with a bias and a Relu, seeded: 1 x channels x size x size to
// 1 x filters x size x size.
struct ConvLayerSpec {
    std::int64_t channels = 0, filters = 0, size = 0;
};
std::string makeConvModelBytes(const ConvLayerSpec& spec, std::uint64_t seed);

} // namespace loopscope
