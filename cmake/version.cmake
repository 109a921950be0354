# Writes generated/memtopo/version.hpp: the tool version and the source tree's git describe.
# Run at configure time (included) and at every build (cmake -P, target memtopo_version), so the
# binary names the commit it was built from, not the one CMake was first configured at.
# Inputs: SOURCE_DIR, TEMPLATE, OUTPUT, PROJECT_VERSION, OVERRIDE (-DMEMTOPO_GIT_DESCRIBE),
# GIT_EXECUTABLE (may be empty).
set(memtopo_describe "${OVERRIDE}")
if(NOT memtopo_describe AND GIT_EXECUTABLE)
  # Only the source tree's own repository: a tree copied into another git repository (a vendored
  # copy, a tarball unpacked in a project) must not report that repository's commit.
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --show-toplevel
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE memtopo_git_top OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE memtopo_git_status ERROR_QUIET)
  get_filename_component(memtopo_source_real "${SOURCE_DIR}" REALPATH)
  if(memtopo_git_status EQUAL 0 AND memtopo_git_top)
    get_filename_component(memtopo_git_top "${memtopo_git_top}" REALPATH)
  endif()
  if(memtopo_git_status EQUAL 0 AND memtopo_git_top STREQUAL memtopo_source_real)
    execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --tags
                    WORKING_DIRECTORY "${SOURCE_DIR}"
                    OUTPUT_VARIABLE memtopo_describe OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
  endif()
endif()
if(NOT memtopo_describe)
  set(memtopo_describe "unknown")
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
