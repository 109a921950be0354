#include "probes/shared/bank_layout.hpp"

#include <string>

#include "analysis/banks.hpp"
#include "analysis/confidence.hpp"
#include "backend/warp_access.hpp"
#include "probes/shared/warp_patterns.hpp"
#include "probes/core/chase_helpers.hpp"
#include "probes/core/elements.hpp"
#include "probes/core/findings.hpp"

namespace memtopo {
namespace {

// Recorded accesses per pattern: shared memory answers alike every time, so a few hundred give
// a p50 that holds still and a spread that shows any disturbance.
constexpr std::uint32_t kSweepTimedAccesses = 256;

std::string layout_text(std::uint32_t banks, std::uint32_t width_bytes) {
  return std::to_string(banks) + " banks of " + std::to_string(width_bytes) + " B";
}

nlohmann::json hypothesis_json(const BankHypothesis& h) {
  return {{"banks", h.banks}, {"width_bytes", h.width_bytes}};
}

nlohmann::json rival_json(const std::optional<BankRival>& rival) {
  if (!rival) return nullptr;
  return {{"banks", rival->hypothesis.banks},
          {"width_bytes", rival->hypothesis.width_bytes},
          {"agreeing", rival->agreeing},
          {"distinguishing", rival->distinguishing},
          {"chosen_agreeing", rival->chosen_agreeing}};
}

nlohmann::json scale_json(const DegreeScale& scale) {
  nlohmann::json bases = nlohmann::json::object();
  for (const auto& [bytes, cycles] : scale.base_cycles) bases[std::to_string(bytes)] = cycles;
  return {{"per_pass_cycles", scale.per_pass_cycles}, {"base_cycles", bases}};
}

// Each pattern: what it measured, and what the best layout predicts for it.
nlohmann::json pattern_table(const PatternRun& run, const HypothesisScore& best) {
  nlohmann::json table = nlohmann::json::array();
  for (std::size_t i = 0; i < run.measured.size(); ++i) {
    const MeasuredPattern& m = run.measured[i];
    table.push_back({{"pattern", m.pattern.name},
                     {"word_bytes", m.pattern.word_bytes},
                     {"p50_cycles", m.cycles.p50},
                     {"p5_cycles", m.cycles.p5},
                     {"p95_cycles", m.cycles.p95},
                     {"predicted_degree", best.predicted[i]},
                     {"measured_degree", best.measured[i]},
                     {"agrees", static_cast<bool>(best.agrees[i])}});
  }
  return table;
}

// agreement over every pattern, times agreement over the patterns on which the strongest
// rival (another value of the property) predicts otherwise: a value that only its own
// patterns could tell from a close alternative is no surer than those patterns make it.
Confidence layout_confidence(const nlohmann::json& evidence, const nlohmann::json& rival) {
  const auto agreeing = evidence.at("agreeing_patterns").get<std::size_t>();
  const auto patterns = evidence.at("patterns").get<std::size_t>();
  const nlohmann::json& best = evidence.at("best_layout");
  const std::string layout = layout_text(best.at("banks").get<std::uint32_t>(),
                                         best.at("width_bytes").get<std::uint32_t>());
  Confidence confidence{agreement(
      agreeing, patterns, "access patterns whose cycles fit the conflict degrees of " + layout)};
  if (!rival.is_null()) {
    const std::string other = layout_text(rival.at("banks").get<std::uint32_t>(),
                                          rival.at("width_bytes").get<std::uint32_t>());
    confidence *= agreement(rival.at("chosen_agreeing").get<std::size_t>(),
                            rival.at("distinguishing").get<std::size_t>(),
                            "patterns that tell it from " + other + " (which fits " +
                                std::to_string(rival.at("agreeing").get<std::size_t>()) + ")");
  }
  return confidence;
}

const char* kBankLayoutMethod =
    "stride method of Mei et al., Benchmarking the Memory Hierarchy of Modern GPUs (paper 000, "
    "3.1; docs/references.md): one warp, every lane loading shared memory at lane x stride "
    "(1-64 words of 4 and of 8 B), broadcast and multicast, each access timed in a dependent "
    "chain; the layout of 2-64 banks of 4, 8 or 16 B whose conflict degrees explain the most "
    "patterns' p50 cycles (cycles = base + cost per pass x (degree - 1))";

}  // namespace

void measure_bank_layout(ProbeContext& ctx) {
  const std::vector<BankPattern> patterns = stride_method_patterns(kWarpLanes);
  ctx.progress("shared.banks: " + std::to_string(patterns.size()) + " warp access patterns");
  const PatternRun run = run_patterns(ctx, patterns, kSweepTimedAccesses);
  const BankInference inference = infer_banks(run.patterns(), run.p50_cycles());

  nlohmann::json tied = nlohmann::json::array();
  for (const BankHypothesis& h : inference.tied) tied.push_back(hypothesis_json(h));
  Property p;
  p.name = "banks";
  p.unit = "";
  p.source = Source::measured;
  p.method = kBankLayoutMethod;
  p.evidence = {
      {"run", run.evidence(kSweepTimedAccesses)},
      {"patterns", inference.patterns},
      {"agreeing_patterns", inference.best.agreeing},
      {"best_layout", hypothesis_json(inference.best.hypothesis)},
      {"tied_layouts", tied},
      {"banks", inference.banks ? nlohmann::json(*inference.banks) : nlohmann::json(nullptr)},
      {"width_bytes",
       inference.width_bytes ? nlohmann::json(*inference.width_bytes) : nlohmann::json(nullptr)},
      {"banks_rival", rival_json(inference.banks_rival)},
      {"width_rival", rival_json(inference.width_rival)},
      {"why_not", inference.why_not},
      {"scale", scale_json(inference.best.scale)},
      {"pattern_table", pattern_table(run, inference.best)},
  };
  if (inference.banks) {
    p.value = *inference.banks;
    set_confidence(p, layout_confidence(p.evidence, p.evidence["banks_rival"]));
  } else {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = inference.why_not;
  }
  element_for(ctx.topology, "shared").set(std::move(p));
}

void write_bank_width(ProbeContext& ctx) {
  const Property* banks = any_finding(ctx.topology, "shared", "banks");
  if (!banks || !banks->evidence.contains("width_bytes")) {
    throw ProbeSkipped("needs the sweep of shared.banks");
  }
  const nlohmann::json& sweep = banks->evidence;
  Property p;
  p.name = "bank_width";
  p.unit = "bytes";
  p.source = Source::measured;
  p.method = std::string("from the shared.banks sweep: ") + kBankLayoutMethod;
  p.evidence = {{"from", "shared.banks"},
                {"patterns", sweep.at("patterns")},
                {"agreeing_patterns", sweep.at("agreeing_patterns")},
                {"best_layout", sweep.at("best_layout")},
                {"tied_layouts", sweep.at("tied_layouts")},
                {"width_rival", sweep.at("width_rival")}};
  if (sweep.at("width_bytes").is_number()) {
    const auto width = sweep.at("width_bytes").get<std::uint32_t>();
    p.value = width;
    set_confidence(p, layout_confidence(p.evidence, p.evidence["width_rival"]));
  } else {
    p.value = nullptr;
    p.inconclusive = true;
    p.note = sweep.at("why_not").get<std::string>();
  }
  element_for(ctx.topology, "shared").set(std::move(p));
}

}  // namespace memtopo
