// controllers/selection.h: the --controllers flag with kube-controller-manager's syntax and names.
//
// The list is read in order: `name` enables a controller, `-name` disables it, `*` enables every
// controller that is not disabled by default; the first entry naming a controller decides. Names are
// kube-controller-manager's canonical names (namespace-controller, garbage-collector-controller, ...)
// or their old aliases (namespace, garbagecollector, ...). Every kube-controller-manager controller
// name is accepted; Capstan runs the ones it implements (ImplementedControllers) and ignores the
// rest. As in kube, token-cleaner-controller is disabled by default, so `*` leaves it off; Capstan's
// default for the flag is "*,token-cleaner-controller", which runs every loop it has.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::controllers {

inline constexpr std::string_view kNamespaceController = "namespace-controller";
inline constexpr std::string_view kGarbageCollectorController = "garbage-collector-controller";
inline constexpr std::string_view kServiceAccountController = "serviceaccount-controller";
inline constexpr std::string_view kRootCACertificatePublisherController = "root-ca-certificate-publisher-controller";
inline constexpr std::string_view kTokenCleanerController = "token-cleaner-controller";
inline constexpr std::string_view kServiceAccountTokenController = "serviceaccount-token-controller";

// Capstan's default for --controllers.
std::vector<std::string> DefaultControllerSelection();

// The controllers Capstan implements, by canonical name.
const std::vector<std::string_view>& ImplementedControllers();

// The canonical name of a controller name or alias; empty when kube has no such controller.
std::string CanonicalControllerName(std::string_view name);

// Checks every entry ("*", "name", "-name"); the error names the first unknown controller as kube
// does: "\"foo\" is not in the list of known controllers".
Status ValidateControllerSelection(const std::vector<std::string>& selection);

// Whether `canonical_name` runs under `selection` (kube's IsControllerEnabled).
bool IsControllerEnabled(std::string_view canonical_name, const std::vector<std::string>& selection);

}  // namespace capstan::controllers
