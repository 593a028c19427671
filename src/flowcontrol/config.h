// flowcontrol/config.h: FlowSchemas and PriorityLevelConfigurations (flowcontrol.apiserver.k8s.io/v1)
// as the dispatcher uses them, parsed from their JSON, and the request facts classification needs.
//
// Parsing applies the v1 defaults (nominalConcurrencyShares 30, lendablePercent 0, queues 64,
// handSize 8, queueLengthLimit 50) so an object read before defaulting means the same. The two
// mandatory objects of each kind (exempt, catch-all) are built in: kube's controller imagines them
// when the API has none. Pure values; thread-compatible.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "apimachinery/user_info.h"

namespace capstan::flowcontrol {

inline constexpr const char* kExemptName = "exempt";
inline constexpr const char* kCatchAllName = "catch-all";

// What classification reads from a request (kube's RequestDigest: RequestInfo and user.Info).
struct RequestDigest {
  bool is_resource_request = false;
  std::string verb;
  std::string path;  // non-resource requests
  std::string api_group;
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
  UserInfo user;
};

struct Subject {
  enum class Kind { kUser, kGroup, kServiceAccount, kUnknown } kind = Kind::kUnknown;
  std::string name;
  std::string namespace_;  // service accounts
};

struct ResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  bool cluster_scope = false;
  std::vector<std::string> namespaces;
};

struct NonResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> urls;
};

struct PolicyRule {
  std::vector<Subject> subjects;
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
};

enum class Distinguisher { kNone, kByUser, kByNamespace };

struct FlowSchema {
  std::string name;
  std::string uid;
  std::string priority_level;
  int matching_precedence = 1000;
  Distinguisher distinguisher = Distinguisher::kNone;
  std::vector<PolicyRule> rules;
};

struct PriorityLevel {
  std::string name;
  std::string uid;
  bool exempt = false;
  int nominal_concurrency_shares = 30;
  int lendable_percent = 0;
  std::optional<int> borrowing_limit_percent;  // unset: may borrow up to the server's limit
  bool queuing = false;                        // limitResponse Queue (false: Reject)
  int queues = 64;
  int hand_size = 8;
  int queue_length_limit = 50;
};

// A 400 Status naming what is wrong when the object cannot be used.
StatusOr<FlowSchema> ParseFlowSchema(const boost::json::value& obj);
StatusOr<PriorityLevel> ParsePriorityLevel(const boost::json::value& obj);

// kube's bootstrap mandatory objects (what is used while the API has none of that name).
FlowSchema MandatoryExemptFlowSchema();
FlowSchema MandatoryCatchAllFlowSchema();
PriorityLevel MandatoryExemptPriorityLevel();
PriorityLevel MandatoryCatchAllPriorityLevel();

// Matching order: matchingPrecedence ascending, then name.
bool MatchesBefore(const FlowSchema& a, const FlowSchema& b);

}  // namespace capstan::flowcontrol
