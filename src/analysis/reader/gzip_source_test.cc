// Tests of reading gzip-compressed traces: the same events as the plain trace, members one after
// the other, and every corrupt or cut-short stream a clear DATA_LOSS.
#include "analysis/reader/gzip_source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "base/build_config.h"

#if NODESCOPE_BUILDFLAG(HAVE_ZLIB)
#include <zlib.h>
#endif

namespace nodescope::analysis {
namespace {

using Event = std::tuple<uint64_t, std::string, std::string, std::optional<uint64_t>>;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

StatusOr<TraceMetadata> ReadText(std::string_view bytes, std::vector<Event>* events = nullptr,
                                 size_t window_bytes = TraceReadOptions().window_bytes) {
  TraceReadOptions options;
  options.window_bytes = window_bytes;
  return ReadTraceText(
      "t.json.gz", bytes,
      [events](const TraceEvent& e) {
        if (events != nullptr) {
          events->emplace_back(e.offset, std::string(e.name), std::string(e.cat), e.graph_node_id);
        }
        return OkStatus();
      },
      options);
}

const std::string kPlain = NODESCOPE_TESTDATA_DIR "/clean.json";
const std::string kGzip = NODESCOPE_TESTDATA_DIR "/clean.json.gz";  // gzip -n clean.json

TEST(GzipSource, RecognisesTheHeaderOnly) {
  EXPECT_TRUE(LooksGzipped(std::string_view("\x1f\x8b\x08\x00", 4)));
  EXPECT_FALSE(LooksGzipped(std::string_view("\x1f\x8b", 2)));
  EXPECT_FALSE(LooksGzipped("{\"traceEvents\":[]}"));
  EXPECT_FALSE(LooksGzipped(""));
}

#if NODESCOPE_BUILDFLAG(HAVE_ZLIB)

// `text` as one gzip member.
std::string Gzip(std::string_view text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(GzipSource, ACompressedTraceReadsAsItsJson) {
  std::vector<Event> plain, inflated, small_windows, from_file;
  ASSERT_TRUE(ReadText(Slurp(kPlain), &plain).ok());
  ASSERT_GT(plain.size(), 10u);
  const std::string gz = Slurp(kGzip);
  ASSERT_TRUE(LooksGzipped(gz));
  auto meta = ReadText(gz, &inflated);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(inflated, plain);  // offsets count inflated bytes, as in the plain file
  ASSERT_TRUE(ReadText(gz, &small_windows, 64).ok());
  EXPECT_EQ(small_windows, plain);
  auto file = ReadTraceFile(kGzip, [&](const TraceEvent& e) {
    from_file.emplace_back(e.offset, std::string(e.name), std::string(e.cat), e.graph_node_id);
    return OkStatus();
  });
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(from_file, plain);
  EXPECT_EQ(file->withheld, meta->withheld);
}

TEST(GzipSource, ProgressCountsCompressedBytes) {
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  TraceReadOptions options;
  options.window_bytes = 1024;  // several windows
  options.progress = [&](uint64_t read, uint64_t size) { calls.emplace_back(read, size); };
  auto r = ReadTraceFile(
      kGzip, [](const TraceEvent&) { return OkStatus(); }, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const uint64_t size = Slurp(kGzip).size();
  ASSERT_GE(calls.size(), 2u);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, size);
    EXPECT_LE(calls[i].first, size);
    EXPECT_GE(calls[i].first, i > 0 ? calls[i - 1].first : 0);
  }
  EXPECT_EQ(calls.back().first, size);
}

TEST(GzipSource, MembersOneAfterTheOtherReadAsOne) {
  const std::string json = Slurp(kPlain);
  const size_t half = json.size() / 2;
  std::vector<Event> plain, joined;
  ASSERT_TRUE(ReadText(json, &plain).ok());
  auto r = ReadText(Gzip(json.substr(0, half)) + Gzip(json.substr(half)), &joined);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(joined, plain);
}

TEST(GzipSource, CorruptAndCutShortStreamsAreDataLoss) {
  const std::string gz = Slurp(kGzip);
  // Every cut: DATA_LOSS naming the file, never a crash or a hang; never a success.
  for (size_t n = 0; n < gz.size(); ++n) {
    auto r = ReadText(std::string_view(gz).substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << n << ": " << r.status().ToString();
    EXPECT_EQ(r.status().message().rfind("t.json.gz", 0), 0u) << r.status().message();
  }
  auto cut = ReadText(std::string_view(gz).substr(0, gz.size() - 4));
  EXPECT_EQ(cut.status().message(), "t.json.gz: byte " + std::to_string(gz.size() - 4) +
                                        " of the compressed file: the gzip stream ends early (the "
                                        "file is cut short)");
  // A flipped bit in the CRC-32 of the trailer.
  std::string bad_crc = gz;
  bad_crc[gz.size() - 6] ^= 0x01;
  auto crc = ReadText(bad_crc);
  EXPECT_EQ(crc.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(crc.status().message().find("the gzip data is corrupt (zlib: incorrect data check)"),
            std::string::npos)
      << crc.status().message();
  // Every single-byte corruption after the header fails cleanly or reads a valid trace.
  for (size_t i = 10; i < gz.size(); ++i) {
    std::string bad = gz;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    auto r = ReadText(bad);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << i;
    }
  }
  auto trailing = ReadText(gz + "junk");
  EXPECT_EQ(trailing.status().message(), "t.json.gz: byte " + std::to_string(gz.size()) +
                                             " of the compressed file: bytes after the end of "
                                             "the gzip stream");
}

TEST(GzipSource, JsonErrorsSayTheOffsetIsInTheInflatedTrace) {
  auto r = ReadText(Gzip(R"({"traceEvents":[{"name":"k","ts":"soon"}]})"));
  EXPECT_EQ(r.status().message(),
            "t.json.gz (inflated): byte 33: \"ts\" is a string, expected a number");
}

#else

TEST(GzipSource, WithoutZlibACompressedTraceIsRefusedClearly) {
  auto r = ReadTraceFile(kGzip, [](const TraceEvent&) { return OkStatus(); });
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("gunzip it first"), std::string::npos);
}

#endif

}  // namespace
}  // namespace nodescope::analysis
