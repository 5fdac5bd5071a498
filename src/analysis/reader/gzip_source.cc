// Inflating a gzip stream with zlib, a buffer at a time.
#include "analysis/reader/gzip_source.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "base/build_config.h"

#if NODESCOPE_BUILDFLAG(HAVE_ZLIB)
#include <zlib.h>

#include <vector>
#endif

namespace nodescope::analysis {

bool LooksGzipped(std::string_view head) {
  return head.size() >= 3 && head[0] == '\x1f' && head[1] == '\x8b' && head[2] == '\x08';
}

namespace {

// A source whose first bytes were read ahead (to look at them) and are handed out first.
class ReadAheadSource final : public ByteSource {
 public:
  ReadAheadSource(std::unique_ptr<ByteSource> rest, std::string head)
      : rest_(std::move(rest)), head_(std::move(head)) {}

  StatusOr<size_t> Read(char* dst, size_t n) override {
    if (served_ < head_.size()) {
      const size_t k = std::min(n, head_.size() - served_);
      std::memcpy(dst, head_.data() + served_, k);
      served_ += k;
      return k;
    }
    return rest_->Read(dst, n);
  }

 private:
  std::unique_ptr<ByteSource> rest_;
  std::string head_;
  size_t served_ = 0;
};

StatusOr<std::unique_ptr<ByteSource>> Gunzip(std::unique_ptr<ByteSource> compressed,
                                             std::string name);

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> DecompressIfGzipped(std::unique_ptr<ByteSource> source,
                                                          std::string name, bool* inflated) {
  std::string head(3, '\0');
  size_t held = 0;
  while (held < head.size()) {  // a pipe may hand out fewer bytes than asked
    ASSIGN_OR_RETURN(size_t got, source->Read(head.data() + held, head.size() - held));
    if (got == 0) break;
    held += got;
  }
  head.resize(held);
  const bool gzipped = LooksGzipped(head);
  *inflated = gzipped;
  auto all = std::make_unique<ReadAheadSource>(std::move(source), std::move(head));
  if (!gzipped) return std::unique_ptr<ByteSource>(std::move(all));
  return Gunzip(std::move(all), std::move(name));
}

#if NODESCOPE_BUILDFLAG(HAVE_ZLIB)
namespace {

class GzipSource final : public ByteSource {
 public:
  static constexpr size_t kInputBytes = size_t{1} << 16;

  GzipSource(std::unique_ptr<ByteSource> compressed, std::string name)
      : in_(std::move(compressed)), name_(std::move(name)), input_(kInputBytes) {}
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  ~GzipSource() override {
    if (initialized_) inflateEnd(&z_);
  }

  Status Init() {
    // 16 + MAX_WBITS: a gzip header and trailer (CRC-32 and length are checked).
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
      return InternalError(name_ + ": zlib: cannot initialise inflate");
    }
    initialized_ = true;
    return OkStatus();
  }

  StatusOr<size_t> Read(char* dst, size_t n) override {
    n = std::min<size_t>(n, UINT32_MAX);  // zlib counts in 32 bits
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out == n && !done_) {  // until some bytes come out, or the end
      if (z_.avail_in == 0 && !input_ended_) {
        ASSIGN_OR_RETURN(size_t got, in_->Read(input_.data(), input_.size()));
        input_ended_ = got == 0;
        z_.next_in = reinterpret_cast<Bytef*>(input_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      const uInt before = z_.avail_in;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      consumed_ += before - z_.avail_in;
      if (rc == Z_STREAM_END) {
        // Another member may follow (gzip -c a b > c.gz); anything else after the end is an error.
        if (z_.avail_in == 0 && !input_ended_) {
          ASSIGN_OR_RETURN(size_t got, in_->Read(input_.data(), input_.size()));
          input_ended_ = got == 0;
          z_.next_in = reinterpret_cast<Bytef*>(input_.data());
          z_.avail_in = static_cast<uInt>(got);
        }
        if (z_.avail_in == 0) {
          done_ = true;
          break;
        }
        if (!LooksGzipped(std::string_view(reinterpret_cast<const char*>(z_.next_in),
                                           std::min<size_t>(z_.avail_in, 3)))) {
          return Corrupt("bytes after the end of the gzip stream");
        }
        inflateReset(&z_);
        continue;
      }
      if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
        return Corrupt(std::string("the gzip data is corrupt (zlib: ") +
                       (z_.msg != nullptr ? z_.msg : "data error") + ")");
      }
      if (rc == Z_MEM_ERROR) return InternalError(name_ + ": zlib: out of memory");
      if (rc == Z_BUF_ERROR && z_.avail_in == 0 && input_ended_) {
        return Corrupt("the gzip stream ends early (the file is cut short)");
      }
    }
    return n - z_.avail_out;
  }

 private:
  Status Corrupt(const std::string& what) const {
    return DataLossError(name_ + ": byte " + std::to_string(consumed_) +
                         " of the compressed file: " + what);
  }

  std::unique_ptr<ByteSource> in_;
  std::string name_;
  std::vector<char> input_;
  z_stream z_{};
  bool initialized_ = false;
  bool input_ended_ = false;
  bool done_ = false;
  uint64_t consumed_ = 0;  // compressed bytes inflate has taken
};

StatusOr<std::unique_ptr<ByteSource>> Gunzip(std::unique_ptr<ByteSource> compressed,
                                             std::string name) {
  auto source = std::make_unique<GzipSource>(std::move(compressed), std::move(name));
  RETURN_IF_ERROR(source->Init());
  return std::unique_ptr<ByteSource>(std::move(source));
}

}  // namespace

#else

namespace {

StatusOr<std::unique_ptr<ByteSource>> Gunzip(std::unique_ptr<ByteSource>, std::string name) {
  return UnavailableError(
      name + ": the trace is compressed with gzip, and this nodescope was " +
      "built without zlib: gunzip it first (or install zlib1g-dev and rebuild)");
}

}  // namespace

#endif

}  // namespace nodescope::analysis
