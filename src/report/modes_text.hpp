#pragma once
// How every report shows a value of several modes (Property::modes: near and far L2 partitions,
// the memory behind them): both values and their shares, where a value of one mode shows one
// number. docs/method.md, "Two modes".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/topology.hpp"

namespace memtopo {

// "521 / 710 cy (44 % / 56 %)": each mode's value, fastest first, and its share of the samples;
// "" for a value of one mode.
std::string modes_text(const Property& property);
// "268 / 456 cy": the values alone, where the shares stand beside them already (a miss penalty's
// misses are the next level's loads, whose latency cell gives the shares).
std::string modes_values_text(const Property& property);

// The same for modes as the latency-pattern rows list them (mode_json, or the row form of
// earlier runs): "522 / 710 cy (44 % / 56 %)", "" for fewer than two.
std::string modes_text(const std::vector<Mode>& modes, const std::string& unit);
std::vector<Mode> row_modes(const nlohmann::json& row);

// Each mode in full and the mix: "near 521 cy: 44 %, p5 497 cy - p95 550 cy, confidence 0.84;
// far 710 cy: 56 %, ...; all 4096 samples: p5 505 cy - p95 1062 cy"; "" for one mode.
std::string modes_detail(const Property& property);

}  // namespace memtopo
