// A program with NCCL "linked statically" (it defines NCCL's pncclAllReduce itself), for the
// interposer's check that says its calls cannot be interposed.
#include <cstdio>

extern "C" __attribute__((used, noinline)) int pncclAllReduce() { return 0; }

int main() {
  std::printf("%d\n", pncclAllReduce());
  return 0;
}
