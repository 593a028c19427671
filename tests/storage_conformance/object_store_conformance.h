// tests/storage_conformance/object_store_conformance.h: the conformance suite of storage::ObjectStore
// (kube's storage.Interface): every list, get and watch case, with the results and errors kube gives.
//
// It runs against BackendObjectStore over the embedded backend and against the Cacher in front of it,
// so the cached and uncached paths give the same answers. An implementation instantiates it with a
// factory:
//
//   INSTANTIATE_TEST_SUITE_P(Cacher, ObjectStoreConformance, ::testing::Values(CacherFactory()),
//                            ObjectStoreFactoryName);
//
// The store under test is made on first use, so a test can write history (and compact it) first.
// Writes go through the store under test. Where kube's own cached and uncached texts differ (the 410
// of a watch from a compacted revision), the suite checks the code and reason only.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "storage/backend_object_store.h"
#include "storage/object_store.h"

namespace capstan::storage::conformance {

struct ObjectStoreFactory {
  std::string name;
  // The store under test over `backend`, decorating `base` (the uncached store over the same backend).
  std::function<std::unique_ptr<ObjectStore>(Backend& backend, BackendObjectStore& base)> make;
};

std::string ObjectStoreFactoryName(const ::testing::TestParamInfo<ObjectStoreFactory>& info);

class ObjectStoreConformance : public ::testing::TestWithParam<ObjectStoreFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;

  ObjectStore& store();
  BackendObjectStore& base() { return *base_; }
  Backend& backend() { return *backend_; }

  static std::string Key(const std::string& ns, const std::string& name) {
    return "/registry/configmaps/" + ns + "/" + name;
  }
  Object Create(const std::string& ns, const std::string& name, const std::string& tier = "a",
                const std::string& value = "v");
  Object Update(const std::string& ns, const std::string& name, const std::string& value,
                const std::string& tier = "");
  Object Delete(const std::string& ns, const std::string& name);
  int64_t Revision();

  StatusOr<ListResult> List(const std::string& key, const ListOptions& opts);
  // ListOptions selecting by label tier (and optionally field metadata.name), with the matching
  // Selection, as the registry builds them.
  static ListOptions Selecting(const std::string& label_selector, const std::string& field_selector = "");
  static WatchOptions WatchSelecting(const std::string& label_selector, const std::string& field_selector = "");

  // The events of a watch until `n` arrived or `timeout` passed, as "TYPE name@rv" (errors as
  // "ERROR <code> <reason>").
  std::vector<std::string> Events(ObjectWatch& w, size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(15));
  // "name@rv" of each item, in order.
  static std::vector<std::string> Names(const ListResult& r);
  static std::string NameRv(const Object& o);

 private:
  std::filesystem::path dir_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<BackendObjectStore> base_;
  std::unique_ptr<ObjectStore> store_;
};

}  // namespace capstan::storage::conformance
