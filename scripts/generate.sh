#!/usr/bin/env bash
# Regenerates the code and manifests derived from api/v1alpha1 with
# controller-gen (pinned below): zz_generated.deepcopy.go next to the types
# and the SemanticModel CRD in config/crd/bases. api/v1alpha1/crd_test.go
# runs the same command into a temporary directory and fails when the
# checked-in files differ, so run this after every change to the types.
#
# Usage: scripts/generate.sh [CRD output dir] (default config/crd/bases).
# Environment: GO (default go).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
GO=${GO:-go}
CONTROLLER_GEN=${CONTROLLER_GEN:-sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0}
crd_dir=${1:-config/crd/bases}

"$GO" run "$CONTROLLER_GEN" \
	object \
	crd \
	paths=./api/... \
	output:crd:artifacts:config="$crd_dir"

# The Helm chart ships the same CRD (charts/ossie/crds; test/chart fails
# when it differs). Only for the default output, and not in a copy of the
# module without the chart (api/v1alpha1/crd_test.go runs one).
if [[ $# -eq 0 && -d charts/ossie/crds ]]; then
	cp config/crd/bases/*.yaml charts/ossie/crds/
fi
