// admission/chain.h: the admission chain: every mutating plugin in order, then every validating plugin
// in order, as kube-apiserver runs them; the first refusal wins. Immutable after construction; thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "admission/plugin.h"

namespace capstan::admission {

class Chain : public registry::AdmissionHook {
 public:
  explicit Chain(std::vector<std::unique_ptr<Plugin>> plugins) : plugins_(std::move(plugins)) {}
  Task<Status> Admit(Attributes& a) override;
  Task<Status> Validate(const Attributes& a) override;
  const std::vector<std::unique_ptr<Plugin>>& plugins() const { return plugins_; }

 private:
  std::vector<std::unique_ptr<Plugin>> plugins_;
};

}  // namespace capstan::admission
