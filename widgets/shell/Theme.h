// Light and dark: the window follows the desktop's colour scheme unless the user picks one
// (View ▸ Theme, kept in the settings). Every view takes its colours from the palette.
#pragma once

#include <QPalette>
#include <QString>

class QMenu;

namespace loopscope {

enum class ThemeChoice { FollowDesktop, Light, Dark };

ThemeChoice savedTheme();
void saveTheme(ThemeChoice choice);

// Whether the desktop asks for dark: the freedesktop colour-scheme setting (GNOME's
// `color-scheme`, read with gsettings when it is installed), GTK_THEME ending in ":dark", or a
// platform palette that is already dark.
bool desktopPrefersDark();

QPalette darkPalette();
QPalette lightPalette();

// Applies the choice to the application (Fusion style, so the palette is honoured everywhere).
// Returns whether the result is dark.
bool applyTheme(ThemeChoice choice);

// View ▸ Theme: the three choices, the saved one checked; a choice is saved and applied.
void addThemeMenu(QMenu* view);

} // namespace loopscope
