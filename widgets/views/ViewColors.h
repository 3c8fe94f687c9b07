// Colors of the code, diff and ladder views, derived from the widget's palette so that they read
// well in light and dark themes alike. The only place in the views where hues are chosen.
#pragma once

#include <QColor>
#include <QPalette>

namespace loopscope {

bool isDarkPalette(const QPalette& palette);

// `a` moved towards `b` by `t` (0: a, 1: b), alpha included.
QColor mixColors(const QColor& a, const QColor& b, double t);

// Text in the error color: a red legible on the palette's base.
QColor errorColor(const QPalette& palette);

// Secondary text (line numbers, units, "not run").
QColor dimTextColor(const QPalette& palette);

struct DiffColors {
    QColor removedLine; // background of a removed line, and of a changed line on the before side
    QColor removedText; // background of the changed parts of such a line
    QColor addedLine;   // ... of an added line, and of a changed line on the after side
    QColor addedText;
    QColor filler;     // the hatching opposite an added or removed line
    QColor loopMarker; // gutter mark of a loop the step created or changed
    QColor gutterBackground;
    QColor gutterText;
};
DiffColors diffColors(const QPalette& palette);

struct SyntaxColors {
    QColor keyword;
    QColor call; // T.grid, T.Buffer, @T.prim_func; LLVM instructions and assembly mnemonics
    QColor number;
    QColor string;
    QColor comment;
    QColor buffer; // buffer names; LLVM %values and assembly registers
    QColor type;   // LLVM types, assembly directives, labels
};
SyntaxColors syntaxColors(const QPalette& palette);

// The measured-time and footprint marks of the code views.
struct HeatColors {
    QColor track;    // behind a heat bar
    QColor line;     // a line's own share of the time
    QColor loop;     // a loop's share (its body's and its own)
    QColor linked;   // lines linked to the selection in the other view (TIR <-> assembly)
    QColor note;     // annotations at the end of a line (footprints, tails)
    QColor warnNote; // ... that say a working set outgrows a cache
};
HeatColors heatColors(const QPalette& palette);

} // namespace loopscope
