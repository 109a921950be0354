#pragma once
// A copy of the GPGPU-Sim / Accel-Sim option table for the options memtopo's export writes:
// each name as gpgpu-sim's option_parser_register declares it (gpu-sim.cc, shader.cc of
// gpgpu-sim_distribution 4.x / Accel-Sim's gpgpu-sim) and the format its value must have.
// OPT_UINT32 options are unsigned decimal numbers; OPT_CSTR options are parsed later: a cache
// string by cache_config::init's sscanf("%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u,%u:%u,%u"), the
// clock domains by sscanf("%lf:%lf:%lf:%lf"), the shared-memory options as a comma list.
#include <map>
#include <string>

namespace memtopo::testing {

inline const std::string kUint32 = R"(\d{1,10})";
inline const std::string kCacheString =
    R"([NSF]:\d+:\d+:\d+,[LF]:[RBTWLV]:[mfl]:[NWFL]:[LXPHC],[ASMT]:\d+:\d+,\d+(:\d+,\d+)?)";

inline const std::map<std::string, std::string>& accel_sim_option_table() {
  static const std::map<std::string, std::string> table{
      {"-gpgpu_cache:dl1", kCacheString},       // OPT_CSTR, L1 data cache
      {"-gpgpu_cache:dl2", kCacheString},       // OPT_CSTR, one L2 sub-partition
      {"-gpgpu_const_cache:l1", kCacheString},  // OPT_CSTR, constant cache per SM
      {"-gpgpu_l1_latency", kUint32},           // OPT_UINT32
      {"-gpgpu_smem_latency", kUint32},         // OPT_UINT32
      {"-gpgpu_l2_rop_latency", kUint32},       // OPT_UINT32
      {"-dram_latency", kUint32},               // OPT_UINT32
      {"-gpgpu_unified_l1d_size", kUint32},     // OPT_UINT32, KB
      {"-gpgpu_shmem_option", R"(\d+(,\d+)*)"},  // OPT_CSTR, KB list
      {"-gpgpu_shmem_num_banks", kUint32},      // OPT_UINT32
      {"-gpgpu_shmem_size", kUint32},           // OPT_UINT32, bytes
      {"-gpgpu_shmem_per_block", kUint32},      // OPT_UINT32, bytes
      {"-gpgpu_n_clusters", kUint32},           // OPT_UINT32
      {"-gpgpu_n_cores_per_cluster", kUint32},  // OPT_UINT32
      {"-gpgpu_clock_domains", R"(\d+(\.\d+)?:\d+(\.\d+)?:\d+(\.\d+)?:\d+(\.\d+)?)"},  // OPT_CSTR
  };
  return table;
}

}  // namespace memtopo::testing
