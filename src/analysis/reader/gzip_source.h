// Traces compressed with gzip (torch's tensorboard_trace_handler(use_gzip=True) writes
// *.pt.trace.json.gz): a ByteSource that inflates another one as it is read.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "analysis/reader/trace_window.h"
#include "base/status.h"

namespace nodescope::analysis {

// Whether `head` (a source's first bytes) starts like a gzip stream (1f 8b 08).
bool LooksGzipped(std::string_view head);

// `source` as it is, or, when its first bytes are a gzip header, a source of its inflated bytes
// (RFC 1952; members one after the other are read as one, as gunzip does). `name` is the file,
// for messages: a corrupt or cut-short stream is DATA_LOSS "NAME: byte N of the compressed
// file: what is wrong". UNAVAILABLE for a gzip stream when nodescope was built without zlib.
// `*inflated` says which it is.
StatusOr<std::unique_ptr<ByteSource>> DecompressIfGzipped(std::unique_ptr<ByteSource> source,
                                                          std::string name, bool* inflated);

}  // namespace nodescope::analysis
