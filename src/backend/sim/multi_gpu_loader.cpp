#include "backend/sim/multi_gpu_loader.hpp"

#include <string>

namespace memtopo::sim {
namespace {

using nlohmann::json;

constexpr std::string_view kLatencyKey = "latency_ns";
constexpr std::string_view kOnePageLatencyKey = "latency_one_page_ns";
constexpr std::string_view kSmReadKey = "sm_read_bytes_per_second";
constexpr std::string_view kSmWriteKey = "sm_write_bytes_per_second";
constexpr std::string_view kCopyReadKey = "copy_read_bytes_per_second";
constexpr std::string_view kCopyWriteKey = "copy_write_bytes_per_second";
constexpr std::string_view kLaunchOverheadKey = "sm_launch_overhead_ns";
constexpr std::string_view kCopyOverheadKey = "copy_overhead_ns";
constexpr std::string_view kFarSmsKey = "far_sms_extra_ns";
constexpr std::string_view kShapeFactorsKey = "sm_read_shape_factors";
// A shape reads at most this much more or less than the link's SM read rate.
constexpr double kMaxShapeFactor = 2.0;

double read_positive(const StrictObject& object, std::string_view key, double max) {
  const double number = read_number(object.required(key), object.place(key));
  if (!(number > 0 && number <= max)) {
    object.fail(key, "must be a positive number of at most " + json_excerpt(max) + ", got " +
                         json_excerpt(object.required(key)));
  }
  return number;
}

double read_nonnegative_or_zero(const StrictObject& object, std::string_view key, double max) {
  if (!object.has(key)) return 0;
  const double number = read_number(object.required(key), object.place(key));
  if (!(number >= 0 && number <= max)) {
    object.fail(key, "must be a number in [0, " + json_excerpt(max) + "], got " +
                         json_excerpt(object.required(key)));
  }
  return number;
}

bool read_bool_or(const StrictObject& object, std::string_view key, bool fallback) {
  if (!object.has(key)) return fallback;
  const json& value = object.required(key);
  if (!value.is_boolean()) object.fail(key, "expected true or false, got " + json_excerpt(value));
  return value.get<bool>();
}

// "sm_read_shape_factors": {"actor_memory_deep": 1.004, ...}: what each named SM read shape
// reads of sm_read_bytes_per_second (a shape left out reads all of it).
void read_shape_factors(const StrictObject& object, LinkRates& rates) {
  // The names of kSmReadShapes (to_string), in its order.
  const StrictObject factors(object.required(kShapeFactorsKey), object.place(kShapeFactorsKey),
                             {"registers", "actor_memory", "actor_memory_deep"});
  for (std::size_t i = 0; i < std::size(kSmReadShapes); ++i) {
    const std::string_view name = to_string(kSmReadShapes[i]);
    if (!factors.has(name)) continue;
    const double factor = read_positive(factors, name, kMaxShapeFactor);
    if (factor < 1 / kMaxShapeFactor) {
      factors.fail(name, "must be at least " + json_excerpt(1 / kMaxShapeFactor));
    }
    rates.sm_read_shape_factors[i] = factor;
  }
}

// The copy rates always; the latency and SM rates only where the actor's SMs reach the memory.
LinkRates read_rates(const StrictObject& object, bool sm_access) {
  LinkRates rates;
  rates.copy_read_bytes_per_second =
      read_positive(object, kCopyReadKey, limits::kMaxLinkBytesPerSecond);
  rates.copy_write_bytes_per_second =
      read_positive(object, kCopyWriteKey, limits::kMaxLinkBytesPerSecond);
  rates.copy_overhead_ns =
      read_nonnegative_or_zero(object, kCopyOverheadKey, limits::kMaxLinkLatencyNs);
  if (!sm_access) {
    for (const std::string_view key : {kLatencyKey, kOnePageLatencyKey, kSmReadKey, kSmWriteKey,
                                       kLaunchOverheadKey, kFarSmsKey, kShapeFactorsKey}) {
      if (object.has(key)) {
        object.fail(key, "a link without peer_access has no SM access to describe");
      }
    }
    return rates;
  }
  rates.latency_ns = read_positive(object, kLatencyKey, limits::kMaxLinkLatencyNs);
  rates.latency_one_page_ns =
      object.has(kOnePageLatencyKey)
          ? read_positive(object, kOnePageLatencyKey, limits::kMaxLinkLatencyNs)
          : rates.latency_ns;
  rates.sm_read_bytes_per_second =
      read_positive(object, kSmReadKey, limits::kMaxLinkBytesPerSecond);
  rates.sm_write_bytes_per_second =
      read_positive(object, kSmWriteKey, limits::kMaxLinkBytesPerSecond);
  rates.sm_launch_overhead_ns =
      read_nonnegative_or_zero(object, kLaunchOverheadKey, limits::kMaxLinkLatencyNs);
  rates.far_sms_extra_ns = read_nonnegative_or_zero(object, kFarSmsKey, limits::kMaxLinkLatencyNs);
  if (object.has(kShapeFactorsKey)) read_shape_factors(object, rates);
  return rates;
}

HostLinkDescription read_host(const json& value, const JsonPlace& place) {
  const StrictObject object(
      value, place,
      {"pcie_generation", "pcie_width", kLatencyKey, kOnePageLatencyKey, kSmReadKey, kSmWriteKey,
       kCopyReadKey, kCopyWriteKey, kLaunchOverheadKey, kCopyOverheadKey, kFarSmsKey,
       kShapeFactorsKey});
  HostLinkDescription host;
  host.pcie_generation =
      static_cast<std::uint32_t>(object.uint_or("pcie_generation", 0, limits::kMaxPcieGeneration));
  host.pcie_width =
      static_cast<std::uint32_t>(object.uint_or("pcie_width", 0, limits::kMaxPcieWidth));
  host.rates = read_rates(object, /*sm_access=*/true);
  return host;
}

LinkKind read_kind(const StrictObject& object) {
  const std::string kind = object.string("kind");
  if (kind == "nvlink") return LinkKind::nvlink;
  if (kind == "pcie") return LinkKind::pcie;
  object.fail("kind", "must be \"nvlink\" or \"pcie\", got " + in_quotes(kind));
}

// "between": [a, b], two different GPUs of the description.
void read_ends(const StrictObject& object, std::uint32_t gpus, GpuLinkDescription& link) {
  const JsonPlace place = object.place("between");
  const json& ends = read_array(object.required("between"), place);
  if (ends.size() != 2) place.fail("expected [gpu, gpu], got " + json_excerpt(ends));
  link.first = static_cast<int>(read_uint(ends[0], place.item(0), gpus - 1));
  link.second = static_cast<int>(read_uint(ends[1], place.item(1), gpus - 1));
  if (link.first == link.second) place.fail("a link joins two different GPUs");
}

GpuLinkDescription read_link(const json& value, const JsonPlace& place, std::uint32_t gpus) {
  const StrictObject object(value, place,
                            {"between", "kind", "count", "version", "peer_access", kLatencyKey,
                             kOnePageLatencyKey, kSmReadKey, kSmWriteKey, kCopyReadKey,
                             kCopyWriteKey, kLaunchOverheadKey, kCopyOverheadKey, kFarSmsKey,
                             kShapeFactorsKey});
  GpuLinkDescription link;
  read_ends(object, gpus, link);
  link.kind = read_kind(object);
  if (link.kind == LinkKind::nvlink) {
    link.nvlink_count = read_positive_u32(object, "count", limits::kMaxNvLinks);
    link.nvlink_version = static_cast<std::uint32_t>(object.uint_or("version", 0, UINT32_MAX));
  } else {
    for (const std::string_view key : {"count", "version"}) {
      if (object.has(key)) object.fail(key, "only an nvlink link has NVLinks to count");
    }
  }
  link.peer_access = read_bool_or(object, "peer_access", true);
  link.rates = read_rates(object, link.peer_access);
  return link;
}

}  // namespace

const GpuLinkDescription* MultiGpuDescription::link_between(int a, int b) const {
  for (const GpuLinkDescription& link : links) {
    if ((link.first == a && link.second == b) || (link.first == b && link.second == a)) {
      return &link;
    }
  }
  return nullptr;
}

MultiGpuDescription read_multi_gpu(const json& value, const JsonPlace& place) {
  const StrictObject object(value, place, {"gpus", "relative_jitter", "host", "links"});
  MultiGpuDescription multi;
  multi.gpus = read_positive_u32(object, "gpus", limits::kMaxGpus);
  if (object.has("relative_jitter")) {
    multi.relative_jitter =
        read_number(object.required("relative_jitter"), object.place("relative_jitter"));
    if (!(multi.relative_jitter >= 0 && multi.relative_jitter <= limits::kMaxRelativeJitter)) {
      object.fail("relative_jitter",
                  "must lie in [0, 0.5], got " + json_excerpt(object.required("relative_jitter")));
    }
  }
  if (object.has("host")) multi.host = read_host(object.required("host"), object.place("host"));
  if (object.has("links")) {
    const JsonPlace links_place = object.place("links");
    const json& links = read_bounded_array(object.required("links"), links_place,
                                           limits::kMaxGpus * limits::kMaxGpus);
    for (std::size_t i = 0; i < links.size(); ++i) {
      GpuLinkDescription link = read_link(links[i], links_place.item(i), multi.gpus);
      if (multi.link_between(link.first, link.second)) {
        links_place.item(i).fail("GPUs " + std::to_string(link.first) + " and " +
                                 std::to_string(link.second) + " are already linked");
      }
      multi.links.push_back(link);
    }
  }
  return multi;
}

}  // namespace memtopo::sim
