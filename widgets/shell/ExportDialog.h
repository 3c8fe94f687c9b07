// File > Export Variant: the exported text, read-only, with Save (to a file the user picks, named
// after the export's function by default) and Close. For an object file the text shown is its C
// header; Save writes the object and the header beside it (NAME.o and NAME.h).
#pragma once

#include <QByteArray>
#include <QDialog>
#include <QString>

namespace loopscope {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const QString& variant, const QString& text, const QString& suggestedName,
                 QWidget* parent = nullptr, const QByteArray& object = {});

    // Writes the export to `path` (and, for an object, its header to the same name with .h);
    // an empty string on success, else why not.
    QString saveTo(const QString& path) const;

private:
    void saveToFile();

    QString m_text;
    QByteArray m_object;
    QString m_suggestedName;
};

} // namespace loopscope
