// admission/always_plugins.h: the small off-by-default plugins: AlwaysPullImages (every container of a
// pod created or updated pulls its image: imagePullPolicy Always) and AlwaysDeny (every write is
// refused: "admission control is denying all modifications"). Stateless; thread-safe.
#pragma once

#include "admission/plugin.h"

namespace capstan::admission {

class AlwaysPullImages : public Plugin {
 public:
  std::string Name() const override { return "AlwaysPullImages"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
};

class AlwaysDeny : public Plugin {
 public:
  std::string Name() const override { return "AlwaysDeny"; }
  bool Handles(const std::string& op) const override { return !op.empty(); }
  bool Mutating() const override { return true; }
  bool Validating() const override { return true; }
  Task<Status> Admit(Attributes& a) override { co_return ForbiddenFor(a, "admission control is denying all modifications"); }
  Task<Status> Validate(const Attributes& a) override {
    co_return ForbiddenFor(a, "admission control is denying all modifications");
  }
};

}  // namespace capstan::admission
