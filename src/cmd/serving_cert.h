// cmd/serving_cert.h: which certificate the secure port serves, as kube-apiserver chooses it.
//
// kube-apiserver (SecureServingOptions.MaybeDefaultWithSelfSignedCerts) serves --tls-cert-file and
// --tls-private-key-file when either is given; otherwise <--cert-dir>/apiserver.crt and apiserver.key
// when both can be read (one without the other is an error); otherwise it generates a self-signed pair
// there: a one-year RSA-2048 CA "<public address>-ca@<unix time>" and a serving certificate
// "<public address>@<unix time>" it signs, for the public address, the kubernetes Service's IP, the bind
// address (or localhost when binding every interface) and kubernetes, kubernetes.default,
// kubernetes.default.svc; the .crt holds the certificate then its CA, the .key is PKCS#1.
//
// Capstan differs in one place: without --cert-dir and without the TLS flags it serves the certificate of
// its own PKI in the data dir (cmd/pki.h), whose CA admin.kubeconfig trusts. kube's default --cert-dir
// (/var/run/kubernetes) applies only when --cert-dir is given.
//
// Thread-safety: ResolveServingCert is called once at start; it writes files.
#pragma once

#include <optional>
#include <string>

#include "apimachinery/status.h"
#include "cmd/pki.h"

namespace capstan::cmd {

struct ServingCertOptions {
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::optional<std::string> cert_dir;  // set only when --cert-dir was given
  std::string public_address;           // the advertised address (kube's GenericServerRunOptions.AdvertiseAddress)
  std::string bind_address;             // "0.0.0.0" / "::" bind every interface
  std::string service_ip;               // first IP of --service-cluster-ip-range
  TimePoint now;                        // epoch = system clock now
};

struct ServingCertFiles {
  std::string cert_file;
  std::string key_file;
  bool generated = false;  // written by this call
};

// The pair to serve, or nullopt when Capstan's own PKI serves (no TLS flags, no --cert-dir).
StatusOr<std::optional<ServingCertFiles>> ResolveServingCert(const ServingCertOptions& options);

}  // namespace capstan::cmd
