// stdio.cpp — simasio::interpose for C stdio and C++ streams on a simulated process's standard streams
//
// In a simulated process, stdin, stdout and stderr are pipes between it and
// the scenario (process::write_stdin, stdout_text, stderr_text). read() and
// write() of descriptors 0, 1 and 2 reach them (files.cpp); these
// definitions make C stdio on the stdin, stdout and stderr FILEs reach them
// too, and with it std::cin, std::cout and std::cerr (which libstdc++ runs
// through getc, ungetc, fread, fwrite, putc and fflush while synchronised
// with stdio, its default). Output is not buffered: each call's bytes are in
// stdout_text() when it returns. Other FILEs, and every call outside a
// process, are libc's.
#include <simasio/detail/interpose.hpp>

#include "real_symbol.hpp"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include <dlfcn.h>

namespace {

namespace sim = simasio::detail::interpose;

// 0, 1 or 2 for a standard stream while a world runs, else -1.
int std_fd(FILE* f) noexcept {
  if (!sim::active()) return -1;
  return f == stdin ? 0 : f == stdout ? 1 : f == stderr ? 2 : -1;
}

// Writes to a process's standard output or error; false: not a process's.
bool put(FILE* f, const void* data, std::size_t n) noexcept {
  const int fd = std_fd(f);
  if (fd < 1) return false;
  long r = 0;
  return sim::stdio_write(fd, data, n, r);
}

// One byte of a process's standard input: the byte, EOF at its end, or -2
// when f is not a process's standard input.
int get(FILE* f) {
  if (std_fd(f) != 0) return -2;
  unsigned char c = 0;
  long r = 0;
  if (!sim::stdio_read(0, &c, 1, r)) return -2;
  return r == 1 ? c : EOF;
}

bool vformat(std::string& out, const char* fmt, va_list ap) noexcept {
  va_list copy;
  va_copy(copy, ap);
  char small[512];
  const int n = std::vsnprintf(small, sizeof small, fmt, copy);
  va_end(copy);
  if (n < 0) return false;
  try {
    if (static_cast<std::size_t>(n) < sizeof small) {
      out.assign(small, static_cast<std::size_t>(n));
    } else {
      out.resize(static_cast<std::size_t>(n) + 1);
      std::vsnprintf(out.data(), out.size(), fmt, ap);
      out.resize(static_cast<std::size_t>(n));
    }
  } catch (...) {
    return false;
  }
  return true;
}

// vfprintf on a process's stream: the count, or -2 when f is not one.
int vprint(FILE* f, const char* fmt, va_list ap) {
  if (std_fd(f) < 1) return -2;
  std::string text;
  if (!vformat(text, fmt, ap)) return -1;
  return put(f, text.data(), text.size()) ? static_cast<int>(text.size()) : -2;
}

}  // namespace

extern "C" {

size_t fwrite(const void* data, size_t size, size_t n, FILE* f) {
  if (size != 0 && put(f, data, size * n)) return n;
  SIMASIO_REAL(fwrite, size_t (*)(const void*, size_t, size_t, FILE*));
  return real_fwrite(data, size, n, f);
}

int fputs(const char* s, FILE* f) {
  if (put(f, s, std::strlen(s))) return 1;
  SIMASIO_REAL(fputs, int (*)(const char*, FILE*));
  return real_fputs(s, f);
}

int puts(const char* s) {
  if (std_fd(stdout) == 1) {
    std::string line(s);
    line += '\n';
    if (put(stdout, line.data(), line.size())) return 1;
  }
  SIMASIO_REAL(puts, int (*)(const char*));
  return real_puts(s);
}

int fputc(int c, FILE* f) {
  const auto ch = static_cast<unsigned char>(c);
  if (put(f, &ch, 1)) return ch;
  SIMASIO_REAL(fputc, int (*)(int, FILE*));
  return real_fputc(c, f);
}

int putc(int c, FILE* f) {
  const auto ch = static_cast<unsigned char>(c);
  if (put(f, &ch, 1)) return ch;
  SIMASIO_REAL(putc, int (*)(int, FILE*));
  return real_putc(c, f);
}

int _IO_putc(int c, FILE* f) {
  const auto ch = static_cast<unsigned char>(c);
  if (put(f, &ch, 1)) return ch;
  SIMASIO_REAL(_IO_putc, int (*)(int, FILE*));
  return real__IO_putc(c, f);
}

int putchar(int c) { return fputc(c, stdout); }

int fflush(FILE* f) {
  if (f != nullptr && std_fd(f) >= 1) {
    long r = 0;
    if (sim::stdio_write(std_fd(f), "", 0, r)) return 0;  // nothing is buffered
  }
  SIMASIO_REAL(fflush, int (*)(FILE*));
  return real_fflush(f);
}

int vfprintf(FILE* f, const char* fmt, va_list ap) {
  if (const int n = vprint(f, fmt, ap); n != -2) return n;
  SIMASIO_REAL(vfprintf, int (*)(FILE*, const char*, va_list));
  return real_vfprintf(f, fmt, ap);
}

int __vfprintf_chk(FILE* f, int flag, const char* fmt, va_list ap) {
  if (const int n = vprint(f, fmt, ap); n != -2) return n;
  SIMASIO_REAL(__vfprintf_chk, int (*)(FILE*, int, const char*, va_list));
  return real___vfprintf_chk(f, flag, fmt, ap);
}

int vprintf(const char* fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }

int __vprintf_chk(int flag, const char* fmt, va_list ap) { return __vfprintf_chk(stdout, flag, fmt, ap); }

int fprintf(FILE* f, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vfprintf(f, fmt, ap);
  va_end(ap);
  return n;
}

int __fprintf_chk(FILE* f, int flag, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = __vfprintf_chk(f, flag, fmt, ap);
  va_end(ap);
  return n;
}

int printf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vfprintf(stdout, fmt, ap);
  va_end(ap);
  return n;
}

int __printf_chk(int flag, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = __vfprintf_chk(stdout, flag, fmt, ap);
  va_end(ap);
  return n;
}

void perror(const char* s) {
  if (std_fd(stderr) == 2) {
    const int e = errno;
    std::string text = s != nullptr && *s != '\0' ? std::string(s) + ": " : std::string();
    text += std::strerror(e);
    text += '\n';
    if (put(stderr, text.data(), text.size())) return;
  }
  SIMASIO_REAL(perror, void (*)(const char*));
  real_perror(s);
}

int getc(FILE* f) {
  if (const int c = get(f); c != -2) return c;
  SIMASIO_REAL(getc, int (*)(FILE*));
  return real_getc(f);
}

int _IO_getc(FILE* f) {
  if (const int c = get(f); c != -2) return c;
  SIMASIO_REAL(_IO_getc, int (*)(FILE*));
  return real__IO_getc(f);
}

int fgetc(FILE* f) {
  if (const int c = get(f); c != -2) return c;
  SIMASIO_REAL(fgetc, int (*)(FILE*));
  return real_fgetc(f);
}

int getchar() { return getc(stdin); }

int ungetc(int c, FILE* f) {
  if (c != EOF && std_fd(f) == 0 && sim::stdio_unget(static_cast<unsigned char>(c))) return c;
  SIMASIO_REAL(ungetc, int (*)(int, FILE*));
  return real_ungetc(c, f);
}

size_t fread(void* data, size_t size, size_t n, FILE* f) {
  if (size != 0 && std_fd(f) == 0) {
    auto* p = static_cast<unsigned char*>(data);
    const std::size_t want = size * n;
    std::size_t got = 0;
    for (; got < want; ++got) {
      const int c = get(f);
      if (c == -2) break;
      if (c == EOF) return got / size;
      p[got] = static_cast<unsigned char>(c);
    }
    if (got == want) return n;
    if (got > 0) return got / size;
  }
  SIMASIO_REAL(fread, size_t (*)(void*, size_t, size_t, FILE*));
  return real_fread(data, size, n, f);
}

char* fgets(char* s, int n, FILE* f) {
  if (std_fd(f) == 0 && n > 0) {
    int i = 0;
    int c = get(f);
    if (c != -2) {
      while (i < n - 1 && c != EOF) {
        s[i++] = static_cast<char>(c);
        if (c == '\n' || i == n - 1) break;
        c = get(f);
      }
      if (i == 0) return nullptr;
      s[i] = '\0';
      return s;
    }
  }
  SIMASIO_REAL(fgets, char* (*)(char*, int, FILE*));
  return real_fgets(s, n, f);
}

ssize_t getdelim(char** line, size_t* cap, int delim, FILE* f) {
  if (std_fd(f) == 0 && line != nullptr && cap != nullptr) {
    int c = get(f);
    if (c != -2) {
      std::string text;
      while (c != EOF) {
        text += static_cast<char>(c);
        if (c == delim) break;
        c = get(f);
      }
      if (text.empty()) return -1;
      if (*line == nullptr || *cap < text.size() + 1) {
        char* grown = static_cast<char*>(std::realloc(*line, text.size() + 1));
        if (grown == nullptr) {
          errno = ENOMEM;
          return -1;
        }
        *line = grown;
        *cap = text.size() + 1;
      }
      std::memcpy(*line, text.c_str(), text.size() + 1);
      return static_cast<ssize_t>(text.size());
    }
  }
  SIMASIO_REAL(getdelim, ssize_t (*)(char**, size_t*, int, FILE*));
  return real_getdelim(line, cap, delim, f);
}

ssize_t getline(char** line, size_t* cap, FILE* f) { return getdelim(line, cap, '\n', f); }

}  // extern "C"
