#include "views/SafeFile.h"

#include "tune/TuneLog.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

namespace loopscope {
namespace {

// Waits for the disk to hold each replaced file, one at a time, on its own thread: an fdatasync
// can take hundreds of milliseconds on a busy disk. A file replaced again before its turn is
// waited for once, with its newest bytes.
class DiskSync {
public:
    static DiskSync& instance()
    {
        static DiskSync sync;
        return sync;
    }
    DiskSync(const DiskSync&) = delete;
    DiskSync& operator=(const DiskSync&) = delete;

    void hold(const std::string& path)
    {
        {
            std::lock_guard lock(m_mutex);
            if (std::find(m_pending.begin(), m_pending.end(), path) != m_pending.end()) return;
            m_pending.push_back(path);
        }
        m_wake.notify_one();
    }

private:
    DiskSync() : m_thread([this] { run(); }) {}
    ~DiskSync()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_one();
        m_thread.join();
    }

    void run()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_stop || !m_pending.empty(); });
            if (m_pending.empty()) return; // stopped, with nothing left to wait for
            const std::string path = std::move(m_pending.front());
            m_pending.pop_front();
            lock.unlock();
            // Gone already (the autosave removed on a save): nothing to wait for.
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                ::fdatasync(fd);
                ::close(fd);
            }
            lock.lock();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::string> m_pending;
    bool m_stop = false;
    std::thread m_thread; // last: started when the rest is ready
};

} // namespace

bool replaceWhole(const QString& file, const QByteArray& bytes)
{
    const std::string path = QFile::encodeName(file).toStdString();
    std::string why;
    if (!writeFileSafely(path, bytes.toStdString(), &why)) return false;
    DiskSync::instance().hold(path);
    return true;
}

bool writeWhole(QSaveFile& file, const QByteArray& bytes)
{
    // Unbuffered: each write goes to the system at once, so a short one is seen here and the
    // next one says why (ENOSPC, EFBIG), which makes the commit fail.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) return false;
    qint64 written = 0;
    while (written < bytes.size()) {
        const qint64 n = file.write(bytes.constData() + written, bytes.size() - written);
        // Not committed: the temporary file goes with `file`, whose error says why.
        if (n <= 0) return false;
        written += n;
    }
    return file.commit();
}

std::optional<QJsonObject> parseJsonObject(const QByteArray& bytes)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) return std::nullopt;
    return document.object();
}

QString setAsideDamagedFile(const QString& file, const QString& what, const QString& consequence,
                            bool* setAside)
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"));
    QString aside = file + QStringLiteral(".corrupt-") + stamp;
    for (int n = 2; QFile::exists(aside); ++n)
        aside = file + QStringLiteral(".corrupt-") + stamp + u'-' + QString::number(n);
    QFile damaged(file);
    const bool renamed = damaged.rename(aside);
    if (setAside) *setAside = renamed;
    if (!renamed)
        return QCoreApplication::translate("SafeFile",
                                           "Could not read %1 from %2: the file is damaged, and it "
                                           "cannot be set aside (%3). It is left as it is and not "
                                           "used in this session; %4.")
            .arg(what, QDir::toNativeSeparators(file), damaged.errorString(), consequence);
    return QCoreApplication::translate("SafeFile",
                                       "Could not read %1 from %2: the file is damaged. It was set "
                                       "aside as %3; %4.")
        .arg(what, QDir::toNativeSeparators(file), QDir::toNativeSeparators(aside), consequence);
}

} // namespace loopscope
