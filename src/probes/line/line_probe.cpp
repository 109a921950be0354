#include "probes/line/line_probe.hpp"

#include "probes/line/l2_line_probe.hpp"
#include "probes/line/line_measurement.hpp"

namespace memtopo {

const std::vector<LineTarget>& line_targets() {
  static const std::vector<LineTarget> table = {
      {"l1", LoadPath::ca, LoadPath::cg, "L2", "global loads are not cached in L1 (ca ≈ cg)",
       "L1 sector (fetch granularity): spacing of misses in a 4 B-stride chase beyond l1.size",
       "L1 line size: capacity in elements per stride (concurrent size searches), size / "
       "capacity beyond the line"},
      {"tex", LoadPath::tex, LoadPath::cg, "L2",
       "texture fetches are not cached on the SM (tex ≈ cg)",
       "texture cache sector: spacing of misses in a 4 B-stride tex1Dfetch chase beyond tex.size",
       "texture cache line size: capacity in elements per stride, size / capacity beyond it"},
      {"ro", LoadPath::nc, LoadPath::cg, "L2", "read-only loads are not cached on the SM (nc ≈ cg)",
       "read-only cache sector: spacing of misses in a 4 B-stride ld.global.nc chase beyond "
       "ro.size",
       "read-only cache line size: capacity in elements per stride, size / capacity beyond it"},
      {"l2", LoadPath::cg, LoadPath::cg, "DRAM", "",
       "L2 fetch granularity of a miss (l2.fetch_granularity; also under its deprecated name "
       "l2.sector): spacing of misses in a cold (flushed) 4 B-stride ld.global.cg chase",
       "L2 line size: one fit verdict per stride 7 x unit over 3/4 of 7 x l2.size, the smallest "
       "unit that fits",
       true},
  };
  return table;
}

std::string LineProbe::id() const {
  return target_.element + (question_ == LineQuestion::sector ? ".sector" : ".line");
}

std::string LineProbe::description() const {
  return question_ == LineQuestion::sector ? target_.sector_description : target_.line_description;
}

std::vector<std::string> LineProbe::needs() const {
  if (target_.device_wide) {
    if (question_ == LineQuestion::sector) return {};
    return {target_.element + ".size", target_.element + ".sector"};
  }
  if (question_ == LineQuestion::sector) return {target_.element + ".size"};
  return {target_.element + ".size", target_.element + ".sector"};
}

void LineProbe::run(ProbeContext& ctx) {
  if (target_.device_wide) {
    if (question_ == LineQuestion::sector) {
      measure_device_cache_sector(ctx, target_, id());
    } else {
      measure_device_cache_line(ctx, target_, id());
    }
    return;
  }
  LineMeasurement measurement(ctx, target_, id());
  if (question_ == LineQuestion::sector) {
    measure_sector(measurement);
  } else {
    measure_line(measurement);
  }
}

}  // namespace memtopo
