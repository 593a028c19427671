// tests/storage/etcd3/etcd_test_cluster.h: throwaway etcd clusters for tests and benchmarks: N members
// of the machine's etcd (/usr/bin/etcd, CAPSTAN_ETCD overrides) on free loopback ports, data under a
// directory the caller owns, optionally serving clients over TLS with client certificates. Members can
// be killed and restarted to test failover. Not thread-safe: one test thread drives it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace capstan::testing {

struct EtcdTlsFiles {
  std::string ca_file;    // CA that signed the server and client certificates
  std::string cert_file;  // server certificate (SAN 127.0.0.1, localhost)
  std::string key_file;
};

struct EtcdClusterOptions {
  int members = 1;
  std::string dir;  // required: the cluster's files go here (member data, logs)
  // Clients reach the members over TLS and must present a certificate signed by tls.ca_file.
  bool tls = false;
  EtcdTlsFiles tls_files;
  std::vector<std::string> extra_flags;  // e.g. --quota-backend-bytes=...
  std::vector<int> client_ports;         // fixed client ports (default: free ones)
  std::chrono::seconds start_timeout{30};
};

class EtcdCluster {
 public:
  // Starts the members and waits until each answers its /health; nullptr and *error otherwise.
  static std::unique_ptr<EtcdCluster> Start(EtcdClusterOptions options, std::string* error);
  ~EtcdCluster();  // SIGKILLs every member
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  std::string ClientUrl(int i) const { return members_[i].client_url; }
  std::vector<std::string> ClientUrls() const;
  // "url1,url2,..." as --etcd-servers takes it.
  std::string Endpoints() const;

  // Sends `sig` to member i and waits for it to exit.
  void Kill(int i, int sig = 9);
  // Starts member i again on the same ports and data; waits until it is healthy.
  bool Restart(int i, std::string* error);
  bool Running(int i) const { return members_[i].pid > 0; }
  pid_t Pid(int i) const { return members_[i].pid; }
  // SIGSTOP / SIGCONT (a member that hangs instead of going away).
  void Pause(int i);
  void Resume(int i);

  // Runs etcdctl (v3 API) against the live members with these arguments; returns stdout, or "" and
  // sets *ok=false when it fails.
  std::string Etcdctl(const std::vector<std::string>& args, bool* ok = nullptr) const;
  std::string Log(int i) const;

 private:
  struct Member {
    std::string name;
    std::string client_url;
    std::string peer_url;
    std::string data_dir;
    std::string log_file;
    pid_t pid = -1;
  };
  EtcdCluster() = default;
  bool Spawn(Member& m, bool existing, std::string* error);
  bool WaitHealthy(const Member& m, std::chrono::seconds timeout, std::string* error);
  std::vector<std::string> Args(const Member& m, bool existing) const;

  EtcdClusterOptions options_;
  std::string etcd_;
  std::string etcdctl_;
  std::string initial_cluster_;
  std::vector<Member> members_;
};

// A free TCP port on 127.0.0.1 (bound and released; a race with other processes is possible but rare).
int FreeLoopbackPort();

// Writes a CA and a server and a client certificate for 127.0.0.1/localhost into dir (ca.crt, server.crt,
// server.key, client.crt, client.key), using the openssl tool. Returns false and *error on failure.
bool MakeEtcdTestPki(const std::string& dir, EtcdTlsFiles* server, std::string* client_cert,
                     std::string* client_key, std::string* error);

}  // namespace capstan::testing
