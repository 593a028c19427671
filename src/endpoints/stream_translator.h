// endpoints/stream_translator.h: exec and attach for WebSocket clients, as kube 1.32's
// StreamTranslatorProxy (TranslateStreamCloseWebsocketRequests): a WebSocket request asking for
// "v5.channel.k8s.io" is answered here, and Capstan is the SPDY client of the kubelet
// (remotecommand v4) for it. WebSocket messages carry a channel byte first: 0 stdin, 1 stdout,
// 2 stderr, 3 the final status, 4 terminal resizes, and 255 followed by a channel closes that
// channel (the client's end of stdin). The kubelet's streams are one SPDY stream each, named by
// their "streamtype" header; its exit status arrives as a metav1.Status on the error stream and goes
// to channel 3 as kube writes it (Success; NonZeroExitCode with the ExitCode cause; any other failure
// as an InternalError), before a normal close.
#pragma once

#include <chrono>

#include "endpoints/scope.h"
#include "registry/rest.h"
#include "server/http/http_stream.h"

namespace capstan::endpoints {

// kube's wsstream.IsWebSocketRequestWithStreamCloseProtocol.
bool WantsStreamTranslation(const http::HttpRequest& req);

Task<void> TranslateRemoteCommand(Scope& s, const registry::ConnectLocation& loc, http::UpgradingHttpClient& client,
                                  std::chrono::milliseconds head);

// The status a remotecommand v4 error stream's bytes stand for (client-go's errorDecoderV4, then the
// translator's mapping): OK, a NonZeroExitCode failure naming the exit code, or an internal error.
Status TranslatedExitStatus(std::string_view error_stream);
// A status as the translator writes it to channel 3: json.Marshal of the metav1.Status (no kind or
// apiVersion), an exit status without a code.
std::string ErrorChannelJson(const Status& st);

}  // namespace capstan::endpoints
