// cmd/options.h: command-line flags → Options, with kube-apiserver's names and pflag's syntax.
//
// Every kube-apiserver 1.32 flag is accepted (cmd/kube_flags.h holds the table): the ones Capstan
// implements fill Options, the rest are collected in `ignored` and logged once at start. Capstan's own
// flags (--data-dir, --storage-quota-bytes) are listed in options.cpp. A flag nobody has, or a bad value,
// is an error whose one-line message names it (the caller exits 2). Syntax as pflag: --name=value,
// --name value, -v=2, -v 2, bare boolean flags, --bool=false.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "auth/authn/config.h"
#include "cmd/audit_flags.h"
#include "cmd/observability_flags.h"

namespace capstan::cmd {

struct Options {
  // Capstan's own.
  std::string data_dir = "./capstan-data";
  int64_t storage_quota_bytes = 2LL << 30;
  // Scheduled snapshots of the embedded store (cmd/storage_setup.h): every interval (0: off), the
  // newest `retention` kept in snapshot_dir (empty: <data_dir>/snapshots).
  std::chrono::nanoseconds snapshot_interval{0};
  int64_t snapshot_retention = 5;
  std::string snapshot_dir;

  // Serving.
  std::string bind_address = "127.0.0.1";
  int secure_port = 6443;
  bool permit_port_sharing = false;  // --permit-port-sharing: SO_REUSEPORT on the secure port
  std::string tls_cert_file;
  std::string tls_private_key_file;
  // --cert-dir, only when given: the serving pair is <cert-dir>/apiserver.crt|key, generated there when
  // absent (cmd/serving_cert.h). Without --data-dir, the data dir is then <cert-dir>/capstan-data, so that
  // a process started as kube-apiserver (envtest) keeps everything in the folder it was handed.
  std::optional<std::string> cert_dir;
  int64_t max_request_body_bytes = 3 * 1024 * 1024;
  bool disable_http2_serving = false;       // --disable-http2-serving
  int http2_max_streams_per_connection = 0;  // --http2-max-streams-per-connection; 0: kube's 100
  double goaway_chance = 0;                  // --goaway-chance, 0 to 0.02
  std::vector<std::string> cors_allowed_origins;
  int max_requests_inflight = 400;
  // API Priority and Fairness instead of the two max-in-flight limits (their sum is its server limit).
  bool enable_priority_and_fairness = true;
  int max_mutating_requests_inflight = 200;
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(60);
  std::chrono::nanoseconds event_ttl = std::chrono::hours(1);  // --event-ttl
  std::string endpoint_reconciler_type = "lease";              // --endpoint-reconciler-type: lease, master-count, none
  int64_t default_not_ready_toleration_seconds = 300;
  int64_t lease_reuse_duration_seconds = 60;  // --lease-reuse-duration-seconds
  std::string tls_min_version;                // --tls-min-version ("": VersionTLS12)
  std::vector<std::string> tls_cipher_suites; // --tls-cipher-suites, Go's names (empty: Go's defaults)
  struct NamedCertKey {                       // --tls-sni-cert-key "cert,key[:name,...]", in flag order
    std::string cert_file;
    std::string key_file;
    std::vector<std::string> names;
  };
  std::vector<NamedCertKey> sni_cert_keys;
  std::vector<std::string> hsts_directives;   // --strict-transport-security-directives
  int64_t default_unreachable_toleration_seconds = 300;
  int min_request_timeout = 1800;
  std::chrono::nanoseconds shutdown_delay = std::chrono::seconds(0);
  std::string service_cluster_ip_range = "10.0.0.0/24";
  std::string service_node_port_range = "30000-32767";
  std::string advertise_address;  // "": chosen as kube does (bind address, else the host's)
  // The client certificate for aggregated API servers ("": the generated front-proxy client).
  std::string proxy_client_cert_file;
  std::string proxy_client_key_file;
  // The kubelet client (pods/log, nodes/proxy): --kubelet-client-certificate/-key, the CA its serving
  // certificates are verified with (--kubelet-certificate-authority; none: not verified, as kube),
  // the node address types tried in order, the port of nodes that report none, the time to connect.
  std::string kubelet_client_certificate;
  std::string kubelet_client_key;
  std::string kubelet_certificate_authority;
  std::vector<std::string> kubelet_preferred_address_types = {"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"};
  int64_t kubelet_port = 10250;
  std::chrono::nanoseconds kubelet_timeout = std::chrono::seconds(5);
  int64_t max_connection_bytes_per_sec = 0;  // each direction of an upgraded exec, attach, port-forward or proxy connection

  // Authentication and authorization.
  std::string client_ca_file;
  bool anonymous_auth = true;
  bool allow_privileged = false;                // --allow-privileged (kube's default: privileged containers refused)
  std::vector<std::string> authorization_modes;  // empty: Capstan's default, Node,RBAC
  std::string authorization_policy_file;        // --authorization-policy-file (ABAC)
  std::string authorization_webhook_config_file;  // --authorization-webhook-config-file
  std::string authorization_webhook_version = "v1beta1";
  std::chrono::nanoseconds authorization_webhook_cache_authorized_ttl = std::chrono::minutes(5);
  std::chrono::nanoseconds authorization_webhook_cache_unauthorized_ttl = std::chrono::seconds(30);
  authn::AuthenticationConfig authentication;     // the other authentication flags (cmd/authn_flags.cpp)

  // Admission.
  std::vector<std::string> enable_admission_plugins;
  std::vector<std::string> disable_admission_plugins;
  std::vector<std::string> admission_control;  // --admission-control (deprecated): the whole plugin set
  std::string admission_control_config_file;  // --admission-control-config-file (AdmissionConfiguration)

  // Auditing (cmd/audit_flags.cpp).
  AuditFlags audit;
  ObservabilityFlags observability;  // metrics exposure, logging format, profiling

  // Storage.
  std::vector<std::string> etcd_servers;
  std::string etcd_prefix = "/registry";
  // --storage-media-type: how built-in kinds are written (storage/storage_codec.h).
  std::string storage_media_type = "application/vnd.kubernetes.protobuf";
  std::string etcd_cafile;
  std::string etcd_certfile;
  std::string etcd_keyfile;
  std::chrono::nanoseconds etcd_compaction_interval = std::chrono::minutes(5);
  std::chrono::nanoseconds etcd_healthcheck_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds etcd_readycheck_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds storage_initialization_timeout = std::chrono::minutes(1);
  std::string encryption_provider_config;
  bool encryption_provider_config_automatic_reload = false;  // storage/transformers/config_reloader.h
  bool watch_cache = true;                      // --watch-cache
  int default_watch_cache_size = 100;           // --default-watch-cache-size
  std::vector<std::string> watch_cache_sizes;   // --watch-cache-sizes resource[.group]#size

  // Control loops, with kube-controller-manager's flags.
  std::vector<std::string> feature_gates;   // each --feature-gates occurrence, applied by main()
  std::vector<std::string> runtime_config;  // each --runtime-config occurrence (cmd/runtime_config.h)
  std::vector<std::string> controllers;  // empty: Capstan's default, "*,token-cleaner-controller"
  bool leader_elect = true;
  std::chrono::nanoseconds leader_elect_lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds leader_elect_renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds leader_elect_retry_period = std::chrono::seconds(2);
  std::string leader_elect_resource_name = "capstan-controller-manager";
  std::string leader_elect_resource_namespace = "kube-system";

  int verbosity = 0;

  // Every flag given on the command line, by name, with its values in order.
  std::map<std::string, std::vector<std::string>> given;
  // Flags given that kube-apiserver has but Capstan does not act on yet.
  std::vector<std::string> ignored;
};

struct ParseOutcome {
  enum class Kind { kRun, kHelp, kVersion, kError };
  Kind kind = Kind::kRun;
  Options options;
  std::string text;  // help text, version line, or the one-line error
};

ParseOutcome ParseOptions(const std::vector<std::string>& args);

}  // namespace capstan::cmd
