// Tests of finding and checking the library `nodescope run` injects (NODESCOPE_LIBRARY).
#include "tracer_library.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "base/build_config.h"

namespace nodescope::cli {
namespace {

// NODESCOPE_LIB_DIR: where this build puts libnodescope.so and the backend libraries.
const std::string kCore = std::string(NODESCOPE_LIB_DIR) + "/libnodescope.so";

// A launcher whose library is libnodescope.so itself, as `run`'s test stub has.
Launcher CoreLauncher() {
  return Launcher{"core", "the GPU runtime", "libnodescope.so", "nodescope_start", nullptr,
                  nullptr};
}

TEST(CheckTracerLibrary, AcceptsTheLibrariesOfThisBuild) {
  Status s = CheckTracerLibrary(kCore, {"nodescope_start", "nodescope_plugin_host_v1"});
  EXPECT_TRUE(s.ok()) << s.ToString();
  // The vendor's entry point is in its backend library, never in libnodescope.so.
  s = CheckTracerLibrary(kCore, {"InitializeInjection"});
  EXPECT_NE(s.message().find("does not define InitializeInjection"), std::string::npos)
      << s.message();
  if (NODESCOPE_BUILDFLAG(HAS_CUPTI)) {
    s = CheckTracerLibrary(std::string(NODESCOPE_LIB_DIR) + "/libnodescope_cuda.so",
                           {"InitializeInjection", "nodescope_plugin_v1"});
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
}

TEST(CheckTracerLibrary, RefusesAnyOtherFile) {
  std::vector<std::string> symbols = TracerLibrarySymbols(CoreLauncher());
  Status s = CheckTracerLibrary("/etc/passwd", symbols);
  EXPECT_EQ(s.message(), "'/etc/passwd' is not a nodescope tracer library: not an ELF file");
  EXPECT_FALSE(CheckTracerLibrary("/nonexistent.so", symbols).ok());
  EXPECT_FALSE(CheckTracerLibrary("/tmp", symbols).ok());
  // An ELF file, but an executable: this test itself (or a PIE without our symbols).
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  EXPECT_FALSE(CheckTracerLibrary(self, symbols).ok());
  // Our library, but a symbol it does not define.
  s = CheckTracerLibrary(kCore, {"no_such_symbol_xyz"});
  EXPECT_NE(s.message().find("does not define no_such_symbol_xyz"), std::string::npos)
      << s.message();
}

TEST(CheckTracerLibrary, TruncatedOrCorruptElfIsRefusedNotRead) {
  std::vector<std::string> symbols = TracerLibrarySymbols(CoreLauncher());
  std::ifstream in(kCore, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 4096u);
  char tmpl[] = "/tmp/nodescope-elf-XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  for (size_t keep : {size_t{3}, size_t{64}, size_t{4096}, bytes.size() / 2}) {
    std::ofstream(tmpl, std::ios::binary) << bytes.substr(0, keep);
    EXPECT_FALSE(CheckTracerLibrary(tmpl, symbols).ok()) << keep << " bytes";
  }
  std::string corrupt = bytes;
  corrupt[0x28] = '\x7f';  // e_shoff far past the end
  corrupt[0x2f] = '\x7f';
  std::ofstream(tmpl, std::ios::binary) << corrupt;
  EXPECT_FALSE(CheckTracerLibrary(tmpl, symbols).ok());
  unlink(tmpl);
}

TEST(FindTracerLibrary, BesideTheBinaryOrNamedByFileOrFolder) {
  // The binary in <build>/bin: the library in <build>/lib.
  StatusOr<std::string> found =
      FindTracerLibrary(CoreLauncher(), nullptr, std::string(NODESCOPE_LIB_DIR) + "/../bin");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->substr(found->rfind('/')), "/libnodescope.so");
  found = FindTracerLibrary(CoreLauncher(), NODESCOPE_LIB_DIR, "/nonexistent");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, kCore);
  found = FindTracerLibrary(CoreLauncher(), kCore.c_str(), "/nonexistent");
  EXPECT_TRUE(found.ok()) << found.status().ToString();
  found = FindTracerLibrary(CoreLauncher(), nullptr, "/nonexistent");
  EXPECT_EQ(found.status().message(),
            "libnodescope.so not found next to the nodescope binary (looked in "
            "/nonexistent/../lib; build the `nodescope_libraries` target), or set "
            "NODESCOPE_LIBRARY");
}

TEST(FindTracerLibrary, TheBackendLibraryNeedsLibnodescopeBesideIt) {
  char dir[] = "/tmp/nodescope-lib-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  // A backend library (here a copy of libnodescope.so under another name) alone in its folder.
  std::string lonely = std::string(dir) + "/libnodescope_lonely.so";
  {
    std::ifstream in(kCore, std::ios::binary);
    std::ofstream(lonely, std::ios::binary) << in.rdbuf();
  }
  StatusOr<std::string> found = FindTracerLibrary(CoreLauncher(), lonely.c_str(), "/nonexistent");
  EXPECT_NE(
      found.status().message().find("NODESCOPE_LIBRARY: libnodescope.so must be beside " + lonely),
      std::string::npos)
      << found.status().message();
  unlink(lonely.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace nodescope::cli
