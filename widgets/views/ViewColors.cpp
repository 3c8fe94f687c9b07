#include "views/ViewColors.h"

#include <algorithm>

namespace loopscope {

namespace {

// A hue at a lightness that contrasts with the palette's base (dark text on light, light on dark).
QColor foregroundHue(const QPalette& palette, int hue, double saturation)
{
    bool dark = isDarkPalette(palette);
    return QColor::fromHslF(hue / 360.0, saturation, dark ? 0.72 : 0.38);
}

} // namespace

bool isDarkPalette(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightnessF() < 0.5;
}

QColor mixColors(const QColor& a, const QColor& b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    auto lerp = [t](double x, double y) { return x + (y - x) * t; };
    return QColor::fromRgbF(float(lerp(a.redF(), b.redF())), float(lerp(a.greenF(), b.greenF())),
                            float(lerp(a.blueF(), b.blueF())), float(lerp(a.alphaF(), b.alphaF())));
}

QColor errorColor(const QPalette& palette)
{
    return isDarkPalette(palette) ? QColor::fromHslF(0.0, 0.80, 0.70)
                                  : QColor::fromHslF(0.0, 0.72, 0.42);
}

QColor dimTextColor(const QPalette& palette)
{
    return mixColors(palette.color(QPalette::Text), palette.color(QPalette::Base), 0.45);
}

DiffColors diffColors(const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    const bool dark = isDarkPalette(palette);
    const QColor red = QColor::fromHslF(0.0, 0.75, dark ? 0.50 : 0.55);
    const QColor green = QColor::fromHslF(130 / 360.0, 0.60, dark ? 0.42 : 0.45);
    DiffColors c;
    c.removedLine = mixColors(base, red, dark ? 0.20 : 0.13);
    c.removedText = mixColors(base, red, dark ? 0.45 : 0.32);
    c.addedLine = mixColors(base, green, dark ? 0.20 : 0.13);
    c.addedText = mixColors(base, green, dark ? 0.45 : 0.32);
    c.filler = mixColors(base, text, dark ? 0.14 : 0.10);
    c.loopMarker = palette.color(QPalette::Highlight);
    c.gutterBackground = mixColors(base, text, 0.035);
    c.gutterText = dimTextColor(palette);
    return c;
}

HeatColors heatColors(const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    const bool dark = isDarkPalette(palette);
    const QColor orange = QColor::fromHslF(24 / 360.0, 0.90, dark ? 0.55 : 0.50);
    HeatColors c;
    c.track = mixColors(base, text, 0.06);
    c.line = orange;
    c.loop = mixColors(base, orange, dark ? 0.45 : 0.35);
    QColor linked = palette.color(QPalette::Highlight);
    linked.setAlphaF(dark ? 0.35f : 0.22f);
    c.linked = linked;
    c.note = dimTextColor(palette);
    c.warnNote = foregroundHue(palette, 28, 0.85);
    return c;
}

SyntaxColors syntaxColors(const QPalette& palette)
{
    SyntaxColors c;
    c.keyword = foregroundHue(palette, 285, 0.55);
    c.call = foregroundHue(palette, 205, 0.70);
    c.number = foregroundHue(palette, 28, 0.80);
    c.string = foregroundHue(palette, 110, 0.50);
    c.comment = dimTextColor(palette);
    c.buffer = foregroundHue(palette, 345, 0.60);
    c.type = foregroundHue(palette, 175, 0.55);
    return c;
}

} // namespace loopscope
