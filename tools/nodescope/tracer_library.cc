// Reading an ELF file's dynamic symbols, bounds-checked, without loading it.
#include "tracer_library.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "base/build_config.h"

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

std::vector<std::string> TracerLibrarySymbols() {
  std::vector<std::string> symbols = {"nodescope_start"};
  if (NODESCOPE_BUILDFLAG(HAS_CUPTI)) symbols.push_back("InitializeInjection");
  return symbols;
}

}  // namespace nodescope::cli
