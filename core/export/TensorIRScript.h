// A whole TE script in today's TVM: each variant's TE schedule replaced by the tir.Schedule calls
// that make its loop nest (translateToTensorIR), the declarations kept, so that it runs in TVM
// 0.20 or later. What `loopscope-cli convert` and the window's File > Convert to TensorIR write.
#pragma once

#include "explore/TensorIRTranslation.h"
#include "te/Program.h"

#include <string>
#include <vector>

namespace loopscope {

struct ConvertedVariant {
    std::string name;
    bool converted = false; // its schedule is tir.Schedule calls in the text
    TirTranslation calls;   // the calls, each with its TE step; why not where not converted
    std::string checkError; // where the converted text does not give the variant's loop nest
};

struct ConvertedScript {
    std::string text;
    std::vector<ConvertedVariant> variants; // in the script's order
    bool allConverted() const;
};

// `scriptText` is the script `p` was evaluated from. A variant that cannot be translated keeps
// its TE statements, under a comment that says why. The text is read back and each converted
// variant's loop nest compared with the TE one (checkError). Throws UserError when the script
// does not parse; a TensorIR variant is kept as it is.
ConvertedScript convertToTensorIR(const std::string& scriptText, const Program& p,
                                  TirSpelling spelling);

} // namespace loopscope
