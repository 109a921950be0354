#pragma once
// memtopo's exit codes. Scripts depend on them: keep each number's meaning once released.
namespace memtopo::exit_code {

inline constexpr int ok = 0;
inline constexpr int internal_error = 1;  // a bug in memtopo: the message says what to report
inline constexpr int usage = 2;           // unknown option, bad value, unknown --only id
inline constexpr int no_device = 3;       // no usable CUDA device (and no fallback applied)
inline constexpr int bad_input = 4;       // an input file (--sim description, a run to compare
                                          // or export) missing or invalid
inline constexpr int probe_failed = 5;    // a probe (or a study) failed; the report was still
                                          // written
inline constexpr int out_of_memory = 6;   // too little free device memory for any probe to run
inline constexpr int cannot_write = 7;    // an output file or directory cannot be written
inline constexpr int gpu_in_use = 8;      // another process uses the GPU (or another memtopo
                                          // holds it past --wait); --allow-shared measures anyway
inline constexpr int runs_differ = 9;     // compare: the runs differ; fleet: GPUs differ (not errors)
// memtopo study: the device cannot run the study (a simulated device without the model it
// needs, a GPU without the feature); the report says why, with status "skipped".
inline constexpr int study_skipped = 10;
// Stopped by a signal after writing what was measured: 128 + the signal, as a shell reports
// a process that a signal ended.
inline constexpr int hangup = 129;       // SIGHUP: the terminal or session went away
inline constexpr int interrupted = 130;  // SIGINT: Ctrl-C
inline constexpr int terminated = 143;   // SIGTERM: a batch scheduler's time limit, a shutdown
constexpr int interrupted_by(int signal) {
  return 128 + signal;
}

// The table --help prints (also in README.md). When several apply, the first of
// 7, 129/130/143, 8, 6, 5, 10 in this list wins (9 is compare's own).
inline constexpr const char* kHelpText =
    "Exit codes:\n"
    "  0    discovery complete\n"
    "  1    internal error (a bug: please report it with the message)\n"
    "  2    usage error: unknown option, bad value, unknown --only id, an output that is\n"
    "       an input or another output\n"
    "  3    no usable CUDA device\n"
    "  4    bad input file: a --sim description, or a run given to report, compare,\n"
    "       export or study --topology, missing or invalid\n"
    "  5    a probe or study failed (the report is still written)\n"
    "  6    out of device memory: no probe could run\n"
    "  7    cannot write an output (--json, --traces, --export, --html, --markdown,\n"
    "       stdout), or another memtopo is writing it\n"
    "  8    the GPU is in use by another process (--allow-shared measures anyway),\n"
    "       or another memtopo held it past --wait\n"
    "  9    memtopo compare: the two runs differ (0: they agree within their spreads);\n"
    "       memtopo fleet: some GPUs differ from their model's fleet\n"
    "  10   memtopo study: the study cannot run on this device (skipped; the report says "
    "why)\n"
    "  129  stopped by SIGHUP; what was measured is still written\n"
    "  130  interrupted (Ctrl-C, SIGINT); what was measured is still written\n"
    "  143  stopped by SIGTERM (e.g. a scheduler's time limit); what was measured is still "
    "written\n";

}  // namespace memtopo::exit_code
