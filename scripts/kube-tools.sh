#!/usr/bin/env bash
# Builds the control-plane binaries the envtest suites run (kube-apiserver,
# etcd, and kubectl for the scenarios driven through it) from the Go modules
# pinned in tools/kube/go.mod, into
#   $BIN/k8s/<kubernetes version>-<goos>-<goarch>/{kube-apiserver,etcd,kubectl}
# the layout setup-envtest uses, so the directory can be handed to envtest as
# KUBEBUILDER_ASSETS / BinaryAssetsDirectory. Docs: docs/kube-tools.md.
#
# Idempotent: a binary that exists and reports the pinned version is kept, so
# a warm run takes well under a second. The last line of stdout is the
# absolute assets directory; progress goes to stderr.
#
# Environment: BIN (default bin, relative to the repo root), GO (default go),
# KUBE_TOOLS_NICE (niceness of the build, default 10), KUBE_TOOLS_TICK (seconds
# between progress lines while a binary builds, default 30).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/tools/kube"
GO=${GO:-go}
BIN=${BIN:-bin}
nice_level=${KUBE_TOOLS_NICE:-10}

log() { printf 'kube-tools: %s\n' "$*" >&2; }

# The versions come from go.mod itself so the directory key cannot drift from
# what is actually built.
mod_version() {
	awk -v m="$1" '$1 == m && $2 ~ /^v/ { sub(/^v/, "", $2); print $2; exit }' "$tools/go.mod"
}
kube_version=$(mod_version k8s.io/kubernetes)
etcd_version=$(mod_version go.etcd.io/etcd/server/v3)
if [[ -z $kube_version || -z $etcd_version ]]; then
	log "cannot read k8s.io/kubernetes or go.etcd.io/etcd/server/v3 from $tools/go.mod"
	exit 1
fi
kube_major=$(cut -d. -f1 <<<"$kube_version")
kube_minor=$(cut -d. -f2 <<<"$kube_version")

goos=$("$GO" env GOOS)
goarch=$("$GO" env GOARCH)
case $BIN in /*) bin_abs=$BIN ;; *) bin_abs="$root/$BIN" ;; esac
assets="$bin_abs/k8s/$kube_version-$goos-$goarch"

# has_version BINARY WANT [ARGS...]: true when `BINARY ARGS` (default
# --version) runs and prints WANT as a whole version (so 1.37.2 does not match
# 1.37.20).
has_version() {
	local bin=$1 want=$2 out
	shift 2
	[[ -x $bin ]] || return 1
	out=$("$bin" "${@:---version}" 2>/dev/null) || return 1
	grep -Eq "(^|[^0-9.])v?${want//./\\.}([^0-9.]|$)" <<<"$out"
}

etcd_ok() { has_version "$assets/etcd" "$etcd_version"; }
apiserver_ok() { has_version "$assets/kube-apiserver" "v$kube_version"; }
kubectl_ok() { has_version "$assets/kubectl" "v$kube_version" version --client; }
up_to_date() { etcd_ok && apiserver_ok && kubectl_ok; }

if up_to_date; then
	echo "$assets"
	exit 0
fi

mkdir -p "$assets"
# Two test runs starting at once must not both spend 15 minutes building, nor
# rename half-written files over each other.
exec 9>"$assets/.lock"
if ! flock -n 9; then
	log "another build holds $assets/.lock; waiting for it (it prints its own progress)"
	wait_start=$(date +%s)
	flock 9
	log "the other build finished after $(($(date +%s) - wait_start))s"
fi
if up_to_date; then
	echo "$assets"
	exit 0
fi

# Progress every KUBE_TOOLS_TICK seconds (default 30) while a build runs,
# so minutes of compiling are never silent.
tick=${KUBE_TOOLS_TICK:-30}
elapsed() { local s=$(($(date +%s) - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

# build NAME PACKAGE [LDFLAGS]: builds PACKAGE into $assets/NAME through a
# temporary file, so an interrupted build never leaves a binary that looks
# finished. Static (no cgo) and stripped (-s -w: no debug info, smaller and
# faster to link), like the release binaries.
build() {
	local name=$1 pkg=$2 ldflags=${3:-} start ticker status=0
	start=$(date +%s)
	step=$((step + 1))
	log "building $name ($pkg), step $step of $steps"
	(while sleep "$tick"; do log "still building $name: $(elapsed "$start") elapsed"; done) &
	ticker=$!
	(cd "$tools" && CGO_ENABLED=0 nice -n "$nice_level" "$GO" build -trimpath \
		-ldflags "$ldflags" -o "$assets/.$name.tmp" "$pkg") || status=$?
	kill "$ticker" 2>/dev/null
	wait "$ticker" 2>/dev/null || true
	if ((status != 0)); then
		log "building $name failed after $(elapsed "$start")"
		exit "$status"
	fi
	mv -f "$assets/.$name.tmp" "$assets/$name"
	log "built $name in $(elapsed "$start")"
}

step=0
steps=0
etcd_ok || steps=$((steps + 1))
apiserver_ok || steps=$((steps + 1))
kubectl_ok || steps=$((steps + 1))
all_start=$(date +%s)
log "building $steps control-plane binaries into $assets: on a cold Go cache about 10-12 minutes on 2 idle cores, 40 on 2 busy ones (kube-apiserver is most of it); reused afterwards"

if ! etcd_ok; then
	build etcd go.etcd.io/etcd/server/v3 "-s -w"
fi

# Without these kube-apiserver reports v0.0.0-master+$Format..., which kubectl
# and the compatibility-version code cannot parse; hack/lib/version.sh stamps
# the same variables in both packages.
stamp="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	stamp+=" -X $pkg.gitVersion=v$kube_version -X $pkg.gitMajor=$kube_major -X $pkg.gitMinor=$kube_minor"
done
if ! apiserver_ok; then
	build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$stamp"
fi
if ! kubectl_ok; then
	build kubectl k8s.io/kubernetes/cmd/kubectl "$stamp"
fi

log "control-plane binaries ready in $(elapsed "$all_start")"
if ! up_to_date; then
	log "binaries in $assets do not report kubernetes v$kube_version / etcd $etcd_version"
	exit 1
fi
echo "$assets"
