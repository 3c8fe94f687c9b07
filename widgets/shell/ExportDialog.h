// File > Export Variant: the exported text, read-only, with Save (to a file the user picks, named
// after the export's function by default) and Close.
#pragma once

#include <QDialog>
#include <QString>

namespace loopscope {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    ExportDialog(const QString& variant, const QString& text, const QString& suggestedName,
                 QWidget* parent = nullptr);

private:
    void saveToFile();

    QString m_text;
    QString m_suggestedName;
};

} // namespace loopscope
