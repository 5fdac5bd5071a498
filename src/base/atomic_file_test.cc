// Tests of the one atomic file write: whole or nothing, the temporary file never left behind.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace nodescope {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "atomic_file_test.XXXXXX";
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  size_t Entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path_)) ++n;
    return n;
  }

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, WritesWholeFileReadableByItsOwnerAloneAndLeavesNoTemporary) {
  TempDir dir;
  const std::string path = dir.path() + "/out.svg";
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "new contents").ok());
  EXPECT_EQ(ReadFile(path), "new contents");
  EXPECT_EQ(dir.Entries(), 1u) << "a temporary file was left";
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  const mode_t mask = umask(0);
  umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0600 & ~mask);
}

TEST(AtomicFile, UncommittedFileLeavesTheOldOneAndNoTemporary) {
  TempDir dir;
  const std::string path = dir.path() + "/trace.json";
  ASSERT_TRUE(WriteFileAtomically(path, "old").ok());
  {
    StatusOr<AtomicFile> file = AtomicFile::Create(path);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_TRUE(file->Write("half of a new").ok());
    EXPECT_EQ(access(file->temp_path().c_str(), F_OK), 0);
    EXPECT_EQ(file->temp_path().rfind(path + ".tmp-", 0), 0u) << file->temp_path();
  }
  EXPECT_EQ(ReadFile(path), "old");
  EXPECT_EQ(dir.Entries(), 1u) << "the temporary file was left";
}

TEST(AtomicFile, ErrorsNameThePath) {
  Status s = WriteFileAtomically("/nonexistent-nodescope-dir/x.svg", "x");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent-nodescope-dir/x.svg.tmp"), std::string::npos)
      << s.ToString();
}

TEST(AtomicFile, AFolderIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string path = dir.path() + "/sub";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((path + "/x").c_str(), 0755), 0);
  Status s = WriteFileAtomically(path, "x");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("it is a folder"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  EXPECT_EQ(dir.Entries(), 1u) << "the temporary file was left";
}

// Issue 24: `-o` naming a device or a FIFO writes into it; it is never replaced by a file.
TEST(AtomicFile, ACharacterDeviceIsWrittenInPlaceAndStaysADevice) {
  StatusOr<OutputKind> kind = ClassifyOutput("/dev/null");
  ASSERT_TRUE(kind.ok());
  EXPECT_EQ(*kind, OutputKind::kDirect);
  ASSERT_TRUE(WriteFileAtomically("/dev/null", "a trace").ok());
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
  // A full device reports the lost bytes instead of success.
  Status full = WriteFileAtomically("/dev/full", std::string(8192, 'x'));
  EXPECT_FALSE(full.ok());
  EXPECT_NE(full.message().find("/dev/full"), std::string::npos) << full.ToString();
  ASSERT_EQ(stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/full was replaced";
}

TEST(AtomicFile, AFifoIsWrittenInPlaceToItsReader) {
  TempDir dir;
  const std::string fifo = dir.path() + "/trace.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    got = s.str();
  });
  // The reader's open() may come later than ours: retry the way a user's `cat` would be waited for.
  Status written = UnavailableError("not tried");
  for (int i = 0; i < 500 && !written.ok(); ++i) {
    written = WriteFileAtomically(fifo, "{\"traceEvents\":[]}");
    if (!written.ok()) usleep(10000);
  }
  reader.join();
  ASSERT_TRUE(written.ok()) << written.ToString();
  EXPECT_EQ(got, "{\"traceEvents\":[]}");
  struct stat st {};
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(dir.Entries(), 1u);
}

TEST(AtomicFile, AFifoNobodyReadsIsAnErrorNotAHang) {
  TempDir dir;
  const std::string fifo = dir.path() + "/nobody.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Status s = WriteFileAtomically(fifo, "x");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("no process reads that FIFO"), std::string::npos) << s.ToString();
}

TEST(AtomicFile, FoldersAndSocketsAreRefusedUpFront) {
  TempDir dir;
  EXPECT_EQ(ClassifyOutput(dir.path()).status().code(), StatusCode::kInvalidArgument);
  const std::string sock_path = dir.path() + "/s";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock_path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  Status s = WriteFileAtomically(sock_path, "x");
  close(fd);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("it is a socket"), std::string::npos) << s.ToString();
}

// Issue 24: two writers of one path: the second never silently replaces the first.
TEST(AtomicFile, AFileThatAppearedMeanwhileIsKeptAndThisOneNamedByPid) {
  TempDir dir;
  const std::string path = dir.path() + "/same.json";
  const FileIdentity before = IdentifyFile(path);  // absent when this writer began
  ASSERT_FALSE(before.exists);
  ASSERT_TRUE(WriteFileAtomically(path, "the other writer's").ok());
  StatusOr<AtomicFile> file = AtomicFile::Create(path, &before);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(file->Write("mine").ok());
  ASSERT_TRUE(file->Commit().ok());
  EXPECT_TRUE(file->conflict());
  EXPECT_EQ(file->path(), dir.path() + "/same-" + std::to_string(getpid()) + ".json");
  EXPECT_EQ(ReadFile(path), "the other writer's");
  EXPECT_EQ(ReadFile(file->path()), "mine");
}

TEST(AtomicFile, AFileReplacedMeanwhileIsKeptButAnUnchangedOneIsReplaced) {
  TempDir dir;
  const std::string path = dir.path() + "/t.json";
  ASSERT_TRUE(WriteFileAtomically(path, "an earlier run's").ok());
  const FileIdentity before = IdentifyFile(path);
  {
    StatusOr<AtomicFile> file = AtomicFile::Create(path, &before);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->Write("replaces it").ok());
    ASSERT_TRUE(file->Commit().ok());
    EXPECT_FALSE(file->conflict());
    EXPECT_EQ(ReadFile(path), "replaces it");
  }
  const FileIdentity second = IdentifyFile(path);
  ASSERT_TRUE(WriteFileAtomically(path, "a concurrent run's, longer").ok());
  StatusOr<AtomicFile> file = AtomicFile::Create(path, &second);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(file->Commit().ok());
  EXPECT_TRUE(file->conflict());
  EXPECT_EQ(ReadFile(path), "a concurrent run's, longer");
}

TEST(AtomicFile, ASymbolicLinkIsWrittenThrough) {
  TempDir dir;
  const std::string real = dir.path() + "/run5.json";
  const std::string link = dir.path() + "/latest.json";
  ASSERT_TRUE(WriteFileAtomically(real, "old").ok());
  ASSERT_EQ(symlink(real.c_str(), link.c_str()), 0);
  {
    StatusOr<AtomicFile> file = AtomicFile::Create(link);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->Write("new").ok());
    ASSERT_TRUE(file->Commit().ok());
    EXPECT_EQ(file->path(), link) << "the trace is reported under the name it was asked for";
  }
  struct stat st {};
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
  EXPECT_EQ(ReadFile(real), "new");
}

// Issue 24: a writer killed mid-write leaves PATH.tmp-<pid>-XXXXXX; the next writer removes it.
TEST(AtomicFile, TemporaryFilesOfDeadWritersAreSweptByTheNext) {
  TempDir dir;
  const std::string path = dir.path() + "/t.json";
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);  // its pid is now a writer that is gone
  auto make = [&](const std::string& name, time_t age) {
    const std::string p = dir.path() + "/" + name;
    std::ofstream(p) << "half";
    timespec times[2];
    clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= age;
    times[1] = times[0];
    EXPECT_EQ(utimensat(AT_FDCWD, p.c_str(), times, 0), 0);
    return p;
  };
  const std::string dead = make("t.json.tmp-" + std::to_string(child) + "-AbC123", 60);
  const std::string recent = make("t.json.tmp-" + std::to_string(child) + "-XyZ789", 0);
  const std::string alive = make("t.json.tmp-" + std::to_string(getppid()) + "-QqQ000", 60);
  const std::string other = make("u.json.tmp-" + std::to_string(child) + "-AbC123", 60);
  ASSERT_TRUE(WriteFileAtomically(path, "whole").ok());
  EXPECT_NE(access(dead.c_str(), F_OK), 0) << "a dead writer's temporary file was left";
  EXPECT_EQ(access(recent.c_str(), F_OK), 0) << "a file written seconds ago was removed";
  EXPECT_EQ(access(alive.c_str(), F_OK), 0) << "a live writer's temporary file was removed";
  EXPECT_EQ(access(other.c_str(), F_OK), 0) << "another path's temporary file was removed";
}

TEST(AtomicFile, PidNamedPathKeepsTheExtension) {
  EXPECT_EQ(PidNamedPath("out/job.json", 42), "out/job-42.json");
  EXPECT_EQ(PidNamedPath("out.d/job", 42), "out.d/job-42");
  EXPECT_EQ(PidNamedPath(".hidden", 42), ".hidden-42");
}

}  // namespace
}  // namespace nodescope
