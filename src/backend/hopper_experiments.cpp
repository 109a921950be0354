#include "backend/hopper_experiments.hpp"


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

}  // namespace memtopo
