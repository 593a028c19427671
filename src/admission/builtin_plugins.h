// admission/builtin_plugins.h: the admission plugins by name, and the chain --enable-admission-plugins /
// --disable-admission-plugins select, on top of kube-apiserver's default-enabled set, in kube's order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "admission/chain.h"
#include "admission/namespace_lifecycle.h"

namespace capstan::admission {

struct PluginDeps {
  NamespaceLookup namespace_lookup;
};

struct ChainBuild {
  std::unique_ptr<Chain> chain;
  std::vector<std::string> not_implemented;  // enabled plugins Capstan does not have yet
};

// 400-style error for a plugin name kube does not know.
StatusOr<ChainBuild> BuildChain(const std::vector<std::string>& enable, const std::vector<std::string>& disable,
                                const PluginDeps& deps);

// kube-apiserver 1.32's plugins in the order it runs them, and which are on by default.
const std::vector<std::string>& AllPluginsInOrder();
const std::vector<std::string>& DefaultOnPlugins();

}  // namespace capstan::admission
