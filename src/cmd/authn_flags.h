// cmd/authn_flags.h: kube-apiserver's authentication flags (and Capstan's --basic-auth-file) → the
// authn::AuthenticationConfig in Options. options.cpp asks here for every flag its own table does not
// set. Values were already checked against the flag's kind (cmd/kube_flags.h). Pure functions.
#pragma once

#include <optional>
#include <string>

#include "apimachinery/status.h"
#include "auth/authn/config.h"

namespace capstan::cmd {

// nullopt: not an authentication flag. Otherwise the outcome of setting it (an error names the flag).
std::optional<Status> SetAuthenticationFlag(authn::AuthenticationConfig& config, const std::string& name,
                                            const std::string& value);

}  // namespace capstan::cmd
