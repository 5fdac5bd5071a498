// Tests of the check on the library `nodescope run` injects (NODESCOPE_LIBRARY).
#include "tracer_library.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace nodescope::cli {
namespace {

TEST(CheckTracerLibrary, AcceptsTheLibraryOfThisBuild) {
  Status s = CheckTracerLibrary(NODESCOPE_LIBRARY_PATH, TracerLibrarySymbols());
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(CheckTracerLibrary, RefusesAnyOtherFile) {
  Status s = CheckTracerLibrary("/etc/passwd", TracerLibrarySymbols());
  EXPECT_EQ(s.message(), "'/etc/passwd' is not a nodescope tracer library: not an ELF file");
  EXPECT_FALSE(CheckTracerLibrary("/nonexistent.so", TracerLibrarySymbols()).ok());
  EXPECT_FALSE(CheckTracerLibrary("/tmp", TracerLibrarySymbols()).ok());
  // An ELF file, but an executable: this test itself (or a PIE without our symbols).
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  EXPECT_FALSE(CheckTracerLibrary(self, TracerLibrarySymbols()).ok());
  // Our library, but a symbol it does not define.
  s = CheckTracerLibrary(NODESCOPE_LIBRARY_PATH, {"no_such_symbol_xyz"});
  EXPECT_NE(s.message().find("does not define no_such_symbol_xyz"), std::string::npos)
      << s.message();
}

TEST(CheckTracerLibrary, TruncatedOrCorruptElfIsRefusedNotRead) {
  std::ifstream in(NODESCOPE_LIBRARY_PATH, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4096u);
  char tmpl[] = "/tmp/nodescope-elf-XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  for (size_t keep : {size_t{3}, size_t{64}, size_t{4096}, bytes.size() / 2}) {
    std::ofstream(tmpl, std::ios::binary) << bytes.substr(0, keep);
    EXPECT_FALSE(CheckTracerLibrary(tmpl, TracerLibrarySymbols()).ok()) << keep << " bytes";
  }
  std::string corrupt = bytes;
  corrupt[0x28] = '\x7f';  // e_shoff far past the end
  corrupt[0x2f] = '\x7f';
  std::ofstream(tmpl, std::ios::binary) << corrupt;
  EXPECT_FALSE(CheckTracerLibrary(tmpl, TracerLibrarySymbols()).ok());
  unlink(tmpl);
}

}  // namespace
}  // namespace nodescope::cli
