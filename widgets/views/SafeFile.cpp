#include "views/SafeFile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace loopscope {
namespace {

// Waits for the disk to hold each replaced file, one at a time, on its own thread: an fdatasync
// can take hundreds of milliseconds on a busy disk. A file replaced again before its turn is not
// waited for: its newer bytes are.
class DiskSync {
public:
    static DiskSync& instance()
    {
        static DiskSync sync;
        return sync;
    }
    DiskSync(const DiskSync&) = delete;
    DiskSync& operator=(const DiskSync&) = delete;

    // Takes `fd`, an open descriptor of `file` just renamed into place, and closes it.
    void hold(const QByteArray& file, int fd)
    {
        int superseded = -1;
        {
            std::lock_guard lock(m_mutex);
            const auto same = std::find_if(m_pending.begin(), m_pending.end(),
                                           [&file](const Pending& p) { return p.file == file; });
            if (same != m_pending.end())
                superseded = std::exchange(same->fd, fd);
            else
                m_pending.push_back({file, fd});
        }
        if (superseded >= 0) ::close(superseded);
        m_wake.notify_one();
    }

private:
    struct Pending {
        QByteArray file;
        int fd;
    };

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
            const int fd = m_pending.front().fd;
            m_pending.pop_front();
            lock.unlock();
            ::fdatasync(fd);
            ::close(fd);
            lock.lock();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Pending> m_pending;
    bool m_stop = false;
    std::thread m_thread; // last: started when the rest is ready
};

} // namespace

bool replaceWhole(const QString& file, const QByteArray& bytes)
{
    const QByteArray target = QFile::encodeName(file);
    QByteArray name = target + ".XXXXXX";
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) return false;
    qint64 written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + written,
                                  static_cast<std::size_t>(bytes.size() - written));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += n;
    }
    if (written == bytes.size() && ::fchmod(fd, 0600) == 0 &&
        ::rename(name.constData(), target.constData()) == 0) {
        DiskSync::instance().hold(target, fd);
        return true;
    }
    ::close(fd);
    ::unlink(name.constData());
    return false;
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
