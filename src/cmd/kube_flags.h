// cmd/kube_flags.h: every command-line flag kube-apiserver 1.32 accepts, as data.
//
// Capstan takes kube-apiserver's flags so that deployment manifests, kubeadm and envtest can start it
// unchanged. The table lists each flag once with the value kind that its pflag type parses, the
// default kube-apiserver shows in --help, its --help section and a one-line description in our own
// words. Deprecated flags kube still accepts (hidden from its --help) are in the table and marked.
// Options code uses it to accept every known flag (implemented ones take effect, the others are
// logged once as ignored), to reject unknown ones, and to check a value's syntax before anything
// interprets it: ValidateFlagValue mirrors the pflag Set() of the flag's type and returns pflag's
// one-line message (`invalid argument "x" for "--secure-port" flag: strconv.ParseInt: ...`).
//
// Sources: kube-apiserver's option code at v1.32.0 (k8s.io/apiserver server/options, component-base
// logs/metrics/featuregate/verflag, kubernetes cmd/kube-apiserver and pkg/kubeapiserver options).
//
// Thread-safety: the table is immutable static data; all functions are pure.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::cmd {

// How a flag's value is parsed (the pflag Value type behind it).
enum class FlagKind {
  kBool,            // strconv.ParseBool; a bare --flag means true
  kString,
  kInt,             // strconv.ParseInt(s, 0, 64): decimal, 0x.., 0o.., 0b..
  kInt64,
  kUint,            // strconv.ParseUint(s, 0, 64)
  kFloat32,
  kFloat64,
  kDuration,        // Go time.ParseDuration: "5m0s", "1h", "300ms"
  kIP,              // net.ParseIP
  kCIDRList,        // comma list of CIDRs (--service-cluster-ip-range: one, or two for dual stack)
  kPortRange,       // "30000-32767", "30000+2767" or a single port
  kStringSlice,     // comma-separated (CSV), repeatable: later occurrences append
  kStringArray,     // repeatable, no splitting on commas
  kStringToString,  // comma-separated key=value pairs (CSV)
  kMapNoSplit,      // one key=value per occurrence, commas kept in the value (--oidc-required-claim)
  kConfigMap,       // --runtime-config: comma list of key[=value]
  kFeatureGates,    // comma list of [component:]Feature=bool, repeatable
  kQuantity,        // resource.Quantity: "512", "1K", "2Ki", "3M"
  kVModule,         // pattern=N,...
  kLevel,           // -v: a non-negative verbosity level
  kVersion,         // --version: true/false, "raw", or "vX.Y.Z"; bare --version means true
  kNamedCertKey,    // --tls-sni-cert-key: "cert,key" or "cert,key:domain1,domain2", repeatable
};

struct KubeFlag {
  std::string_view name;           // without the leading dashes
  std::string_view shorthand;      // one letter ("v", "h") or empty
  FlagKind kind;
  std::string_view type_name;      // the type word kube-apiserver --help prints ("" for bool flags)
  std::string_view default_value;  // the default written as a value of the flag; "" when empty or zero
  std::string_view section;        // kube-apiserver --help section ("generic", "etcd", ...)
  bool deprecated;                 // accepted with a deprecation warning, hidden from --help
  std::string_view usage;          // one line, our words
};

// All flags, sorted by name.
std::span<const KubeFlag> KubeApiserverFlags();

// Looks a flag up by its long name, with or without leading dashes. Like kube-apiserver (cobra's
// word-separator normalization), '_' in a name matches '-'. nullptr when kube has no such flag.
const KubeFlag* FindKubeFlag(std::string_view name);
// Looks a flag up by its one-letter shorthand ("v", "h").
const KubeFlag* FindKubeFlagByShorthand(char shorthand);

// True when the flag may appear without a value (pflag NoOptDefVal): bool flags and --version. For
// those, "--flag value" does not consume the next argument; only "--flag=value" sets a value.
bool FlagValueIsOptional(const KubeFlag& flag);
// True when repeated occurrences accumulate (slices, arrays, maps, feature gates).
bool FlagIsRepeatable(const KubeFlag& flag);

// The values of a slice flag (pflag's CSV record) and the pairs of a stringToString flag (one '=':
// the whole value is one pair; more: a CSV record of pairs), for values ValidateFlagValue accepted.
std::vector<std::string> StringSliceValues(std::string_view value);
std::vector<std::pair<std::string, std::string>> StringToStringPairs(std::string_view value);

// Checks `value` against the flag's kind. OK, or a 400 Status whose message is the one line pflag
// prints for the same value: invalid argument "<value>" for "<--flag>" flag: <reason>.
Status ValidateFlagValue(const KubeFlag& flag, std::string_view value);

// "--name", or "-v, --v" for a flag with a shorthand: how pflag names a flag in its messages.
std::string FlagDisplayName(const KubeFlag& flag);
std::string_view FlagKindName(FlagKind kind);

}  // namespace capstan::cmd
