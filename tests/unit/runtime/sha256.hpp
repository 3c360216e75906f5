// SHA-256 (OpenSSL's EVP) as the hash gates use it: bytes in, the lowercase hex digest out.
#pragma once
#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <string>

namespace ordo::runtime::test {

class sha256 {
 public:
  sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
  ~sha256() { EVP_MD_CTX_free(ctx_); }
  sha256(const sha256&) = delete;
  sha256& operator=(const sha256&) = delete;
  void add(const void* p, std::size_t n) { EVP_DigestUpdate(ctx_, p, n); }
  /// The digest of everything added (call once).
  std::string hex() {
    std::array<unsigned char, 32> d{};
    EVP_DigestFinal_ex(ctx_, d.data(), nullptr);
    std::string s;
    for (unsigned char c : d) {
      char b[3];
      std::snprintf(b, sizeof b, "%02x", c);
      s += b;
    }
    return s;
  }

 private:
  EVP_MD_CTX* ctx_;
};

}  // namespace ordo::runtime::test
