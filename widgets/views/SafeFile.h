// Writing a file whole or not at all, and reading the files the app keeps for itself (a cache of
// measurements, the autosaved text, the settings) when they can no longer be read as what they
// should be: cut short, overwritten with something else, or holding values of the wrong kind.
// Such a file is never written over or deleted: it is renamed aside (NAME.corrupt-DATE) for the
// user to look at, the app carries on without it, and the user is told once, in a message that
// says what was set aside and where it is now.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

class QSaveFile;

#include <optional>

namespace loopscope {

// Opens `file` (a QSaveFile, not yet open), writes all of `bytes` into it and commits: the file
// on disk is replaced only when every byte was written. False, with file.errorString() saying
// why (no space left, no permission...), when any of it could not be; the file on disk is then
// as it was, and the half-written copy is removed with `file`. (A write cut short by a full disk is
// not an error to QSaveFile's buffered writing, which would commit what fitted.)
bool writeWhole(QSaveFile& file, const QByteArray& bytes);

// For the files the app keeps for itself (the autosave, the caches of measurements), which are
// written while the user types or runs: writes `bytes` into a new file beside `file` and renames
// it over `file` (tune/TuneLog.h writeFileSafely) without waiting for the disk, so `file` is always
// whole, the old bytes or the new.
// A thread shared by all such files then waits for the disk to hold them (against a power cut),
// so a slow or busy disk never stalls the window. False, with `file` as it was and no half-written
// copy left, when any byte could not be written (a full disk, a size limit) or the rename failed.
bool replaceWhole(const QString& file, const QByteArray& bytes);

// The JSON object in `bytes`, or nothing when they are not one (empty, cut short, not JSON,
// another kind of JSON value).
std::optional<QJsonObject> parseJsonObject(const QByteArray& bytes);

// Renames `file` to FILE.corrupt-yyyyMMdd-hhmmss (with -2, -3... when that exists) and returns
// the message for the user: `what` ("the ladder's saved measurements") could not be read, where
// the file is now, and `consequence` ("the ladder starts without them"). When it cannot be renamed,
// the message says so, and `*setAside` (when given) is false: the caller must then leave the file
// alone, not write over it.
QString setAsideDamagedFile(const QString& file, const QString& what, const QString& consequence,
                            bool* setAside = nullptr);

} // namespace loopscope
