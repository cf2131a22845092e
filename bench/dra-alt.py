#!/usr/bin/env python3
# bench/dra-alt.py SEED NODES: a small DRA snapshot for the ILP with
# firstAvailable alternatives (2 H100 or 1 / 2 of any GPU), matchAttribute
# partitions (pcieRoot) and rack-constrained gangs (doc/dra.md, Performance).
import random, sys
random.seed(int(sys.argv[1]) if len(sys.argv)>1 else 7)
N=int(sys.argv[2]) if len(sys.argv)>2 else 16
out=[]
A=out.append
for n in range(N):
    A(f"""apiVersion: v1
kind: Node
metadata:
  name: n{n}
  labels: {{rack: r{n//4}}}
status:
  allocatable: {{cpu: 16, pods: 110}}""")
    devs=[]
    for d in range(4):
        m=random.choice(["H100","A100"])
        devs.append(f"""  - name: gpu-{d}
    attributes:
      model: {{string: {m}}}
      resource.kubernetes.io/pcieRoot: {{string: r{d//2}}}""")
    A(f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: n{n}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: n{n}
  pool: {{name: n{n}, generation: 1, resourceSliceCount: 1}}
  devices:
"""+"\n".join(devs))
A("""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}""")
H="""          selectors:
          - cel: {expression: "device.attributes['gpu.example.com'].model == 'H100'"}"""
A("""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one}
spec:
  spec:
    devices:
      requests:
      - name: g
        exactly: {deviceClassName: gpu}""")
A(f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: pref}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: h
          deviceClassName: gpu
          count: 2
{H}
        - name: any
          deviceClassName: gpu""")
A(f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: prefpair}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: h
          deviceClassName: gpu
          count: 2
{H}
        - name: any
          deviceClassName: gpu
          count: 2
      constraints:
      - matchAttribute: resource.kubernetes.io/pcieRoot""")
for g in range(int(N*0.75)):
    size=random.choice([2,3,4])
    pr=random.choice([10,50,100])
    tpl=random.choice(["pref","prefpair","one"])
    A(f"""apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {{name: g{g}}}
spec:
  schedulingPolicy:
    gang: {{minCount: {size}}}
  priority: {pr}
  schedulingConstraints:
    topology:
    - key: rack""")
    for i in range(size):
        A(f"""apiVersion: v1
kind: Pod
metadata: {{name: g{g}-{i}}}
spec:
  priority: {pr}
  schedulingGroup: {{podGroupName: g{g}}}
  containers:
  - name: c
    resources: {{requests: {{cpu: 1}}}}
  resourceClaims:
  - {{name: x, resourceClaimTemplateName: {tpl}}}""")
print("\n---\n".join(out))
