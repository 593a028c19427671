// cmd/authorization/webhook_config.h: reads --authorization-webhook-config-file, a kubeconfig naming
// the webhook server (cluster server and CA), and the credentials to present (client certificate and
// key, or a token), from the current context (or the only/first one). File or inline *-data fields.
#pragma once

#include <string>

#include "apimachinery/status.h"
#include "server/http/http_client.h"

namespace capstan::authz {

struct WebhookTarget {
  std::string server;
  http::ClientTlsConfig tls;
  std::string bearer_token;
};

StatusOr<WebhookTarget> LoadWebhookKubeconfig(const std::string& path);

// A whole file, or Go's "open <path>: no such file or directory".
StatusOr<std::string> ReadAuthzFile(const std::string& path);

}  // namespace capstan::authz
