#include "backend/hopper_experiments.hpp"

#include "backend/backend.hpp"

namespace memtopo {

const char* tile_copy_name(TileCopy method) {
  switch (method) {
    case TileCopy::bulk_1d:
      return "bulk_1d";
    case TileCopy::tensor_2d:
      return "tensor_2d";
    case TileCopy::plain_loads:
      break;
  }
  return "plain_loads";
}

HopperExperiments* hopper_experiments(Backend& backend) {
  return dynamic_cast<HopperExperiments*>(&backend);
}

}  // namespace memtopo
