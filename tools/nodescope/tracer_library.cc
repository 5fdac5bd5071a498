// Reading an ELF file's dynamic symbols, bounds-checked, without loading it.
#include "tracer_library.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>

namespace nodescope::cli {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "nodescope run: unknown machine for the ELF check"
#endif

// A read-only view of a whole file.
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr) munmap(data_, size_);
  }
  Status Open(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoError("cannot read '" + path + "'", errno);
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      return InvalidArgumentError("'" + path + "' is not a regular file");
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        int err = errno;
        close(fd);
        return ErrnoError("cannot read '" + path + "'", err);
      }
      data_ = p;
    }
    close(fd);
    return OkStatus();
  }
  // The bytes [offset, offset + n) if they are all in the file, else nullptr.
  const uint8_t* At(uint64_t offset, uint64_t n) const {
    if (offset > size_ || n > size_ - offset) return nullptr;
    return static_cast<const uint8_t*>(data_) + offset;
  }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

Status CheckTracerLibrary(const std::string& path, const std::vector<std::string>& symbols) {
  MappedFile file;
  RETURN_IF_ERROR(file.Open(path));
  auto not_ours = [&](const std::string& why) {
    return InvalidArgumentError("'" + path + "' is not a nodescope tracer library: " + why);
  };
  Elf64_Ehdr eh;
  const uint8_t* p = file.At(0, sizeof(eh));
  if (p == nullptr || std::memcmp(p, ELFMAG, SELFMAG) != 0) return not_ours("not an ELF file");
  std::memcpy(&eh, p, sizeof(eh));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_machine != kMachine) {
    return not_ours("built for another machine");
  }
  if (eh.e_type != ET_DYN) return not_ours("not a shared library");
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return not_ours("malformed section headers");
  auto section = [&](uint64_t index, Elf64_Shdr* out) {
    const uint8_t* s = index < eh.e_shnum
                           ? file.At(eh.e_shoff + index * sizeof(Elf64_Shdr), sizeof(Elf64_Shdr))
                           : nullptr;
    if (s != nullptr) std::memcpy(out, s, sizeof(*out));
    return s != nullptr;
  };
  std::set<std::string> missing(symbols.begin(), symbols.end());
  for (uint64_t i = 0; i < eh.e_shnum && !missing.empty(); ++i) {
    Elf64_Shdr sym_section, str_section;
    if (!section(i, &sym_section)) return not_ours("malformed section headers");
    if (sym_section.sh_type != SHT_DYNSYM) continue;
    if (!section(sym_section.sh_link, &str_section) ||
        file.At(sym_section.sh_offset, sym_section.sh_size) == nullptr ||
        file.At(str_section.sh_offset, str_section.sh_size) == nullptr) {
      return not_ours("malformed symbol table");
    }
    const char* strings =
        reinterpret_cast<const char*>(file.At(str_section.sh_offset, str_section.sh_size));
    for (uint64_t k = 0; k + 1 <= sym_section.sh_size / sizeof(Elf64_Sym); ++k) {
      Elf64_Sym sym;
      std::memcpy(&sym, file.At(sym_section.sh_offset + k * sizeof(Elf64_Sym), sizeof(sym)),
                  sizeof(sym));
      unsigned bind = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
          sym.st_name >= str_section.sh_size) {
        continue;
      }
      size_t room = str_section.sh_size - sym.st_name;
      size_t len = strnlen(strings + sym.st_name, room);
      if (len == room) continue;  // not terminated inside the table
      missing.erase(std::string(strings + sym.st_name, len));
    }
  }
  if (!missing.empty()) return not_ours("it does not define " + *missing.begin());
  return OkStatus();
}

std::vector<std::string> TracerLibrarySymbols(const Launcher& launcher) {
  return {launcher.entry_symbol};
}

StatusOr<std::string> FindTracerLibrary(const Launcher& launcher, const char* env_library,
                                        const std::string& self_dir) {
  std::vector<std::string> symbols = TracerLibrarySymbols(launcher);
  std::string path;
  std::string from;  // how the user named it, for messages
  if (env_library != nullptr && *env_library != '\0') {
    from = "NODESCOPE_LIBRARY: ";
    path = env_library;
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) path += "/" + launcher.library;
    Status ours = CheckTracerLibrary(path, symbols);
    if (!ours.ok()) return InvalidArgumentError(from + ours.message());
  } else {
    for (const std::string& candidate :
         {self_dir + "/../lib/" + launcher.library, self_dir + "/" + launcher.library}) {
      char real[PATH_MAX];
      if (access(candidate.c_str(), R_OK) == 0 && realpath(candidate.c_str(), real) != nullptr) {
        path = real;
        break;
      }
    }
    if (path.empty()) {
      return NotFoundError(
          launcher.library + " not found next to the nodescope binary (looked in " + self_dir +
          "/../lib; build the `nodescope_libraries` target), or set " + "NODESCOPE_LIBRARY");
    }
    RETURN_IF_ERROR(CheckTracerLibrary(path, symbols));
  }
  // The backend library links libnodescope.so and finds it beside itself ($ORIGIN).
  size_t slash = path.rfind('/');
  std::string core =
      (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/libnodescope.so";
  Status core_ok = CheckTracerLibrary(core, {"nodescope_plugin_host_v1"});
  if (!core_ok.ok()) {
    return InvalidArgumentError(from + "libnodescope.so must be beside " + path + ": " +
                                core_ok.message());
  }
  return path;
}

}  // namespace nodescope::cli
