# The Kubernetes version the control plane and scheduler-plugins' scheduler are built at, and the
# link flags that stamp it: without them /version (and a scheduler's user agent) says
# v0.0.0-master (the values are those upstream's hack/lib/version.sh sets).
VERSION := v1.34.4
LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=$(VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 \
	-X k8s.io/component-base/version.gitMinor=34 \
	-X k8s.io/component-base/version.gitTreeState=clean \
	-X k8s.io/client-go/pkg/version.gitVersion=$(VERSION) \
	-X k8s.io/client-go/pkg/version.gitMajor=1 \
	-X k8s.io/client-go/pkg/version.gitMinor=34 \
	-X k8s.io/client-go/pkg/version.gitTreeState=clean
