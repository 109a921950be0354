#pragma once
// The studies registry.cpp lists: one function per study, each in its own file (or folder)
// under src/study/, returning its registration.
#include "study/study.hpp"

namespace memtopo::study {

Study stride_study();      // strided/stride_study.cpp
Study coalescing_study();  // strided/coalescing_study.cpp
Study sync_study();        // sync/sync_study.cpp
Study spilling_study();    // spilling/spilling_study.cpp

}  // namespace memtopo::study
