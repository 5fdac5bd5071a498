// Reading the top-level objects a window's document holds besides "traceEvents": nodescope's
// own object (dropped records, attribution, the job, a merged trace's processes) and torch's
// "distributedInfo" (window_reader.h).
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "analysis/reader/window_reader.h"

namespace nodescope::analysis {
namespace od = simdjson::ondemand;
using simdjson::error_code;

bool WindowReader::ReadNodescope(od::value& v, TraceMetadata* meta) {
  meta->has_nodescope = true;
  od::object nodescope;
  if (!GetObject(v, "nodescope", &nodescope)) return false;
  for (auto field_or : nodescope) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    if (key == "dropped_records") {
      od::object dropped;
      if (!GetObject(field.value(), "dropped_records", &dropped)) return false;
      for (auto inner_or : dropped) {
        od::field inner;
        if (error_code e = std::move(inner_or).get(inner)) return Failed(e);
        od::raw_json_string inner_key = inner.key();
        if (inner_key == "total" && !GetUint(inner.value(), "total", &meta->dropped_total)) {
          return false;
        }
      }
    } else if (key == "job") {
      if (!ReadJob(field.value(), meta)) return false;
    } else if (key == "merged") {
      if (!ReadMerged(field.value(), meta)) return false;
    } else if (key == "sampling") {
      if (!ReadSampling(field.value(), meta)) return false;
    } else if (key == "attribution") {
      od::object attribution;
      if (!GetObject(field.value(), "attribution", &attribution)) return false;
      for (auto inner_or : attribution) {
        od::field inner;
        if (error_code e = std::move(inner_or).get(inner)) return Failed(e);
        od::raw_json_string inner_key = inner.key();
        if (inner_key != "withheld") continue;
        od::object withheld;
        if (!GetObject(inner.value(), "withheld", &withheld)) return false;
        for (auto reason_or : withheld) {
          od::field reason;
          if (error_code e = std::move(reason_or).get(reason)) return Failed(e);
          std::string_view reason_key;
          if (!Unescape(reason.key(), "withheld", &reason_key)) return false;
          std::string owned_key(reason_key);
          std::optional<uint64_t> count;
          if (!GetUint(reason.value(), owned_key, &count)) return false;
          meta->withheld.emplace_back(std::move(owned_key), *count);
        }
      }
    }
  }
  return true;
}

bool WindowReader::ReadSampling(od::value& v, TraceMetadata* meta) {
  od::object sampling;
  if (!GetObject(v, "sampling", &sampling)) return false;
  TraceMetadata::Sampling s;
  for (auto field_or : sampling) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    std::optional<uint64_t> value;
    if (key == "every") {
      if (!GetUint(field.value(), "every", &value)) return false;
      s.every = *value;
    } else if (key == "burst") {
      if (!GetUint(field.value(), "burst", &value)) return false;
      s.burst = *value;
    } else if (key == "graph_launches") {
      if (!GetUint(field.value(), "graph_launches", &value)) return false;
      s.graph_launches = *value;
    } else if (key == "graph_launches_traced") {
      if (!GetUint(field.value(), "graph_launches_traced", &value)) return false;
      s.graph_launches_traced = *value;
    }
  }
  meta->sampling = s;
  return true;
}

bool WindowReader::ReadJob(od::value& v, TraceMetadata* meta) {
  od::object job;
  if (!GetObject(v, "job", &job)) return false;
  for (auto field_or : job) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    if (key == "rank") {
      if (!GetInt(field.value(), "rank", &meta->rank)) return false;
    } else if (key == "world_size") {
      if (!GetInt(field.value(), "world_size", &meta->world_size)) return false;
    } else if (key == "host") {
      std::string_view host;
      if (!GetString(field.value(), "host", &host)) return false;
      meta->host = std::string(host);
    } else if (key == "clock") {
      od::object clock;
      if (!GetObject(field.value(), "clock", &clock)) return false;
      for (auto inner_or : clock) {
        od::field inner;
        if (error_code e = std::move(inner_or).get(inner)) return Failed(e);
        od::raw_json_string inner_key = inner.key();
        if (inner_key == "realtime_ns") {
          if (!GetUint(inner.value(), "realtime_ns", &meta->clock_realtime_ns)) return false;
        } else if (inner_key == "boottime_ns") {
          if (!GetUint(inner.value(), "boottime_ns", &meta->clock_boottime_ns)) return false;
        }
      }
    }
  }
  return true;
}

bool WindowReader::ReadMerged(od::value& v, TraceMetadata* meta) {
  od::array merged;
  error_code e = v.get_array().get(merged);
  if (e == simdjson::INCORRECT_TYPE) return WrongType(v, "merged", "an array");
  if (e) return Failed(e);
  meta->merged_ranks.clear();
  for (auto element_or : merged) {
    od::value element;
    if (error_code e2 = std::move(element_or).get(element)) return Failed(e2);
    od::object process;
    if (!GetObject(element, "merged", &process)) return false;
    std::optional<int64_t> rank;
    for (auto field_or : process) {
      od::field field;
      if (error_code e3 = std::move(field_or).get(field)) return Failed(e3);
      if (field.key() == "rank" && !GetInt(field.value(), "rank", &rank)) return false;
    }
    meta->merged_ranks.push_back(rank.value_or(-1));
  }
  return true;
}

bool WindowReader::ReadDistributedInfo(od::value& v, TraceMetadata* meta) {
  od::object info;
  if (!GetObject(v, "distributedInfo", &info)) return false;
  for (auto field_or : info) {
    od::field field;
    if (error_code e = std::move(field_or).get(field)) return Failed(e);
    od::raw_json_string key = field.key();
    // "nodescope"."job" says the same; torch's traces have only this.
    if (key == "rank" && !meta->rank) {
      if (!GetInt(field.value(), "rank", &meta->rank)) return false;
    } else if (key == "world_size" && !meta->world_size) {
      if (!GetInt(field.value(), "world_size", &meta->world_size)) return false;
    }
  }
  return true;
}

}  // namespace nodescope::analysis
