// CHECK: broken internal invariants abort, in release builds too. Conditions that a client, a
// peer or the network can cause are Status values, never CHECKs.
#pragma once

#include <cstdio>
#include <cstdlib>

#define OUTRIDER_CHECK(cond)                                                        \
  do {                                                                              \
    if (__builtin_expect(!(cond), 0)) {                                             \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)
