// The variants of a script as a tree: which variant each one came from and at which step, derived
// from the schedule statements they share (the script stays the only record). A variant's parent is
// the earlier variant whose statements begin the same way for the most statements (on a tie: one
// whose statements are all shared, then the nearest one above); a variant sharing no statement
// with any comes from the first earlier variant without statements (the untransformed schedule),
// else it is a root.
#pragma once

#include <string>
#include <vector>

namespace loopscope {

struct VariantView;

struct VariantTreeNode {
    int parent = -1;           // index of the variant it came from; -1 for a root
    int sharedSteps = 0;       // statements it shares with the parent: it branched after that many
    std::vector<int> children; // in script order
};

// One node per variant, from each variant's statements in order (whitespace is not compared).
std::vector<VariantTreeNode> variantTree(const std::vector<std::vector<std::string>>& statements);
// The same for an exploration's variants (a step's label is its statement; the first step, the
// untransformed loop nest, is not one).
std::vector<VariantTreeNode> variantTree(const std::vector<VariantView>& variants);

} // namespace loopscope
