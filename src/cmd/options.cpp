#include "cmd/options.h"

#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "cmd/authn_flags.h"
#include "cmd/kube_flags.h"
#include "controllers/selection.h"
#include "cmd/version.h"
#include "storage/cacher/cacher_factory.h"
#include "storage/storage_codec.h"
#include "util/duration.h"
#include "util/strings.h"

namespace capstan::cmd {
namespace {

struct CapstanFlag {
  std::string_view name;
  FlagKind kind;
  std::string_view default_value;
  std::string_view usage;
};

// Flags kube-apiserver does not have.
constexpr CapstanFlag kCapstanFlags[] = {
    {"data-dir", FlagKind::kString, "./capstan-data",
     "Folder for the embedded store, the generated PKI and admin.kubeconfig."},
    {"storage-quota-bytes", FlagKind::kInt64, "2147483648",
     "Size limit of the embedded store; writes beyond it fail with \"database space exceeded\"."},
    {"snapshot-interval", FlagKind::kDuration, "0s",
     "How often to save a snapshot of the embedded store (as `capstan snapshot save`); 0 turns scheduled snapshots off."},
    {"snapshot-retention", FlagKind::kInt, "5", "How many scheduled snapshots to keep; older ones are removed."},
    {"snapshot-dir", FlagKind::kString, "", "Folder for scheduled snapshots (default <data-dir>/snapshots)."},
    {"max-request-body-bytes", FlagKind::kInt64, "3145728",
     "Largest request body accepted; a larger one is answered 413 RequestEntityTooLarge."},
    {"basic-auth-file", FlagKind::kString, "",
     "CSV file of password,user,uid[,\"group1,group2\"] for HTTP basic auth (removed from kube in 1.19; insecure)."},
    // kube-controller-manager's flags for the in-process control loops.
    {"controllers", FlagKind::kStringSlice, "*,token-cleaner-controller",
     "Control loops to run: '*' all on by default, 'foo' enables foo, '-foo' disables foo (kube-controller-manager "
     "names)."},
    {"leader-elect", FlagKind::kBool, "true",
     "Run the control loops only while holding the coordination.k8s.io Lease (one replica at a time)."},
    {"leader-elect-lease-duration", FlagKind::kDuration, "15s",
     "How long a candidate waits after the leader's last renewal before taking the lease over."},
    {"leader-elect-renew-deadline", FlagKind::kDuration, "10s",
     "How long the leader keeps trying to renew before it stops leading."},
    {"leader-elect-retry-period", FlagKind::kDuration, "2s", "How often candidates try to acquire or renew the lease."},
    {"leader-elect-resource-lock", FlagKind::kString, "leases", "The lock object type; only leases."},
    {"leader-elect-resource-name", FlagKind::kString, "capstan-controller-manager",
     "The name of the control loops' own Lease (they stand down while kube-system/kube-controller-manager is held by a live kube-controller-manager)."},
    {"leader-elect-resource-namespace", FlagKind::kString, "kube-system", "The namespace of the Lease."},
};

const CapstanFlag* FindCapstanFlag(std::string_view name) {
  for (const auto& f : kCapstanFlags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string> SplitList(const std::string& v) {
  std::vector<std::string> out;
  for (const auto& p : Split(v, ',')) {
    std::string t(TrimSpace(p));
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

bool ParseBoolValue(const std::string& v) {
  std::string l = ToLower(v);
  return l == "1" || l == "t" || l == "true";
}

using Setter = std::function<Status(Options&, const std::string&)>;

Status IntSetter(int& field, const std::string& v) {
  field = static_cast<int>(std::stoll(v, nullptr, 0));
  return Status();
}

Status DurationSetter(std::chrono::nanoseconds& field, const char* flag, const std::string& v) {
  auto d = ParseGoDuration(v);
  if (!d) return Status(400, "BadRequest", "invalid argument " + GoQuote(v) + " for \"--" + flag + "\" flag: time: invalid duration " + GoQuote(v));
  field = *d;
  return Status();
}

// The flags Capstan acts on, and how each sets Options. Values were already checked against the flag's
// kind by ValidateFlagValue, so the conversions here cannot fail on syntax.
const std::map<std::string, Setter>& Setters() {
  static const std::map<std::string, Setter> kSetters = {
      {"data-dir", [](Options& o, const std::string& v) { o.data_dir = v; return Status(); }},
      {"snapshot-interval",
       [](Options& o, const std::string& v) {
         o.snapshot_interval = *ParseGoDuration(v);
         if (o.snapshot_interval.count() < 0) return Status(400, "BadRequest", "--snapshot-interval must not be negative");
         return Status();
       }},
      {"snapshot-retention",
       [](Options& o, const std::string& v) {
         o.snapshot_retention = std::stoll(v, nullptr, 0);
         if (o.snapshot_retention < 1) return Status(400, "BadRequest", "--snapshot-retention must be at least 1");
         return Status();
       }},
      {"snapshot-dir", [](Options& o, const std::string& v) { o.snapshot_dir = v; return Status(); }},
      {"storage-quota-bytes",
       [](Options& o, const std::string& v) {
         o.storage_quota_bytes = std::stoll(v, nullptr, 0);
         return Status();
       }},
      {"bind-address", [](Options& o, const std::string& v) { o.bind_address = v; return Status(); }},
      // SO_REUSEADDR: Go's listeners always set it on Linux, and so does Capstan's, so the flag changes
      // nothing in kube either.
      {"permit-address-sharing", [](Options&, const std::string&) { return Status(); }},
      {"permit-port-sharing",
       [](Options& o, const std::string& v) {
         o.permit_port_sharing = ParseBoolValue(v);
         return Status();
       }},
      {"secure-port",
       [](Options& o, const std::string& v) {
         long long p = std::stoll(v, nullptr, 0);
         if (p < 0 || p > 65535) {
           return Status(400, "BadRequest", "--secure-port " + v + " must be between 0 and 65535, inclusive");
         }
         o.secure_port = static_cast<int>(p);
         return Status();
       }},
      {"cert-dir", [](Options& o, const std::string& v) { o.cert_dir = v; return Status(); }},
      {"tls-cert-file", [](Options& o, const std::string& v) { o.tls_cert_file = v; return Status(); }},
      {"tls-private-key-file", [](Options& o, const std::string& v) { o.tls_private_key_file = v; return Status(); }},
      {"proxy-client-cert-file", [](Options& o, const std::string& v) { o.proxy_client_cert_file = v; return Status(); }},
      {"proxy-client-key-file", [](Options& o, const std::string& v) { o.proxy_client_key_file = v; return Status(); }},
      {"kubelet-client-certificate", [](Options& o, const std::string& v) { o.kubelet_client_certificate = v; return Status(); }},
      {"kubelet-client-key", [](Options& o, const std::string& v) { o.kubelet_client_key = v; return Status(); }},
      {"kubelet-certificate-authority",
       [](Options& o, const std::string& v) { o.kubelet_certificate_authority = v; return Status(); }},
      {"kubelet-preferred-address-types",
       [](Options& o, const std::string& v) { o.kubelet_preferred_address_types = SplitList(v); return Status(); }},
      {"kubelet-port",
       [](Options& o, const std::string& v) {
         o.kubelet_port = static_cast<int64_t>(std::stoull(v, nullptr, 0));
         return Status();
       }},
      {"kubelet-timeout", [](Options& o, const std::string& v) { return DurationSetter(o.kubelet_timeout, "kubelet-timeout", v); }},
      {"max-connection-bytes-per-sec",
       [](Options& o, const std::string& v) {
         o.max_connection_bytes_per_sec = std::stoll(v, nullptr, 0);
         return Status();
       }},
      {"max-request-body-bytes",
       [](Options& o, const std::string& v) {
         o.max_request_body_bytes = std::stoll(v, nullptr, 0);
         return Status();
       }},
      {"disable-http2-serving",
       [](Options& o, const std::string& v) { o.disable_http2_serving = ParseBoolValue(v); return Status(); }},
      {"http2-max-streams-per-connection",
       [](Options& o, const std::string& v) { return IntSetter(o.http2_max_streams_per_connection, v); }},
      {"goaway-chance",
       [](Options& o, const std::string& v) {
         try {
           o.goaway_chance = std::stod(v);  // the syntax was checked against the flag's kind
         } catch (...) {
           return Status(400, "BadRequest", "invalid argument " + GoQuote(v) + " for \"--goaway-chance\" flag");
         }
         if (o.goaway_chance < 0 || o.goaway_chance > 0.02) {
           return Status(400, "BadRequest", "--goaway-chance can not be less than 0 or greater than 0.02");
         }
         return Status();
       }},
      {"strict-transport-security-directives",
       [](Options& o, const std::string& v) {
         // kube's validateHSTSDirectives, on the values as pflag's CSV reader splits them (untrimmed).
         for (auto& d : Split(v, ',')) {
           if (TrimSpace(d).empty()) return Status(400, "BadRequest", "empty value in strict-transport-security-directives");
           auto eq = d.find('=');
           if (d != "includeSubDomains" && d != "preload" &&
               (eq == std::string::npos || d.substr(0, eq) != "max-age" || d.find('=', eq + 1) != std::string::npos)) {
             return Status(400, "BadRequest",
                           "--strict-transport-security-directives invalid, allowed values: max-age=expireTime, "
                           "includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more "
                           "information");
           }
           o.hsts_directives.push_back(d);
         }
         return Status();
       }},
      {"cors-allowed-origins",
       [](Options& o, const std::string& v) {
         for (auto& p : SplitList(v)) {
           try {
             std::regex re(p);
           } catch (const std::regex_error&) {
             return Status(400, "BadRequest", "invalid --cors-allowed-origins pattern " + GoQuote(p));
           }
           o.cors_allowed_origins.push_back(p);
         }
         return Status();
       }},
      {"max-requests-inflight", [](Options& o, const std::string& v) { return IntSetter(o.max_requests_inflight, v); }},
      {"max-mutating-requests-inflight",
       [](Options& o, const std::string& v) { return IntSetter(o.max_mutating_requests_inflight, v); }},
      {"event-ttl", [](Options& o, const std::string& v) { return DurationSetter(o.event_ttl, "event-ttl", v); }},
      {"endpoint-reconciler-type", [](Options& o, const std::string& v) { o.endpoint_reconciler_type = v; return Status(); }},
      {"tls-min-version", [](Options& o, const std::string& v) { o.tls_min_version = v; return Status(); }},
      {"tls-sni-cert-key",
       [](Options& o, const std::string& v) {
         // cliflag.NamedCertKey (the syntax is checked with the flag table).
         Options::NamedCertKey nck;
         std::string keycert = v;
         if (size_t colon = v.find(':'); colon != std::string::npos) {
           keycert = v.substr(0, colon);
           for (auto& name : Split(TrimSpace(v.substr(colon + 1)), ',')) nck.names.emplace_back(TrimSpace(name));
         }
         auto files = Split(TrimSpace(keycert), ',');
         if (files.size() != 2) return Status(400, "BadRequest", "expected comma separated certificate and key file paths");
         nck.cert_file = TrimSpace(files[0]);
         nck.key_file = TrimSpace(files[1]);
         o.sni_cert_keys.push_back(std::move(nck));
         return Status();
       }},
      {"tls-cipher-suites",
       [](Options& o, const std::string& v) {
         for (auto& name : StringSliceValues(v)) o.tls_cipher_suites.push_back(name);
         return Status();
       }},
      {"lease-reuse-duration-seconds",
       [](Options& o, const std::string& v) {
         o.lease_reuse_duration_seconds = std::stoll(v, nullptr, 0);
         return Status();
       }},
      {"default-not-ready-toleration-seconds",
       [](Options& o, const std::string& v) {
         o.default_not_ready_toleration_seconds = std::stoll(v, nullptr, 0);
         return Status();
       }},
      {"default-unreachable-toleration-seconds",
       [](Options& o, const std::string& v) {
         o.default_unreachable_toleration_seconds = std::stoll(v, nullptr, 0);
         return Status();
       }},
      {"request-timeout",
       [](Options& o, const std::string& v) {
         o.request_timeout = *ParseGoDuration(v);
         return Status();
       }},
      {"min-request-timeout", [](Options& o, const std::string& v) { return IntSetter(o.min_request_timeout, v); }},
      {"shutdown-delay-duration",
       [](Options& o, const std::string& v) {
         o.shutdown_delay = *ParseGoDuration(v);
         return Status();
       }},
      {"client-ca-file", [](Options& o, const std::string& v) { o.client_ca_file = v; return Status(); }},
      {"runtime-config", [](Options& o, const std::string& v) { o.runtime_config.push_back(v); return Status(); }},
      {"feature-gates", [](Options& o, const std::string& v) { o.feature_gates.push_back(v); return Status(); }},
      {"allow-privileged", [](Options& o, const std::string& v) { o.allow_privileged = ParseBoolValue(v); return Status(); }},
      {"anonymous-auth", [](Options& o, const std::string& v) { o.anonymous_auth = ParseBoolValue(v); return Status(); }},
      {"authorization-mode",
       [](Options& o, const std::string& v) {
         static const std::set<std::string> kModes = {"AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"};
         static const std::set<std::string> kImplemented = {"AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"};
         o.authorization_modes.clear();
         for (auto& m : SplitList(v)) {
           if (!kModes.count(m)) {
             return Status(400, "BadRequest",
                           "authorization-mode " + GoQuote(m) +
                               " is not a valid mode (AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node)");
           }
           if (!kImplemented.count(m)) {
             return Status(400, "BadRequest", "authorization-mode " + GoQuote(m) + " is not supported by this Capstan build yet");
           }
           o.authorization_modes.push_back(m);
         }
         return Status();
       }},
      {"authorization-policy-file",
       [](Options& o, const std::string& v) { o.authorization_policy_file = v; return Status(); }},
      {"authorization-webhook-config-file",
       [](Options& o, const std::string& v) { o.authorization_webhook_config_file = v; return Status(); }},
      {"authorization-webhook-version",
       [](Options& o, const std::string& v) { o.authorization_webhook_version = v; return Status(); }},
      {"authorization-webhook-cache-authorized-ttl",
       [](Options& o, const std::string& v) { return DurationSetter(o.authorization_webhook_cache_authorized_ttl, "authorization-webhook-cache-authorized-ttl", v); }},
      {"authorization-webhook-cache-unauthorized-ttl",
       [](Options& o, const std::string& v) { return DurationSetter(o.authorization_webhook_cache_unauthorized_ttl, "authorization-webhook-cache-unauthorized-ttl", v); }},
      {"service-cluster-ip-range",
       [](Options& o, const std::string& v) { o.service_cluster_ip_range = v; return Status(); }},
      {"advertise-address", [](Options& o, const std::string& v) { o.advertise_address = v; return Status(); }},
      {"service-node-port-range",
       [](Options& o, const std::string& v) { o.service_node_port_range = v; return Status(); }},
      {"enable-admission-plugins",
       [](Options& o, const std::string& v) {
         for (auto& p : SplitList(v)) o.enable_admission_plugins.push_back(p);
         return Status();
       }},
      {"admission-control",
       [](Options& o, const std::string& v) {
         for (auto& p : SplitList(v)) o.admission_control.push_back(p);
         return Status();
       }},
      {"disable-admission-plugins",
       [](Options& o, const std::string& v) {
         for (auto& p : SplitList(v)) o.disable_admission_plugins.push_back(p);
         return Status();
       }},
      {"admission-control-config-file",
       [](Options& o, const std::string& v) { o.admission_control_config_file = v; return Status(); }},
      {"etcd-servers", [](Options& o, const std::string& v) { o.etcd_servers = SplitList(v); return Status(); }},
      {"etcd-prefix", [](Options& o, const std::string& v) { o.etcd_prefix = v; return Status(); }},
      {"storage-media-type",
       [](Options& o, const std::string& v) {
         if (!v.empty()) {
           auto t = storage::ParseStorageMediaType(v);
           if (!t.ok()) return t.status();
         }
         o.storage_media_type = v;
         return Status();
       }},
      {"etcd-cafile", [](Options& o, const std::string& v) { o.etcd_cafile = v; return Status(); }},
      {"etcd-certfile", [](Options& o, const std::string& v) { o.etcd_certfile = v; return Status(); }},
      {"etcd-keyfile", [](Options& o, const std::string& v) { o.etcd_keyfile = v; return Status(); }},
      {"etcd-compaction-interval",
       [](Options& o, const std::string& v) {
         o.etcd_compaction_interval = *ParseGoDuration(v);
         return Status();
       }},
      {"etcd-healthcheck-timeout",
       [](Options& o, const std::string& v) {
         o.etcd_healthcheck_timeout = *ParseGoDuration(v);
         return Status();
       }},
      {"etcd-readycheck-timeout",
       [](Options& o, const std::string& v) {
         o.etcd_readycheck_timeout = *ParseGoDuration(v);
         return Status();
       }},
      {"storage-initialization-timeout",
       [](Options& o, const std::string& v) {
         o.storage_initialization_timeout = *ParseGoDuration(v);
         return Status();
       }},
      {"encryption-provider-config",
       [](Options& o, const std::string& v) { o.encryption_provider_config = v; return Status(); }},
      {"encryption-provider-config-automatic-reload",
       [](Options& o, const std::string& v) {
         o.encryption_provider_config_automatic_reload = ParseBoolValue(v);
         return Status();
       }},
      {"watch-cache", [](Options& o, const std::string& v) { o.watch_cache = ParseBoolValue(v); return Status(); }},
      {"enable-priority-and-fairness",
       [](Options& o, const std::string& v) {
         o.enable_priority_and_fairness = ParseBoolValue(v);
         return Status();
       }},
      {"default-watch-cache-size",
       [](Options& o, const std::string& v) { return IntSetter(o.default_watch_cache_size, v); }},
      {"watch-cache-sizes",
       [](Options& o, const std::string& v) {
         auto list = SplitList(v);
         if (auto sizes = storage::ParseWatchCacheSizes(list); !sizes.ok()) return sizes.status();
         o.watch_cache_sizes.insert(o.watch_cache_sizes.end(), list.begin(), list.end());
         return Status();
       }},
      {"v", [](Options& o, const std::string& v) { return IntSetter(o.verbosity, v); }},
      {"controllers",
       [](Options& o, const std::string& v) {
         auto list = SplitList(v);
         if (Status st = controllers::ValidateControllerSelection(list); !st.ok()) return st;
         o.controllers.insert(o.controllers.end(), list.begin(), list.end());
         return Status();
       }},
      {"leader-elect",
       [](Options& o, const std::string& v) {
         static const std::set<std::string> kBools = {"1", "t", "T", "TRUE", "true", "True",
                                                      "0", "f", "F", "FALSE", "false", "False"};
         if (!kBools.count(v)) {
           return Status(400, "BadRequest", "invalid argument " + GoQuote(v) +
                                                " for \"--leader-elect\" flag: strconv.ParseBool: parsing " + GoQuote(v) +
                                                ": invalid syntax");
         }
         o.leader_elect = ParseBoolValue(v);
         return Status();
       }},
      {"leader-elect-lease-duration",
       [](Options& o, const std::string& v) { return DurationSetter(o.leader_elect_lease_duration, "leader-elect-lease-duration", v); }},
      {"leader-elect-renew-deadline",
       [](Options& o, const std::string& v) { return DurationSetter(o.leader_elect_renew_deadline, "leader-elect-renew-deadline", v); }},
      {"leader-elect-retry-period",
       [](Options& o, const std::string& v) { return DurationSetter(o.leader_elect_retry_period, "leader-elect-retry-period", v); }},
      {"leader-elect-resource-lock",
       [](Options& o, const std::string& v) {
         if (v != "leases") {
           return Status(400, "BadRequest", "--leader-elect-resource-lock " + GoQuote(v) + ": only \"leases\" is supported");
         }
         return Status();
       }},
      {"leader-elect-resource-name",
       [](Options& o, const std::string& v) { o.leader_elect_resource_name = v; return Status(); }},
      {"leader-elect-resource-namespace",
       [](Options& o, const std::string& v) { o.leader_elect_resource_namespace = v; return Status(); }},
  };
  return kSetters;
}

struct Resolved {
  std::string name;
  FlagKind kind;
  bool optional_value;
  const KubeFlag* kube = nullptr;
};

std::optional<Resolved> Resolve(std::string_view name) {
  if (name.size() == 1) {
    if (const KubeFlag* f = FindKubeFlagByShorthand(name[0])) {
      return Resolved{std::string(f->name), f->kind, FlagValueIsOptional(*f), f};
    }
    return std::nullopt;
  }
  if (const CapstanFlag* c = FindCapstanFlag(name)) {
    return Resolved{std::string(c->name), c->kind, c->kind == FlagKind::kBool, nullptr};
  }
  if (const KubeFlag* f = FindKubeFlag(name)) {
    return Resolved{std::string(f->name), f->kind, FlagValueIsOptional(*f), f};
  }
  return std::nullopt;
}

std::string HelpText() {
  std::string out =
      "Capstan is a Kubernetes API server: it serves the Kubernetes REST API with kube-apiserver's flags.\n\n"
      "Usage:\n  capstan [flags]\n\nCapstan flags:\n";
  for (const auto& f : kCapstanFlags) {
    out += "      --" + std::string(f.name) + " " + std::string(FlagKindName(f.kind)) + "    " + std::string(f.usage) +
           " (default " + std::string(f.default_value) + ")\n";
  }
  out += "\nkube-apiserver flags (those Capstan does not act on yet are accepted and logged):\n";
  for (const auto& f : KubeApiserverFlags()) {
    if (f.deprecated) continue;
    std::string line = "      ";
    if (!f.shorthand.empty()) line = "  -" + std::string(f.shorthand) + ", ";
    line += "--" + std::string(f.name);
    if (!f.type_name.empty()) line += " " + std::string(f.type_name);
    line += "    " + std::string(f.usage);
    if (!f.default_value.empty()) line += " (default " + std::string(f.default_value) + ")";
    out += line + "\n";
  }
  return out;
}

}  // namespace

ParseOutcome ParseOptions(const std::vector<std::string>& args) {
  ParseOutcome out;
  Options& o = out.options;
  std::vector<std::pair<std::string, std::string>> given;  // name, value in order
  auto error = [&](std::string msg) {
    out.kind = ParseOutcome::Kind::kError;
    out.text = std::move(msg);
    return out;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') return error("unexpected argument " + GoQuote(arg) + ": capstan takes only flags");
    bool long_form = arg[1] == '-';
    std::string body = arg.substr(long_form ? 2 : 1);
    std::string name = body, value;
    bool has_value = false;
    if (auto eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    if (!long_form && name.size() != 1) {
      // pflag reads "-abc" as shorthand flags; kube has only -h and -v.
      return error("unknown shorthand flag: " + GoQuote(name.substr(0, 1)) + " in " + arg);
    }
    if (name == "help" || name == "h") {
      out.kind = ParseOutcome::Kind::kHelp;
      out.text = HelpText();
      return out;
    }
    auto r = Resolve(name);
    if (!r) return error(long_form ? "unknown flag: --" + name : "unknown shorthand flag: " + GoQuote(name) + " in " + arg);
    if (!has_value) {
      if (r->optional_value) {
        value = "true";
      } else {
        if (i + 1 >= args.size()) return error("flag needs an argument: " + arg);
        value = args[++i];
      }
    }
    if (r->kube) {
      Status st = ValidateFlagValue(*r->kube, value);
      if (!st.ok()) return error(st.message());
    } else if (r->kind == FlagKind::kInt64) {
      try {
        size_t pos = 0;
        (void)std::stoll(value, &pos, 0);
        if (pos != value.size()) throw std::invalid_argument("x");
      } catch (...) {
        return error("invalid argument " + GoQuote(value) + " for \"--" + r->name + "\" flag: not an integer");
      }
    }
    if (r->name == "version") {
      if (ParseBoolValue(value) || value == "raw") {
        out.kind = ParseOutcome::Kind::kVersion;
        out.text = "Kubernetes " + GitVersion();
        return out;
      }
      continue;
    }
    given.emplace_back(r->name, value);
  }
  const auto& setters = Setters();
  std::set<std::string> ignored;
  for (const auto& [name, value] : given) {
    o.given[name].push_back(value);
    auto it = setters.find(name);
    if (it == setters.end()) {
      if (auto st = SetAuthenticationFlag(o.authentication, name, value)) {
        if (!st->ok()) return error(st->message());
        continue;
      }
      if (auto st = SetAuditFlag(o.audit, name, value)) {
        if (!st->ok()) return error(st->message());
        continue;
      }
      if (auto st = SetObservabilityFlag(o.observability, name, value)) {
        if (!st->ok()) return error(st->message());
        continue;
      }
      ignored.insert(name);
      continue;
    }
    Status st = it->second(o, value);
    if (!st.ok()) return error(st.message());
  }
  o.ignored.assign(ignored.begin(), ignored.end());
  if (o.cert_dir && !o.cert_dir->empty() && !o.given.count("data-dir")) o.data_dir = *o.cert_dir + "/capstan-data";
  return out;
}

}  // namespace capstan::cmd
