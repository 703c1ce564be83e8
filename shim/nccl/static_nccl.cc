// Finding NCCL linked statically (see static_nccl.h).
#include "shim/nccl/static_nccl.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace outrider::shim {

bool DefinesSymbol(const char* path, const char* symbol) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool found = false;
  if (::fstat(fd, &st) == 0 && st.st_size > static_cast<off_t>(sizeof(Elf64_Ehdr))) {
    void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      const auto* base = static_cast<const uint8_t*>(map);
      size_t size = static_cast<size_t>(st.st_size);
      const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
      bool elf64 =
          std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64;
      if (elf64 && eh->e_shoff + uint64_t{eh->e_shnum} * sizeof(Elf64_Shdr) <= size) {
        const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum && !found; ++i) {
          if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) continue;
          if (sh[i].sh_link >= eh->e_shnum) continue;
          const Elf64_Shdr& strtab = sh[sh[i].sh_link];
          if (sh[i].sh_offset + sh[i].sh_size > size || strtab.sh_offset + strtab.sh_size > size)
            continue;
          const auto* sym = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
          const char* names = reinterpret_cast<const char*>(base + strtab.sh_offset);
          for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k) {
            if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= strtab.sh_size) continue;
            if (std::strncmp(names + sym[k].st_name, symbol, strtab.sh_size - sym[k].st_name) ==
                0) {
              found = true;
              break;
            }
          }
        }
      }
      ::munmap(map, size);
    }
  }
  ::close(fd);
  return found;
}

std::vector<std::string> StaticNcclHolders(bool executable_only) {
  std::vector<std::string> out;
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    if (DefinesSymbol(exe, "pncclAllReduce")) out.push_back(exe);
  }
  if (executable_only) return out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        const char* name = info->dlpi_name;
        if (name == nullptr || *name == '\0' || std::strstr(name, "libnccl.so") != nullptr ||
            std::strstr(name, "liboutrider_nccl") != nullptr) {
          return 0;
        }
        if (DefinesSymbol(name, "pncclAllReduce"))
          static_cast<std::vector<std::string>*>(arg)->push_back(name);
        return 0;
      },
      &out);
  return out;
}

}  // namespace outrider::shim
