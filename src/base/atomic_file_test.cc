// Tests of the one atomic file write: whole or nothing, the temporary file never left behind.
#include "base/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

TEST(AtomicFile, WritesWholeFileWithPlainOpenModeAndLeavesNoTemporary) {
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
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
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

TEST(AtomicFile, RenameOntoADirectoryFailsAndCleansUp) {
  TempDir dir;
  const std::string path = dir.path() + "/sub";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((path + "/x").c_str(), 0755), 0);  // a non-empty folder cannot be replaced
  Status s = WriteFileAtomically(path, "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rename"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
  EXPECT_EQ(dir.Entries(), 1u) << "the temporary file was left";
}

}  // namespace
}  // namespace nodescope
