// Side-by-side alignment of two printings of a loop nest (the TIR before and after a schedule
// step): which lines match, which changed and where inside the line, and which loops the step
// created or changed. Qt-free so it can be tested on its own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

enum class DiffKind { Same, Changed, Added, Removed };

// A half-open range [start, start + length) of a line, in UTF-8 bytes (never splitting a
// character).
struct CharRange {
    int start = 0;
    int length = 0;
    bool operator==(const CharRange&) const = default;
};

// One row of the side-by-side view. `left` indexes the before-lines, `right` the after-lines; -1 on
// the side that has no line in this row (Added: left is -1; Removed: right is -1).
struct DiffRow {
    int left = -1;
    int right = -1;
    DiffKind kind = DiffKind::Same;
    std::vector<CharRange>
        leftRanges; // Changed rows only: the parts of the before-line that differ
    std::vector<CharRange> rightRanges; // ... and of the after-line
};

struct TirDiff {
    std::vector<std::string> leftLines;
    std::vector<std::string> rightLines;
    std::vector<DiffRow> rows; // in display order; every line of each side appears exactly once
};

// Splits on '\n' (a trailing '\r' is dropped); "" is no lines, a final newline adds no empty line.
std::vector<std::string> splitLines(std::string_view text);

// Aligns `before` and `after` line by line (longest common subsequence), then pairs the removed and
// added lines of each hunk that resemble each other into Changed rows with their differing parts
// (a diff of the two lines' tokens: identifiers, numbers, single punctuation characters, spaces).
// A change of indentation alone makes a Changed row without changed parts.
TirDiff diffTir(std::string_view before, std::string_view after);

// The changed parts of one line against another, as ranges of each (token granularity; leading
// indentation is never part of a range).
void diffLineParts(std::string_view left, std::string_view right,
                   std::vector<CharRange>& leftRanges, std::vector<CharRange>& rightRanges);

// Indices of the after-lines that are loop headers (`for ... in ...:`) the step created or changed:
// headers whose text (ignoring indentation) is new, or that moved relative to the loops that kept
// their text (a reorder). Loops only pushed deeper by a new outer loop are not counted.
std::vector<int> changedLoopLines(const TirDiff& diff);
std::vector<int> changedLoopLines(std::string_view before, std::string_view after);

// The loop variables of a `for a, b in ...:` header with their byte ranges in the line, and the
// ranges of the matching arguments of `T.grid(...)` (empty when the iterator is not T.grid or the
// counts differ). Not a loop header: no variables.
struct LoopHeader {
    std::vector<std::string> names;
    std::vector<CharRange> nameRanges;
    std::vector<CharRange> extentRanges;
};
LoopHeader parseLoopHeader(std::string_view line);
bool isLoopHeader(std::string_view line);

} // namespace loopscope
