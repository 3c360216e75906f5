#include "gguf/mapping.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "ordo/model/gguf_types.hpp"

namespace ordo::gguf::detail {

mapping mapping::map_file(const std::filesystem::path& path) {
  auto fail = [&](const char* what) -> error {
    return error(path.string() + ": " + what + ": " + std::strerror(errno));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail("cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const error e = fail("cannot stat");
    ::close(fd);
    throw e;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw error(path.string() + ": not a regular file");
  }
  mapping m;
  m.size_ = static_cast<std::size_t>(st.st_size);
  if (m.size_ > 0) {
    void* p = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const error e = fail("cannot mmap");
      ::close(fd);
      throw e;
    }
    m.data_ = static_cast<const std::byte*>(p);
    m.mapped_ = true;
  }
  ::close(fd);  // the mapping keeps the file alive
  return m;
}

mapping mapping::own(std::vector<std::byte> bytes) {
  mapping m;
  m.owned_ = std::move(bytes);
  m.data_ = m.owned_.data();
  m.size_ = m.owned_.size();
  return m;
}

mapping::mapping(mapping&& o) noexcept { *this = std::move(o); }

mapping& mapping::operator=(mapping&& o) noexcept {
  if (this != &o) {
    release();
    // Moving a vector keeps its buffer, so data_ stays valid for owned images.
    owned_ = std::move(o.owned_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, false);
  }
  return *this;
}

mapping::~mapping() { release(); }

void mapping::release() noexcept {
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  owned_.clear();
}

}  // namespace ordo::gguf::detail
