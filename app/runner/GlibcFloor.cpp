// The runner should start on the Linux a GPU machine has, whose C library may be older than the
// one it was built on. The C++ runtime linked into it refers to arc4random (glibc 2.36) through
// std::random_device, which the runner never uses; this definition satisfies that reference
// within the program, so the oldest C library the runner needs is set by what it does use
// (glibc 2.34: libdl and libpthread merged into libc). Nothing calls it.
#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t arc4random()
{
    std::abort();
}
