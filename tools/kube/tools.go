//go:build tools

// Package tools records the main packages scripts/kube-tools.sh builds, so
// that go.mod keeps every module they need.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
