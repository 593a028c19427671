#include "server/http/http_date.h"

#include <ctime>

namespace capstan::http {

std::string HttpDate() {
  thread_local time_t cached_sec = 0;
  thread_local char cached[64];
  time_t now = time(nullptr);
  if (now != cached_sec) {
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(cached, sizeof cached, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached_sec = now;
  }
  return cached;
}

}  // namespace capstan::http
