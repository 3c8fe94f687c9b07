#include "shell/RecoveryStore.h"

#include "views/SafeFile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace loopscope {

// Waits for the disk to hold each autosave, one at a time, on its own thread: an fdatasync can
// take hundreds of milliseconds on a busy disk, and the window must not wait for it. An autosave
// replaced before its turn is not waited for: the newer one is.
class RecoveryStore::DiskSync {
public:
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
    DiskSync(const DiskSync&) = delete;
    DiskSync& operator=(const DiskSync&) = delete;

    // Takes `fd`, an open descriptor of the file just renamed into place, and closes it.
    void hold(int fd)
    {
        int superseded = -1;
        {
            std::lock_guard lock(m_mutex);
            superseded = m_fd;
            m_fd = fd;
        }
        if (superseded >= 0) ::close(superseded);
        m_wake.notify_one();
    }

private:
    void run()
    {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_stop || m_fd >= 0; });
            const int fd = m_fd;
            m_fd = -1;
            if (fd >= 0) {
                lock.unlock();
                ::fdatasync(fd);
                ::close(fd);
                lock.lock();
            } else if (m_stop) {
                return;
            }
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    int m_fd = -1;
    bool m_stop = false;
    std::thread m_thread; // last: started when the rest is ready
};

namespace {

// Writes `bytes` into a new file beside `file` and renames it over `file`, so `file` is always
// whole: the old text or the new. Returns the new file's descriptor (the caller waits for the
// disk and closes it), or -1 with nothing changed when any byte could not be written (a full
// disk, a size limit) or the rename failed; the half-written copy is removed.
int replaceWhole(const QString& file, const QByteArray& bytes)
{
    QByteArray name = QFile::encodeName(file) + ".XXXXXX";
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0) return -1;
    qint64 written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + written,
                                  static_cast<std::size_t>(bytes.size() - written));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += n;
    }
    if (written == bytes.size() && ::fchmod(fd, 0600) == 0 &&
        ::rename(name.constData(), QFile::encodeName(file).constData()) == 0)
        return fd;
    ::close(fd);
    ::unlink(name.constData());
    return -1;
}

} // namespace

RecoveryStore::RecoveryStore(QString directory, QObject* parent)
    : QObject(parent), m_directory(std::move(directory)), m_sync(std::make_unique<DiskSync>())
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultIntervalMs);
    connect(&m_timer, &QTimer::timeout, this, &RecoveryStore::flush);
}

RecoveryStore::~RecoveryStore() = default;

QString RecoveryStore::recoveryFile() const
{
    return QDir(m_directory).filePath(QStringLiteral("recovery.json"));
}

void RecoveryStore::textChanged(const QString& documentPath, const QString& text)
{
    m_path = documentPath;
    m_text = text;
    m_dirty = true;
    if (!m_timer.isActive()) m_timer.start();
}

void RecoveryStore::flush()
{
    m_timer.stop();
    if (!m_dirty) return;
    QDir().mkpath(m_directory);
    QJsonObject o{{QStringLiteral("path"), m_path},
                  {QStringLiteral("text"), m_text},
                  {QStringLiteral("savedAt"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
    const int fd = replaceWhole(recoveryFile(), QJsonDocument(o).toJson(QJsonDocument::Compact));
    if (fd >= 0) {
        m_sync->hold(fd);
        m_dirty = false;
        m_owned = true;
    }
}

void RecoveryStore::clear()
{
    m_timer.stop();
    m_dirty = false;
    if (m_owned) QFile::remove(recoveryFile());
    m_owned = false;
}

RecoveryStore::Recovery RecoveryStore::pending()
{
    Recovery r;
    QFile f(recoveryFile());
    if (!f.open(QIODevice::ReadOnly)) return r;
    const std::optional<QJsonObject> o = parseJsonObject(f.readAll());
    f.close();
    auto isText = [&o](const char* key) {
        const QJsonValue v = o->value(QLatin1String(key));
        return v.isString() || v.isUndefined();
    };
    if (!o || !o->value(QLatin1String("text")).isString() || !isText("path") ||
        !isText("savedAt")) {
        r.damage =
            setAsideDamagedFile(recoveryFile(), QObject::tr("the autosaved text"),
                                QObject::tr("there is no text to recover (what could be read "
                                            "is in that file)"));
        return r;
    }
    m_owned = true;
    r.available = true;
    r.documentPath = o->value(QStringLiteral("path")).toString();
    r.text = o->value(QStringLiteral("text")).toString();
    r.savedAt = o->value(QStringLiteral("savedAt")).toString();
    return r;
}

} // namespace loopscope
