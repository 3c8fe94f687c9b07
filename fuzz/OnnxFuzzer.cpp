// libFuzzer target for the ONNX loader: any bytes are read as a model (protobuf, ONNX's checker
// and shape inference, Loopscope's import with its size and shape checks), and a model that
// imports is optimized, fused, written as task scripts and, when small, interpreted
// (tests/support/OnnxReplay.h). A damaged or hostile file is refused with a reason, never a
// crash, a sanitizer report, an internal error or unbounded memory.
#include "support/OnnxReplay.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string refusal;
    if (!loopscope::replayOnnxBytes(std::string(reinterpret_cast<const char*>(data), size),
                                    &refusal) &&
        refusal.empty())
        __builtin_trap(); // a refusal always says why
    return 0;
}
