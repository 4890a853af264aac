{{/*
Helpers. Only standard Helm and Sprig functions (include, required, fail, fromYaml, toJson,
b64enc, ...), so any Helm 3 renders this chart the same way.
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

{{/*
URL mode (webhookUrl set, like manifests --webhook-url): the server runs outside the cluster, so
the webhook configuration is the only object; every other template checks si.inCluster.
*/}}
{{- define "si.inCluster" -}}
{{- if not .Values.webhookUrl }}true{{ end -}}
{{- end }}

{{/* The URL the apiserver calls: the base URL without trailing slashes, then /inject. */}}
{{- define "si.webhookUrl" -}}
{{- regexReplaceAll "/+$" .Values.webhookUrl "" }}/inject
{{- end }}

{{/* Nothing in the cluster reconciles the caBundle in URL mode, and cainjector does it with cert-manager. */}}
{{- define "si.reconcile" -}}
{{- if and .Values.caBundleReconcile (not .Values.certManager.enabled) (include "si.inCluster" .) }}true{{ end -}}
{{- end }}

{{/*
Where the serving certificate comes from, as manifests' certMode: url (outside the cluster),
cert-manager, chart (tls.cert: the chart writes NAME-tls), existing (tls.existingSecret, or
NAME-tls when only tls.caCert is set) or provision (nothing given: the server makes its own).
*/}}
{{- define "si.certMode" -}}
{{- if not (include "si.inCluster" .) }}url
{{- else if .Values.certManager.enabled }}cert-manager
{{- else if .Values.tls.cert }}chart
{{- else if or .Values.tls.existingSecret .Values.tls.caCert }}existing
{{- else }}provision
{{- end }}
{{- end }}

{{/* The Secret serve reads through the API (serve --tls-secret); empty when it is mounted. */}}
{{- define "si.servedSecret" -}}
{{- $mode := include "si.certMode" . -}}
{{- if eq $mode "provision" }}{{ include "si.name" . }}-certs
{{- else if eq $mode "existing" }}{{ .Values.tls.existingSecret | default (printf "%s-tls" (include "si.name" .)) }}
{{- end }}
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
{{- if and .Values.tls.existingSecret (or .Values.tls.cert .Values.certManager.enabled .Values.webhookUrl) }}{{ fail "tls.existingSecret names your own certificate: it does not go with tls.cert, certManager.enabled or webhookUrl" }}{{ end -}}
{{- $mode := include "si.certMode" . -}}
{{- if and (or .Values.tls.caValidity .Values.tls.certValidity) (ne $mode "provision") }}{{ fail "tls.caValidity and tls.certValidity only go with self-provisioned certificates (no tls.cert, tls.caCert, tls.existingSecret or certManager)" }}{{ end -}}
{{- range $k, $v := dict "tls.caValidity" .Values.tls.caValidity "tls.certValidity" .Values.tls.certValidity }}
{{- if and $v (not (regexMatch "^[0-9]+[dhms]$" (toString $v))) }}{{ fail (printf "%s %q is not a lifetime such as 3650d, 90d, 12h or 30m" $k (toString $v)) }}{{ end -}}
{{- end }}
{{- if and (eq $mode "provision") (not .Values.caBundleReconcile) }}{{ fail "self-provisioned certificates need the caBundle reconciler (the server puts the CA it makes into the caBundle): set caBundleReconcile=true, or bring a certificate (tls.cert, tls.existingSecret, certManager.enabled)" }}{{ end -}}
{{- /* Connected to a cluster (helm install/upgrade; lookup finds nothing in helm template): your Secret must be there already. */}}
{{- if and (eq $mode "existing") (lookup "v1" "Namespace" "" "kube-system") (not (lookup "v1" "Secret" .Release.Namespace (include "si.servedSecret" .))) }}
{{- fail (printf "Secret %s/%s (tls.existingSecret) does not exist: create it with tls.crt, tls.key and ca.crt for %s.%s.svc first, or unset tls.existingSecret and tls.caCert to let the injector make its own certificate" .Release.Namespace (include "si.servedSecret" .) (include "si.name" .) .Release.Namespace) }}
{{- end }}
{{- with .Values.webhookUrl }}
{{- /* The apiserver's rules for clientConfig.url, checked as manifests --webhook-url checks them. */}}
{{- $u := urlParse . -}}
{{- if ne $u.scheme "https" }}{{ fail (printf "webhookUrl %q must be an https URL, e.g. https://192.0.2.10:9443 (the apiserver calls webhooks over TLS only)" .) }}{{ end -}}
{{- if not $u.hostname }}{{ fail (printf "webhookUrl %q has no host" .) }}{{ end -}}
{{- if $u.userinfo }}{{ fail (printf "webhookUrl %q must not carry a user or password" .) }}{{ end -}}
{{- if or (contains "?" .) (contains "#" .) }}{{ fail (printf "webhookUrl %q must not have a query or fragment" .) }}{{ end -}}
{{- end }}
{{- if and .Values.webhookUrl (or .Values.reconcile.enabled .Values.reconcile.restart) }}{{ fail "webhookUrl and reconcile do not go together: the reconciler runs in the injector Deployment, which URL mode does not install" }}{{ end -}}
{{- if and .Values.webhookUrl (or .Values.monitoring.prometheusRule.enabled .Values.monitoring.serviceMonitor.enabled) }}{{ fail "webhookUrl and monitoring.prometheusRule/serviceMonitor do not go together: URL mode installs only the webhook configuration; scrape your server yourself and load deploy/monitoring/sidecar-injector.rules.yaml" }}{{ end -}}
{{- if and .Values.webhookUrl .Values.certManager.enabled }}{{ fail "webhookUrl and certManager.enabled do not go together: cert-manager cannot issue a certificate for a server outside the cluster" }}{{ end -}}
{{- if and .Values.webhookUrl (or .Values.tls.cert .Values.tls.key) }}{{ fail "with webhookUrl the server runs outside the cluster: set only tls.caCert; tls.cert and tls.key stay on that machine (serve --tls-dir), and Helm would store them in the release" }}{{ end -}}
{{- end }}
