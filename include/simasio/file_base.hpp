// simasio/file_base.hpp — open flags and seek origins of simulated files
#ifndef SIMASIO_FILE_BASE_HPP
#define SIMASIO_FILE_BASE_HPP

#include <fcntl.h>
#include <unistd.h>

namespace simasio {

/// The flags and seek origins of boost::asio::file_base, with the same
/// values as on Linux (O_RDONLY, O_CREAT, ..., SEEK_SET), so code that
/// spells them `net::file_base::create | net::file_base::read_write` or
/// passes a stored integer compiles and means the same. Debian's Boost is
/// built without io_uring, so boost::asio has no file classes of its own
/// there; simasio's are the ones `net::random_access_file` names.
class file_base {
 public:
  /// Bitmask of open flags. Exactly one of read_only, write_only and
  /// read_write; the others combine freely.
  enum flags {
    read_only = O_RDONLY,           ///< open for reading only
    write_only = O_WRONLY,          ///< open for writing only
    read_write = O_RDWR,            ///< open for reading and writing
    append = O_APPEND,              ///< every write goes to the end of the file
    create = O_CREAT,               ///< create the file if it does not exist
    exclusive = O_EXCL,             ///< with create: fail with file_exists if it exists
    truncate = O_TRUNC,             ///< empty the file on open
    sync_all_on_write = O_SYNC      ///< every write is durable before it completes
  };

  friend flags operator&(flags x, flags y) { return static_cast<flags>(static_cast<unsigned>(x) & static_cast<unsigned>(y)); }
  friend flags operator|(flags x, flags y) { return static_cast<flags>(static_cast<unsigned>(x) | static_cast<unsigned>(y)); }
  friend flags operator^(flags x, flags y) { return static_cast<flags>(static_cast<unsigned>(x) ^ static_cast<unsigned>(y)); }
  friend flags operator~(flags x) { return static_cast<flags>(~static_cast<unsigned>(x)); }
  friend flags& operator&=(flags& x, flags y) { return x = x & y; }
  friend flags& operator|=(flags& x, flags y) { return x = x | y; }
  friend flags& operator^=(flags& x, flags y) { return x = x ^ y; }

  /// Where stream_file::seek counts from.
  enum seek_basis {
    seek_set = SEEK_SET,  ///< the start of the file
    seek_cur = SEEK_CUR,  ///< the current position
    seek_end = SEEK_END   ///< the end of the file
  };

 protected:
  ~file_base() = default;
};

}  // namespace simasio

#endif  // SIMASIO_FILE_BASE_HPP
