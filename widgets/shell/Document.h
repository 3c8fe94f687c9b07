// The document: the script in the editor and the file it comes from. Opening and saving, the
// recent files, the window's title and its unsaved-changes mark, and the copy of the text kept
// for a session that does not close normally (RecoveryStore).
#pragma once

#include <QObject>
#include <QString>

class QMenu;
class QWidget;

namespace loopscope {

class AnalysisService;
class EditorPane;
class RecoveryStore;

class Document : public QObject {
    Q_OBJECT
public:
    // `window`: the window whose title the document sets and whose dialogs it shows.
    Document(EditorPane* editor, AnalysisService* analysis, QWidget* window);
    ~Document() override;

    QString path() const { return m_path; }

    // Opens a file; returns false (after telling the user) when it cannot be read.
    bool openFile(const QString& path);
    // Shows a text as the document at `path` (empty: untitled); `modified` counts it as unsaved.
    void setText(const QString& text, const QString& path, bool modified);
    // Offers the text a crashed session left behind; `ask` false restores without asking (tests).
    bool offerRecovery(bool ask = true);

    // The File menu.
    void newDocument();
    void openDialog();
    void openSample(const QString& path);
    bool save();
    bool saveAs();
    // Asks whether to save unsaved changes: false when the user cancels.
    bool maybeSave();
    // The menu of recently opened files, filled and kept up to date by the document.
    void setRecentMenu(QMenu* menu);

    // Before generated code runs: whatever it does, the text is safe.
    void secureText();
    // How long after an edit the text is autosaved at the latest (RecoveryStore).
    void setAutosaveIntervalMs(int ms);
    // The window closed normally: nothing to recover next time.
    void closed();

    // The samples that come with Loopscope (empty when there are none).
    static QString samplesDirectory();

signals:
    // Something the user should know that needs no answer (a damaged autosave set aside).
    void notice(const QString& message);

private:
    void onTextEdited();
    bool writeFile(const QString& path);
    void updateRecentFiles(const QString& path);
    void rebuildRecentMenu();
    void updateTitle();

    EditorPane* m_editor;
    AnalysisService* m_analysis;
    QWidget* m_window;
    RecoveryStore* m_recovery;
    QMenu* m_recentMenu = nullptr;
    QString m_path;
    bool m_applyingText = false;
};

} // namespace loopscope
