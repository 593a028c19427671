// server/http/http_date.h: the Date header's value (RFC 9110 IMF-fixdate, "Mon, 02 Jan 2006 15:04:05 GMT"),
// as Go's server writes on every response. Cached per thread for the current second. Thread-safe.
#pragma once

#include <string>

namespace capstan::http {

std::string HttpDate();

}  // namespace capstan::http
