#include "admission/chain.h"

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;

Status ForbiddenFor(const Attributes& a, const std::string& reason) {
  std::string name = a.name;
  if (name.empty() && a.object) name = std::string(am::GetName(*a.object));
  am::GroupResource gr;
  if (a.resource) gr = a.resource->GroupResource();
  return am::NewForbidden(gr, name, reason);
}

Task<Status> Chain::Admit(Attributes& a) {
  for (auto& p : plugins_) {
    if (!p->Mutating() || !p->Handles(a.operation)) continue;
    Status st = co_await p->Admit(a);
    if (!st.ok()) co_return st;
  }
  co_return Status();
}

Task<Status> Chain::Validate(const Attributes& a) {
  for (auto& p : plugins_) {
    if (!p->Validating() || !p->Handles(a.operation)) continue;
    Status st = co_await p->Validate(a);
    if (!st.ok()) co_return st;
  }
  co_return Status();
}

}  // namespace capstan::admission
