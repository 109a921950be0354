#pragma once
// Saved runs gzip-compressed (docs/results keeps them so): `report`, `compare`, `export`, `fleet`
// and `study --topology` read a .json.gz as they read its JSON. Built without zlib, memtopo says
// so and asks for the file gunzipped.
#include <cstddef>
#include <string>
#include <string_view>

namespace memtopo {

// Whether `bytes` begin with gzip's magic number (1f 8b).
bool starts_like_gzip(std::string_view bytes);

// Whether this build can read gzip (it was built with zlib).
bool reads_gzip();

// The text of gzip data `compressed` (one member or several, as gzip writes them). Refuses, with a
// TopologyJsonError naming `shown`: data that is not whole gzip, text beyond `max_bytes`
// (checked as it inflates: a small file that would inflate past it stops there), or a build
// without zlib.
std::string gunzip_text(std::string_view compressed, std::size_t max_bytes,
                        const std::string& shown);

}  // namespace memtopo
