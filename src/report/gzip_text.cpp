#include "report/gzip_text.hpp"

#include "model/json.hpp"

#ifdef MEMTOPO_HAVE_ZLIB
#include <zlib.h>
#endif

namespace memtopo {
namespace {

constexpr unsigned char kGzipMagic0 = 0x1f;
constexpr unsigned char kGzipMagic1 = 0x8b;
// zlib's window bits for gzip framing: the largest window (15) plus 16.
constexpr int kGzipWindowBits = 15 + 16;
constexpr std::size_t kInflateChunkBytes = std::size_t{1} << 16;

}  // namespace

bool starts_like_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == kGzipMagic0 &&
         static_cast<unsigned char>(bytes[1]) == kGzipMagic1;
}

#ifdef MEMTOPO_HAVE_ZLIB

bool reads_gzip() { return true; }

std::string gunzip_text(std::string_view compressed, std::size_t max_bytes,
                        const std::string& shown) {
  z_stream stream{};
  if (inflateInit2(&stream, kGzipWindowBits) != Z_OK) {
    throw TopologyJsonError(shown + ": gzip: cannot start inflating");
  }
  // zlib takes non-const input; it does not write to it.
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string text;
  char buffer[kInflateChunkBytes];
  int status = Z_OK;
  for (;;) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    text.append(buffer, sizeof buffer - stream.avail_out);
    if (text.size() > max_bytes) {
      inflateEnd(&stream);
      throw TopologyJsonError(shown + ": gzip: inflates past " + std::to_string(max_bytes >> 20) +
                              " MiB; a memtopo result is far smaller");
    }
    // One member ended: gzip may concatenate more (gzip -c a b > c).
    if (status == Z_STREAM_END && stream.avail_in > 0) {
      if (inflateReset(&stream) != Z_OK) break;
      continue;
    }
    if (status != Z_OK) break;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    const char* why = status == Z_BUF_ERROR ? "the data ends early (a truncated file)"
                                            : (stream.msg ? stream.msg : "not gzip data");
    throw TopologyJsonError(shown + ": gzip: " + why);
  }
  return text;
}

#else

bool reads_gzip() { return false; }

std::string gunzip_text(std::string_view, std::size_t, const std::string& shown) {
  throw TopologyJsonError(shown +
                          ": gzip-compressed, and this memtopo was built without zlib: "
                          "gunzip it first (gunzip -k)");
}

#endif

}  // namespace memtopo
