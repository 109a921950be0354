// The shapes of the properties memtopo writes (property_shapes.hpp), as tables: a property's
// value, the rows of a table-valued property, and the evidence keys that reports read.
#include "model/property_shapes.hpp"

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

namespace memtopo {
namespace {

using ojson = nlohmann::ordered_json;

enum class Kind {
  any,
  number,        // any number
  non_negative,  // a number >= 0 (sizes, counts, rates)
  fraction,      // a number in [0, 1] (confidences)
  index,         // an integer in [0, max] (reports convert it to int or size_t)
  text,
  boolean,
  texts,    // a list of strings
  indices,  // a list of integers >= 0
  ways,     // non_negative, or a list of them (one per set)
  spread,   // {p50, mean, stdev, p5, p95, min, max: numbers; samples: an integer >= 0}
  factors,  // confidence_factors: [{rule: string, value: fraction, inputs: string}]
  rows,     // a list of objects, each with `fields`
};

// The longest value quoted in a message.
constexpr std::size_t kMaxQuotedValue = 40;
constexpr double kIntMax = std::numeric_limits<std::int32_t>::max();

struct Field {
  std::string_view key;
  Kind kind;
  std::span<const Field> fields = {};  // of each row (Kind::rows)
  // Whether null may stand for a number that was not finite (the writer's NaN): numbers only.
  // A report reads the others with value(key, default), which does not take null.
  bool nullable = true;
  double max = kIntMax;  // Kind::index
};

constexpr Field kSpreadFields[] = {
    {"p50", Kind::number},   {"mean", Kind::number},
    {"stdev", Kind::number}, {"p5", Kind::number},
    {"p95", Kind::number},   {"min", Kind::number},
    {"max", Kind::number},   {"samples", Kind::index, {}, false, 1e18}};
constexpr Field kFactorFields[] = {
    {"rule", Kind::text}, {"value", Kind::fraction, {}, false}, {"inputs", Kind::text}};
constexpr Field kCarveoutRow[] = {{"confidence", Kind::fraction},
                                  {"l1_bytes", Kind::non_negative},
                                  {"reserved_shared_bytes", Kind::non_negative},
                                  {"resolution_bytes", Kind::non_negative},
                                  {"confidence_factors", Kind::factors}};
constexpr Field kConflictRow[] = {{"cycles", Kind::number},
                                  {"degree", Kind::non_negative},
                                  {"raw_cycles", Kind::number},
                                  {"spread", Kind::spread}};
constexpr Field kTileRow[] = {
    {"confidence", Kind::fraction},    {"method", Kind::text},
    {"p50", Kind::number, {}, false},  {"rows", Kind::non_negative},
    {"row_bytes", Kind::non_negative}, {"tile_bytes", Kind::non_negative, {}, false},
    {"blocks", Kind::non_negative},    {"bytes_per_cycle_per_sm", Kind::number},
    {"spread", Kind::spread},          {"launch_spread", Kind::spread},
    {"event_timed", Kind::spread}};
constexpr Field kPatternRow[] = {{"data", Kind::text},
                                 {"path", Kind::text},
                                 {"why", Kind::text},
                                 {"tlb", Kind::texts},
                                 {"cold", Kind::boolean},
                                 {"reachable", Kind::boolean},
                                 {"cycles", Kind::number},
                                 {"p5_cycles", Kind::number},
                                 {"p95_cycles", Kind::number},
                                 {"stdev_cycles", Kind::number},
                                 {"share_within_band", Kind::number},
                                 {"samples", Kind::non_negative},
                                 {"page_bytes", Kind::non_negative, {}, false},
                                 {"pages", Kind::index, {}, false},
                                 {"lines_per_page", Kind::index, {}, false}};
constexpr Field kPartitionRow[] = {{"partition", Kind::index, {}, false}, {"sms", Kind::indices}};
constexpr Field kRankRow[] = {
    {"rank", Kind::non_negative}, {"sm", Kind::non_negative}, {"cycles_p50", Kind::number}};
constexpr Field kPlacementRow[] = {{"cluster_size", Kind::non_negative},
                                   {"ranks", Kind::rows, kRankRow}};

// The value of each property name that memtopo writes (on any element).
constexpr Field kValues[] = {
    {"size", Kind::non_negative},
    {"line", Kind::non_negative},
    {"sector", Kind::non_negative},
    {"fetch_granularity", Kind::non_negative},
    {"sets", Kind::non_negative},
    {"ways", Kind::ways},
    {"count_per_sm", Kind::non_negative},
    {"partitions", Kind::non_negative},
    {"segments", Kind::non_negative},
    {"segment_size", Kind::non_negative},
    {"banks", Kind::non_negative},
    {"bank_width", Kind::non_negative},
    {"reach", Kind::non_negative},
    {"entries", Kind::non_negative},
    {"page", Kind::non_negative},
    {"unified_size", Kind::non_negative},
    {"size_per_block", Kind::non_negative},
    {"size_per_block_optin", Kind::non_negative},
    {"persisting_max", Kind::non_negative},
    {"max_cluster_size", Kind::non_negative},
    {"bandwidth", Kind::non_negative},
    {"write_bandwidth", Kind::non_negative},
    {"copy_bandwidth", Kind::non_negative},
    {"triad_bandwidth", Kind::non_negative},
    {"bandwidth_per_sm_clock", Kind::non_negative},
    {"bandwidth_local", Kind::non_negative},
    {"bandwidth_remote", Kind::non_negative},
    {"peak_bandwidth", Kind::non_negative},
    {"peak_fraction", Kind::non_negative},
    {"latency", Kind::number},
    {"miss_penalty", Kind::number},
    {"near_latency", Kind::number},
    {"far_latency", Kind::number},
    {"latency_tlb_miss", Kind::number},
    {"latency_local", Kind::number},
    {"latency_remote", Kind::number},
    {"cycles_per_instruction", Kind::number},
    {"policy", Kind::text},
    {"shared_with", Kind::texts},
    {"carveout", Kind::rows, kCarveoutRow},
    {"conflict_latency", Kind::rows, kConflictRow},
    {"copy_latency", Kind::rows, kTileRow},
    {"copy_throughput", Kind::rows, kTileRow},
    {"latency_patterns", Kind::rows, kPatternRow},
    {"partition_map", Kind::rows, kPartitionRow},
    {"placement", Kind::rows, kPlacementRow},
};

// Evidence keys a report reads: of every property, and of some properties only.
constexpr Field kEveryEvidence[] = {{"confidence_factors", Kind::factors}};
constexpr Field kBandwidthEvidence[] = {{"placement", Kind::text}};
constexpr Field kPatternsEvidence[] = {{"tlb_levels", Kind::index, {}, false, 64}};
constexpr Field kPartitionMapEvidence[] = {{"second_touch_p50_cycles", Kind::number, {}, false}};

struct EvidenceRule {
  std::string_view property;
  std::span<const Field> fields;
};
constexpr EvidenceRule kEvidence[] = {{"bandwidth", kBandwidthEvidence},
                                      {"latency_patterns", kPatternsEvidence},
                                      {"partition_map", kPartitionMapEvidence}};

class Checker {
 public:
  explicit Checker(const ShapeFailure& fail) : fail_(fail) {}

  // `value` at `where`, as `field` says.
  void check(const ojson& value, const Field& field, const std::string& where) const {
    if (value.is_null() && field.nullable && is_numeric(field.kind)) return;
    switch (field.kind) {
      case Kind::any:
        return;
      case Kind::number:
        return expect(value.is_number(), value, where, "expected a number");
      case Kind::non_negative:
        expect(value.is_number(), value, where, "expected a number");
        return expect(value.get<double>() >= 0, value, where, "must not be negative");
      case Kind::fraction:
        expect(value.is_number(), value, where, "expected a number");
        return expect(value.get<double>() >= 0 && value.get<double>() <= 1, value, where,
                      "must lie between 0 and 1");
      case Kind::index:
        expect(value.is_number_unsigned() ||
                   (value.is_number_integer() && value.get<std::int64_t>() >= 0),
               value, where, "expected an integer of 0 or more");
        return expect(value.get<double>() <= field.max, value, where,
                      "must be at most " + std::to_string(static_cast<std::int64_t>(field.max)));
      case Kind::text:
        return expect(value.is_string(), value, where, "expected a string");
      case Kind::boolean:
        return expect(value.is_boolean(), value, where, "expected true or false");
      case Kind::texts:
        return each(value, where, Field{"", Kind::text});
      case Kind::indices:
        return each(value, where, Field{"", Kind::index, {}, false});
      case Kind::ways:
        if (value.is_array()) return each(value, where, Field{"", Kind::non_negative, {}, false});
        return check(value, Field{"", Kind::non_negative}, where);
      case Kind::spread:
        return fields(value, kSpreadFields, where);
      case Kind::factors:
        return rows(value, kFactorFields, where);
      case Kind::rows:
        return rows(value, field.fields, where);
    }
  }

  // The keys of the object `value` that `known` names.
  void fields(const ojson& value, std::span<const Field> known, const std::string& where) const {
    expect(value.is_object(), value, where, "expected an object");
    for (const Field& field : known) {
      const auto found = value.find(std::string(field.key));
      if (found != value.end()) check(*found, field, where + "." + std::string(field.key));
    }
  }

  void rows(const ojson& value, std::span<const Field> known, const std::string& where) const {
    expect(value.is_array(), value, where, "expected a list of objects");
    for (std::size_t i = 0; i < value.size(); ++i) {
      fields(value[i], known, where + "[" + std::to_string(i) + "]");
    }
  }

 private:
  static bool is_numeric(Kind kind) {
    return kind == Kind::number || kind == Kind::non_negative || kind == Kind::fraction ||
           kind == Kind::index || kind == Kind::ways;
  }

  void each(const ojson& value, const std::string& where, const Field& item) const {
    expect(value.is_array(), value, where, "expected a list");
    for (std::size_t i = 0; i < value.size(); ++i) {
      check(value[i], item, where + "[" + std::to_string(i) + "]");
    }
  }

  // Fails with `what` and the value as the file has it, cut short.
  void expect(bool holds, const ojson& value, const std::string& where,
              const std::string& what) const {
    if (holds) return;
    std::string text = value.dump(-1, ' ', false, ojson::error_handler_t::replace);
    if (text.size() > kMaxQuotedValue) text = text.substr(0, kMaxQuotedValue - 3) + "...";
    fail_(where, what + ", found " + text);
  }

  const ShapeFailure& fail_;
};

}  // namespace

void check_property_shape(const std::string& name, const ojson& value, const ojson* evidence,
                          const ShapeFailure& fail) {
  const Checker checker(fail);
  for (const Field& rule : kValues) {
    if (rule.key != name) continue;
    // null: inconclusive, whatever the property.
    if (!value.is_null()) checker.check(value, rule, "value");
    break;
  }
  if (!evidence) return;
  checker.fields(*evidence, kEveryEvidence, "evidence");
  for (const EvidenceRule& rule : kEvidence) {
    if (rule.property == name) checker.fields(*evidence, rule.fields, "evidence");
  }
}

}  // namespace memtopo
