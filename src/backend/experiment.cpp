#include "backend/experiment.hpp"

namespace memtopo {

std::string_view to_string(LoadPath path) {
  switch (path) {
    case LoadPath::ca: return "ca";
    case LoadPath::cg: return "cg";
    case LoadPath::cv: return "cv";
    case LoadPath::nc: return "nc";
    case LoadPath::tex: return "tex";
    case LoadPath::constant: return "const";
    case LoadPath::shared: return "shared";
  }
  return "?";
}

std::optional<LoadPath> parse_load_path(std::string_view name) {
  for (auto path : kAllLoadPaths) {
    if (to_string(path) == name) return path;
  }
  return std::nullopt;
}

std::string_view to_string(ChaseOrder order) {
  switch (order) {
    case ChaseOrder::sequential: return "sequential";
    case ChaseOrder::random_permutation: return "random_permutation";
    case ChaseOrder::explicit_indices: return "explicit_indices";
  }
  return "?";
}

}  // namespace memtopo
