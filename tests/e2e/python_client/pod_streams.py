"""The `kubernetes` Python client's pod streams through Capstan to a kubelet: pods/log and pods/exec
(the client speaks WebSocket, v4.channel.k8s.io; Capstan talks SPDY to the kubelet).

Usage: pod_streams.py KUBECONFIG NAMESPACE POD CONTAINER. Prints "ok <check>" per check; exits 1 at
the first failure."""
import sys

from kubernetes import client, config
from kubernetes.stream import stream


def check(cond, what, detail=""):
    if not cond:
        print("FAIL", what, repr(detail))
        sys.exit(1)
    print("ok", what)


config.load_kube_config(config_file=sys.argv[1])
ns, pod, container = sys.argv[2], sys.argv[3], sys.argv[4]
core = client.CoreV1Api()

log = core.read_namespaced_pod_log(pod, ns, container=container)
check(log == "log of %s ()\n" % container, "pods/log", log)
log = core.read_namespaced_pod_log(pod, ns, container=container, tail_lines=2)
check(log == "log of %s (tailLines=2)\n" % container, "pods/log options", log)

out = stream(core.connect_get_namespaced_pod_exec, pod, ns, container=container, command=["echo", "hello", "py"],
             stderr=True, stdin=False, stdout=True, tty=False)
check(out == "hello py\n", "exec stdout", out)

resp = stream(core.connect_get_namespaced_pod_exec, pod, ns, container=container, command=["cat"],
              stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
resp.write_stdin("ping\n")
echoed = ""
for _ in range(50):
    resp.update(timeout=0.2)
    echoed += resp.read_stdout() if resp.peek_stdout() else ""
    if "ping" in echoed:
        break
resp.close()
check(echoed == "ping\n", "exec stdin to stdout", echoed)

resp = stream(core.connect_get_namespaced_pod_exec, pod, ns, container=container, command=["exit", "3"],
              stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
resp.run_forever(timeout=10)
check(resp.returncode == 3, "exec exit code", resp.returncode)
print("done")
