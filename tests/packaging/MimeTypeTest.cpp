// The MIME type the Debian package installs for TE scripts (packaging/loopscope-mime.xml), as a
// desktop sees it: the XML compiled by shared-mime-info's update-mime-database into a data folder
// of its own, then asked through Qt's MIME database, which reads that folder first. "Open with
// Loopscope" needs TE scripts recognised, and every other Python file left to Python.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QMimeDatabase>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

QTemporaryDir* g_data = nullptr; // XDG data folder holding mime/ compiled from the package's XML

QString write(const QString& name, const QByteArray& text)
{
    QString path = g_data->filePath(QStringLiteral("files/") + name);
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly)) << path.toStdString();
    f.write(text);
    return path;
}

const QByteArray kScript =
    "import tvm\nfrom tvm import te\n\nM = 64\nA = te.placeholder((M,), name=\"A\")\n"
    "B = te.compute((M,), lambda i: A[i] + 1, name=\"B\")\ns = te.create_schedule(B.op)\n";

TEST(MimeType, ATeDotPyFileIsATeScript)
{
    QMimeDatabase db;
    EXPECT_EQ(db.mimeTypeForFile(write(QStringLiteral("gemm.te.py"), kScript)).name().toStdString(),
              "text/x-loopscope-script");
    // Named so even when its text is not a schedule yet (a new, empty script).
    EXPECT_EQ(db.mimeTypeForFile(write(QStringLiteral("new.te.py"), "")).name().toStdString(),
              "text/x-loopscope-script");
}

TEST(MimeType, ATeScriptIsStillPython)
{
    QMimeDatabase db;
    QMimeType type = db.mimeTypeForName(QStringLiteral("text/x-loopscope-script"));
    ASSERT_TRUE(type.isValid());
    EXPECT_TRUE(type.inherits(QStringLiteral("text/x-python3")));
    EXPECT_TRUE(type.inherits(QStringLiteral("text/plain")));
}

TEST(MimeType, OtherPythonFilesStayPython)
{
    QMimeDatabase db;
    // Even one that creates a schedule: its name says Python, and the glob decides.
    for (const auto& [name, text] :
         {std::pair{QStringLiteral("plain.py"), QByteArray("import os\nprint(1)\n")},
          std::pair{QStringLiteral("opt_gemm.py"), kScript}}) {
        QString type = db.mimeTypeForFile(write(name, text)).name();
        EXPECT_TRUE(type == QStringLiteral("text/x-python3") ||
                    type == QStringLiteral("text/x-python"))
            << name.toStdString() << " is " << type.toStdString();
    }
}

TEST(MimeType, AScriptWithoutAnExtensionIsRecognisedByItsText)
{
    QMimeDatabase db;
    EXPECT_EQ(db.mimeTypeForFile(write(QStringLiteral("schedule"), kScript)).name().toStdString(),
              "text/x-loopscope-script");
}

} // namespace

int main(int argc, char** argv)
{
    testing::InitGoogleTest(&argc, argv);
    // Before the application exists: Qt reads XDG_DATA_DIRS once.
    auto data = std::make_unique<QTemporaryDir>();
    g_data = data.get();
    QDir(data->path()).mkpath(QStringLiteral("mime/packages"));
    QDir(data->path()).mkpath(QStringLiteral("files"));
    if (!QFile::copy(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/packaging/loopscope-mime.xml"),
                     data->filePath(QStringLiteral("mime/packages/loopscope.xml")))) {
        std::fprintf(stderr, "cannot copy packaging/loopscope-mime.xml\n");
        return 1;
    }
    std::string compile =
        "update-mime-database '" + data->filePath(QStringLiteral("mime")).toStdString() + "'";
    if (std::system(compile.c_str()) != 0) {
        std::fprintf(stderr, "update-mime-database failed (is shared-mime-info installed?)\n");
        return 1;
    }
    qputenv("XDG_DATA_DIRS",
            (data->path() + QStringLiteral(":/usr/local/share:/usr/share")).toLocal8Bit());
    QCoreApplication app(argc, argv);
    return RUN_ALL_TESTS();
}
