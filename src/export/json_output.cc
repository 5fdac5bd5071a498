// Buffered JSON output: number formatting, string escaping and the fd sink.
#include "export/json_output.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "base/utf8_text.h"

namespace nodescope {
namespace {

__extension__ using Uint128 = unsigned __int128;

// Calls put(data, size) with the escaped form of `s` (without quotes), in pieces.
template <typename Put>
void Escape(std::string_view s, Put&& put) {
  static constexpr char kHex[] = "0123456789abcdef";
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const end = p + s.size();
  const auto* run = p;  // start of bytes to copy unchanged
  auto flush_run = [&] {
    if (p != run) put(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
  };
  while (p < end) {
    const unsigned char c = *p;
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') [[likely]] {
      ++p;
      continue;
    }
    if (c >= 0x80) {
      bool valid;
      size_t n = Utf8Scan(p, end, &valid);
      if (valid) {
        p += n;
        continue;
      }
      flush_run();
      put(kReplacement.data(), kReplacement.size());
      p += n;
      run = p;
      continue;
    }
    flush_run();
    char esc[6] = {'\\', 0, 0, 0, 0, 0};
    size_t len = 2;
    switch (c) {
      case '"':
        esc[1] = '"';
        break;
      case '\\':
        esc[1] = '\\';
        break;
      case '\b':
        esc[1] = 'b';
        break;
      case '\f':
        esc[1] = 'f';
        break;
      case '\n':
        esc[1] = 'n';
        break;
      case '\r':
        esc[1] = 'r';
        break;
      case '\t':
        esc[1] = 't';
        break;
      default:
        esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = kHex[c >> 4], esc[5] = kHex[c & 0xF];
        len = 6;
    }
    put(esc, len);
    ++p;
    run = p;
  }
  flush_run();
}

}  // namespace

JsonOutput::JsonOutput(size_t capacity)
    : buf_(std::make_unique_for_overwrite<char[]>(capacity)),
      pos_(buf_.get()),
      end_(buf_.get() + capacity),
      capacity_(capacity) {}

void JsonOutput::Spill() {
  if (pos_ != buf_.get() && status_.ok()) {
    status_ = Drain(std::string_view(buf_.get(), static_cast<size_t>(pos_ - buf_.get())));
  }
  pos_ = buf_.get();  // after an error, output is dropped
}

void JsonOutput::RawSlow(std::string_view s) {
  Spill();
  if (s.size() <= capacity_) {
    std::memcpy(pos_, s.data(), s.size());
    pos_ += s.size();
  } else if (status_.ok()) {
    status_ = Drain(s);
  }
}

void JsonOutput::Uint(uint64_t v) {
  Ensure(20);
  pos_ = std::to_chars(pos_, end_, v).ptr;
}

void JsonOutput::Int(int64_t v) {
  Ensure(20);
  pos_ = std::to_chars(pos_, end_, v).ptr;
}

void JsonOutput::MicrosFromNs(int64_t ns) {
  Ensure(24);
  const uint64_t v = ns < 0 ? 0 : static_cast<uint64_t>(ns);
  pos_ = std::to_chars(pos_, end_, v / 1000).ptr;
  const auto frac = static_cast<unsigned>(v % 1000);
  pos_[0] = '.';
  pos_[1] = static_cast<char>('0' + frac / 100);
  pos_[2] = static_cast<char>('0' + frac / 10 % 10);
  pos_[3] = static_cast<char>('0' + frac % 10);
  pos_ += 4;
}

void JsonOutput::Ratio(uint64_t num, uint64_t den) {
  Ensure(28);
  if (den == 0) {
    Raw("0.00");
    return;
  }
  uint64_t whole = num / den;
  // Round half up to six decimals; 128 bits so that rem * 2e6 cannot overflow.
  auto frac = static_cast<uint32_t>((Uint128{num % den} * 2000000 + den) / (Uint128{den} * 2));
  if (frac == 1000000) ++whole, frac = 0;
  pos_ = std::to_chars(pos_, end_, whole).ptr;
  *pos_++ = '.';
  char digits[6];
  for (int i = 5; i >= 0; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
  size_t n = 6;
  while (n > 2 && digits[n - 1] == '0') --n;
  std::memcpy(pos_, digits, n);
  pos_ += n;
}

void JsonOutput::String(std::string_view s) {
  Char('"');
  Escape(s, [this](const char* data, size_t n) { Raw(std::string_view(data, n)); });
  Char('"');
}

void JsonOutput::AppendEscaped(std::string_view s, std::string& dst) {
  dst.push_back('"');
  Escape(s, [&dst](const char* data, size_t n) { dst.append(data, n); });
  dst.push_back('"');
}

Status JsonOutput::Flush() {
  Spill();
  return status_;
}

Status FdJsonOutput::Drain(std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write to " + name_, errno);
    }
    if (n == 0) return InternalError("write to " + name_ + " wrote nothing");
    p += n;
    left -= static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace nodescope
