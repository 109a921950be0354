#include "backend/study_kernels.hpp"

namespace memtopo {

std::string_view to_string(BarrierKind kind) {
  switch (kind) {
    case BarrierKind::block:
      return "syncthreads";
    case BarrierKind::warp:
      return "syncwarp";
    case BarrierKind::grid:
      return "grid";
    case BarrierKind::cluster:
      return "cluster";
  }
  return "unknown";
}

}  // namespace memtopo
