// endpoints/proxy_html.h: the links of an HTML page served through */proxy, rewritten as kube's proxy
// transport rewrites them (k8s.io/apimachinery/pkg/util/proxy/transport.go), so that a page a pod,
// service or node serves keeps working under /api/v1/.../proxy/.
//
// RewriteHtmlLinks scans the HTML for start tags (comments, declarations, end tags, text, and the
// contents of script, style, textarea, title and the other raw-text elements are copied as they are)
// and passes each URL-valued attribute of kube's list (a href, img src, form action, script src, link
// href, ...; names matched case-insensitively, values with their character references decoded) to
// `rewrite`. A tag whose URL changed is written again with double-quoted values escaped as Go's
// html.EscapeString does; every other byte is copied unchanged. A value with a named reference other
// than amp, lt, gt, quot and apos is left alone. Never fails: malformed markup is copied.
//
// DecodeContent and EncodeContent read and write a body with Content-Encoding gzip or deflate (zlib),
// what kube rewrites; any other encoding is not rewritten.
// Pure functions.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::endpoints {

std::string RewriteHtmlLinks(std::string_view html, const std::function<std::string(std::string_view)>& rewrite);

// `encoding`: "gzip" or "deflate". Decoding refuses more than `max_bytes` of output.
StatusOr<std::string> DecodeContent(std::string_view body, std::string_view encoding, size_t max_bytes);
std::string EncodeContent(std::string_view body, std::string_view encoding);

}  // namespace capstan::endpoints
