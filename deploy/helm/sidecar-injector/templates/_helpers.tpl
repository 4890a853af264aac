{{/*
Helpers. Only standard Helm and Sprig functions (include, required, fail, fromYaml, toJson,
b64enc, ...), so `helm template` renders this chart as the project's test shim does.
*/}}

{{- define "si.name" -}}
{{- .Values.name | default .Release.Name -}}
{{- end }}

{{- define "si.selectorLabels" -}}
app.kubernetes.io/name: sidecar-injector
app.kubernetes.io/instance: {{ include "si.name" . }}
{{- end }}

{{- define "si.labels" -}}
{{ include "si.selectorLabels" . }}
app.kubernetes.io/component: webhook
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The ConfigMap's documents: the values, else the built-in config copied into files/. */}}
{{- define "si.configText" -}}
{{- .Values.injector.config | default (.Files.Get "files/config.yaml") -}}
{{- end }}

{{- define "si.valuesText" -}}
{{- .Values.injector.values | default (.Files.Get "files/values.yaml") -}}
{{- end }}

{{/* One injection key (inject, namespaceLabel, revisionLabel) as the config names it: (list $ "inject"). */}}
{{- define "si.key" -}}
{{- $root := index . 0 -}}
{{- $cfg := include "si.configText" $root | fromYaml -}}
{{- $keys := get $cfg "injectionKeys" | default dict -}}
{{- $defaults := dict "inject" "sidecar.istio.io/inject" "namespaceLabel" "istio-injection" "revisionLabel" "istio.io/rev" -}}
{{- get $keys (index . 1) | default (get $defaults (index . 1)) -}}
{{- end }}

{{/* Namespaces the webhook never sees, as a JSON list (valid YAML flow sequence). */}}
{{- define "si.excludedNamespaces" -}}
{{- $cfg := include "si.configText" . | fromYaml -}}
{{- $ignored := get $cfg "ignoredNamespaces" | default list -}}
{{- $all := concat (list "kube-system" "kube-public" "kube-node-lease" "local-path-storage" .Release.Namespace) $ignored .Values.excludedNamespaces -}}
{{- toJson (sortAlpha (uniq $all)) -}}
{{- end }}

{{- define "si.reconcile" -}}
{{- if and .Values.caBundleReconcile (not .Values.certManager.enabled) }}true{{ end -}}
{{- end }}

{{- define "si.healing" -}}
{{- if or .Values.reconcile.enabled .Values.reconcile.restart }}true{{ end -}}
{{- end }}

{{- define "si.onError" -}}
{{- .Values.onError | default (ternary "deny" "allow" (eq .Values.failurePolicy "Fail")) -}}
{{- end }}

{{/* Fail early on values the apiserver or the server would refuse. */}}
{{- define "si.validate" -}}
{{- if not (has .Values.failurePolicy (list "Fail" "Ignore")) }}{{ fail "failurePolicy must be Fail or Ignore" }}{{ end -}}
{{- if not (has .Values.reinvocationPolicy (list "IfNeeded" "Never")) }}{{ fail "reinvocationPolicy must be IfNeeded or Never" }}{{ end -}}
{{- if or (lt (int .Values.timeoutSeconds) 1) (gt (int .Values.timeoutSeconds) 30) }}{{ fail "timeoutSeconds must be 1 to 30" }}{{ end -}}
{{- if lt (int .Values.port) 1024 }}{{ fail "port must be 1024 or more: the server runs as non-root" }}{{ end -}}
{{- if lt (int .Values.monitoringPort) 1024 }}{{ fail "monitoringPort must be 1024 or more: the server runs as non-root" }}{{ end -}}
{{- if and .Values.onError (not (has .Values.onError (list "deny" "allow"))) }}{{ fail "onError must be deny or allow" }}{{ end -}}
{{- if and .Values.certManager.enabled .Values.tls.cert }}{{ fail "use either certManager.enabled or tls.cert, not both" }}{{ end -}}
{{- end }}
