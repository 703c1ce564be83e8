// Finding NCCL linked statically into a program or library, whose calls an LD_PRELOAD interposer
// cannot see: objects that define NCCL's pncclAllReduce, read from their ELF symbol tables.
// Thread-safety: pure functions (they read files and the process's list of loaded objects).
#pragma once

#include <string>
#include <vector>

namespace outrider::shim {

// Whether the ELF file at `path` defines `symbol` in its symbol table (.symtab or .dynsym).
bool DefinesSymbol(const char* path, const char* symbol);
// The executable, and unless `executable_only` the loaded libraries other than libnccl itself and
// the interposer, that define pncclAllReduce.
std::vector<std::string> StaticNcclHolders(bool executable_only);

}  // namespace outrider::shim
