{{/*
The RBAC rules, in one place. docs/install.md lists them and
test/chart asserts the rendered objects grant nothing beyond them.
*/}}

{{/* Operator, in every watched namespace (or cluster-wide). */}}
{{- define "ossie.operator.rules" -}}
# Read models; update/patch for the finalizer and tracking annotation of
# governed views (never the spec).
- apiGroups: ["ossie.dev"]
  resources: ["semanticmodels"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["ossie.dev"]
  resources: ["semanticmodels/status"]
  verbs: ["get", "update", "patch"]
# Owner references with blockOwnerDeletion need update on the owner's
# finalizers where OwnerReferencesPermissionEnforcement is on.
- apiGroups: ["ossie.dev"]
  resources: ["semanticmodels/finalizers"]
  verbs: ["update"]
# Artifact ConfigMaps. RBAC cannot select by owner: the operator itself only
# writes and deletes ConfigMaps it controls (delete: its finalizer removes a
# deleted model's ConfigMap, where no garbage collector runs).
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}

{{/* Operator, release namespace only: leader election. */}}
{{- define "ossie.operator.leaderElectionRules" -}}
# create cannot be limited by name (the object does not exist yet).
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ .Values.operator.leaderElection.leaseName | quote }}]
  verbs: ["get", "update", "patch"]
# The leader election library records "became leader" as a core/v1 Event.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}

{{/* Server, in every watched namespace (or cluster-wide). */}}
{{- define "ossie.server.rules" -}}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch"]
{{- end -}}
