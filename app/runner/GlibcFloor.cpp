// The runner starts on the Linux a GPU machine has, whose C library may be older than the one it
// was built on: glibc 2.31 or newer (Debian 11, Ubuntu 20.04). A program linked against glibc
// 2.34 or later refers to the versions of that day of some functions (the program's start, dlopen,
// pthread_once; fstat64 of 2.33; libstdc++'s __libc_single_threaded of 2.32), which an older
// C library does not have. Each is defined here, hidden (it binds the references within the
// runner, the statically linked C++ runtime's included, and is invisible outside it), and calls
// the version glibc has exported since 2.2.5, which every later glibc still exports: the runner
// then needs nothing newer than glibc 2.31 (tested:
// Layers.the_gpu_runner_needs_only_the_c_library). In glibc before 2.34 the dl and pthread
// functions live in libdl.so.2 and libpthread.so.0, which the runner names for that reason
// (app/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#define LOOPSCOPE_HIDDEN __attribute__((visibility("hidden")))

extern "C" {

using InitFunction = void (*)(int, char**, char**);

// The entry point's call: new start files call __libc_start_main@GLIBC_2.34 with no init
// function, leaving the program's constructors to the C library; the 2.2.5 version, the only one
// before 2.34, runs the init function it is given instead, so this one runs them.
__asm__(".symver loopscope_old_libc_start_main, __libc_start_main@GLIBC_2.2.5");
int loopscope_old_libc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                                  InitFunction init, void (*fini)(), void (*rtldFini)(),
                                  void* stackEnd);
extern InitFunction __init_array_start[] LOOPSCOPE_HIDDEN;
extern InitFunction __init_array_end[] LOOPSCOPE_HIDDEN;
void _init();

static void loopscope_run_init(int argc, char** argv, char** env)
{
    // The preinit array is the dynamic loader's to run, in every version.
    _init();
    const std::size_t n = static_cast<std::size_t>(__init_array_end - __init_array_start);
    for (std::size_t i = 0; i < n; ++i)
        __init_array_start[i](argc, argv, env);
}

LOOPSCOPE_HIDDEN int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                                       InitFunction, void (*)(), void (*rtldFini)(), void* stackEnd)
{
    return loopscope_old_libc_start_main(main, argc, argv, loopscope_run_init, nullptr, rtldFini,
                                         stackEnd);
}

__asm__(".symver loopscope_old_dlopen, dlopen@GLIBC_2.2.5");
void* loopscope_old_dlopen(const char*, int);
LOOPSCOPE_HIDDEN void* dlopen(const char* file, int mode)
{
    return loopscope_old_dlopen(file, mode);
}

__asm__(".symver loopscope_old_dlsym, dlsym@GLIBC_2.2.5");
void* loopscope_old_dlsym(void*, const char*);
LOOPSCOPE_HIDDEN void* dlsym(void* handle, const char* name)
{
    return loopscope_old_dlsym(handle, name);
}

__asm__(".symver loopscope_old_dlerror, dlerror@GLIBC_2.2.5");
char* loopscope_old_dlerror();
LOOPSCOPE_HIDDEN char* dlerror()
{
    return loopscope_old_dlerror();
}

__asm__(".symver loopscope_old_pthread_once, pthread_once@GLIBC_2.2.5");
int loopscope_old_pthread_once(int*, void (*)());
LOOPSCOPE_HIDDEN int pthread_once(int* once, void (*f)())
{
    return loopscope_old_pthread_once(once, f);
}

__asm__(".symver loopscope_old_pthread_key_create, __pthread_key_create@GLIBC_2.2.5");
int loopscope_old_pthread_key_create(unsigned*, void (*)(void*));
LOOPSCOPE_HIDDEN int __pthread_key_create(unsigned* key, void (*destructor)(void*))
{
    return loopscope_old_pthread_key_create(key, destructor);
}

// fstat64 became a function of its own in glibc 2.33; before, it was __fxstat64 with the
// structure's version (1 on x86-64).
__asm__(".symver loopscope_old_fxstat64, __fxstat64@GLIBC_2.2.5");
int loopscope_old_fxstat64(int, int, void*);
LOOPSCOPE_HIDDEN int fstat64(int fd, void* buffer)
{
    return loopscope_old_fxstat64(1, fd, buffer);
}

// stat and lstat likewise (std::filesystem's, for a tuning round's folder): __xstat and
// __lxstat before 2.33.
__asm__(".symver loopscope_old_xstat, __xstat@GLIBC_2.2.5");
__asm__(".symver loopscope_old_lxstat, __lxstat@GLIBC_2.2.5");
int loopscope_old_xstat(int, const char*, void*);
int loopscope_old_lxstat(int, const char*, void*);
LOOPSCOPE_HIDDEN int stat(const char* path, void* buffer)
{
    return loopscope_old_xstat(1, path, buffer);
}
LOOPSCOPE_HIDDEN int lstat(const char* path, void* buffer)
{
    return loopscope_old_lxstat(1, path, buffer);
}

// libstdc++ skips atomic operations while this says the process has one thread; zero (as if
// there were always more) is always right.
LOOPSCOPE_HIDDEN char __libc_single_threaded = 0;

// The C++ runtime refers to arc4random (glibc 2.36) through std::random_device, which the
// runner never uses. Nothing calls it.
LOOPSCOPE_HIDDEN std::uint32_t arc4random()
{
    std::abort();
}

} // extern "C"
