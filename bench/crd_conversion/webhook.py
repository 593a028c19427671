# A CRD conversion webhook for the benchmark (run.sh): spec.name (v1) <-> spec.title (v2) over HTTPS
# with TCP_NODELAY; prints its port. Python: its own throughput caps the multi-connection figure.
import json, ssl, sys
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
import socket
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        review = json.loads(self.rfile.read(n))
        req = review["request"]
        desired = req["desiredAPIVersion"]
        to_v2 = desired.endswith("/v2")
        out = []
        for o in req["objects"]:
            s = o.get("spec", {})
            a, b = ("name", "title") if to_v2 else ("title", "name")
            if a in s: s[b] = s.pop(a)
            o["apiVersion"] = desired
            out.append(o)
        body = json.dumps({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                           "response": {"uid": req["uid"], "convertedObjects": out, "result": {"status": "Success"}}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain("hook.crt", "hook.key")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print(srv.server_address[1], flush=True)
srv.serve_forever()
