{{/* Names: <release>-ossie unless the release name already contains the chart name. */}}
{{- define "ossie.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ossie.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ossie.operator.fullname" -}}
{{- printf "%s-operator" (include "ossie.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ossie.server.fullname" -}}
{{- printf "%s-server" (include "ossie.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ossie.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "ossie.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: ossie
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: pass (dict "root" $ "component" "operator"). */}}
{{- define "ossie.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ossie.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "ossie.operator.serviceAccountName" -}}
{{- if .Values.operator.serviceAccount.create -}}
{{- default (include "ossie.operator.fullname" .) .Values.operator.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.operator.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "ossie.server.serviceAccountName" -}}
{{- if .Values.server.serviceAccount.create -}}
{{- default (include "ossie.server.fullname" .) .Values.server.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.server.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "ossie.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
The namespaces watched, as a list (JSON, read back with fromJsonArray): none
when cluster-wide (meaning all), else watchNamespaces, else the release
namespace. RBAC objects and the --namespaces flags both come from here, so
what is watched is exactly what is granted.
*/}}
{{- define "ossie.watchNamespaces" -}}
{{- if .Values.rbac.clusterWide -}}
{{- list | toJson -}}
{{- else if .Values.watchNamespaces -}}
{{- .Values.watchNamespaces | uniq | toJson -}}
{{- else -}}
{{- list .Release.Namespace | toJson -}}
{{- end -}}
{{- end -}}

{{/* Volumes with the engine Secrets, shared by both Deployments. */}}
{{- define "ossie.engine.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if .Values.engine.dsnSecret.name }}
- name: engine-dsn
  secret:
    secretName: {{ .Values.engine.dsnSecret.name }}
    defaultMode: 0440
    items:
      - key: {{ .Values.engine.dsnSecret.key }}
        path: dsn
{{- end }}
{{- if .Values.engine.passwordSecret.name }}
- name: engine-password
  secret:
    secretName: {{ .Values.engine.passwordSecret.name }}
    defaultMode: 0440
    items:
      - key: {{ .Values.engine.passwordSecret.key }}
        path: password
{{- end }}
{{- end -}}

{{- define "ossie.engine.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.engine.dsnSecret.name }}
- name: engine-dsn
  mountPath: /var/run/secrets/ossie/engine
  readOnly: true
{{- end }}
{{- if .Values.engine.passwordSecret.name }}
- name: engine-password
  mountPath: /var/run/secrets/ossie/engine-password
  readOnly: true
{{- end }}
{{- end -}}

{{/* Engine flags understood by both binaries (engine/connect). The operator
compiles with the default catalog/schema; the server uses them as Trino's
session defaults. */}}
{{- define "ossie.engine.args" -}}
- --engine={{ .Values.engine.kind }}
{{- if .Values.engine.dsnSecret.name }}
- --dsn-file=/var/run/secrets/ossie/engine/dsn
{{- end }}
{{- if .Values.engine.passwordSecret.name }}
- --password-file=/var/run/secrets/ossie/engine-password/password
{{- end }}
{{- with .Values.engine.defaultCatalog }}
- --default-catalog={{ . }}
{{- end }}
{{- with .Values.engine.defaultSchema }}
- --default-schema={{ . }}
{{- end }}
{{- end -}}

{{/* Checks of combinations values.schema.json cannot express. */}}
{{- define "ossie.validate" -}}
{{- if and (ne .Values.engine.kind "duckdb") (not .Values.engine.dsnSecret.name) -}}
{{- fail (printf "engine.kind=%s needs engine.dsnSecret.name (a Secret holding the connection string)" .Values.engine.kind) -}}
{{- end -}}
{{- if and .Values.engine.passwordSecret.name (ne .Values.engine.kind "postgres") -}}
{{- fail (printf "engine.passwordSecret applies to engine.kind=postgres only, not %s" .Values.engine.kind) -}}
{{- end -}}
{{- if and (ne .Values.engine.kind "duckdb") .Values.engine.duckdb.path -}}
{{- fail (printf "engine.duckdb.path applies to engine.kind=duckdb only, not %s" .Values.engine.kind) -}}
{{- end -}}
{{- $auth := .Values.server.auth -}}
{{- $authSet := or $auth.tokensSecret.name $auth.proxySecret.name $auth.anonymousRoles -}}
{{- if and .Values.server.enabled $auth.noAuth $authSet -}}
{{- fail "server.auth.noAuth excludes server.auth.tokensSecret, proxySecret and anonymousRoles" -}}
{{- end -}}
{{- if and .Values.server.enabled (not $auth.noAuth) (not $authSet) -}}
{{- fail "server.auth: the server refuses to serve unauthenticated on a pod address; set server.auth.tokensSecret.name (bearer tokens), server.auth.proxySecret.name (trusted proxy), server.auth.anonymousRoles, or server.auth.noAuth=true to serve ungoverned on purpose" -}}
{{- end -}}
{{- if and (eq .Values.engine.kind "duckdb") .Values.engine.dsnSecret.name .Values.engine.duckdb.path -}}
{{- fail "engine.duckdb.path and engine.dsnSecret.name are exclusive for engine.kind=duckdb" -}}
{{- end -}}
{{- if and (gt (int .Values.operator.replicas) 1) (not .Values.operator.leaderElection.enabled) -}}
{{- fail "operator.replicas > 1 needs operator.leaderElection.enabled=true: only one replica may reconcile" -}}
{{- end -}}
{{- $pdb := .Values.server.podDisruptionBudget -}}
{{- if and $pdb.enabled (eq (include "ossie.pdbSet" (list $pdb "minAvailable")) (include "ossie.pdbSet" (list $pdb "maxUnavailable"))) -}}
{{- fail "server.podDisruptionBudget: give exactly one of minAvailable and maxUnavailable (set the other to null)" -}}
{{- end -}}
{{- end -}}

{{/* "true" when the PodDisruptionBudget bound (list $pdb "key") is set (not absent, not null). */}}
{{- define "ossie.pdbSet" -}}
{{- $pdb := index . 0 -}}{{- $key := index . 1 -}}
{{- and (hasKey $pdb $key) (not (kindIs "invalid" (get $pdb $key))) -}}
{{- end -}}
