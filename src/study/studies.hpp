#pragma once
// The studies registry.cpp lists: one function per study, each in its own file (or folder)
// under src/study/, returning its registration.
#include "study/study.hpp"

namespace memtopo::study {}  // namespace memtopo::study
