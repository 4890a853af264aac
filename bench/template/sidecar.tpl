{{- /*
  Benchmark template: a mesh proxy sidecar in the style of Istio's injection template, written
  for this benchmark. It uses only Go built-ins and Sprig so that Go's own text/template (the
  gotemplate-ref oracle) can render the same text on the same JSON data. It is also a
  conformance case (testdata/template/cases/whole-templates.yaml): after editing it, run
  `npx tsx scripts/gen-template-goldens.ts whole-templates`.
*/ -}}
{{- define "proxy.resources" -}}
{{- $a := .pod.metadata.annotations | default dict -}}
{{- if or (hasKey $a "proxy.mesh.example.com/cpu") (hasKey $a "proxy.mesh.example.com/memory") (hasKey $a "proxy.mesh.example.com/cpuLimit") (hasKey $a "proxy.mesh.example.com/memoryLimit") }}
  {{- if or (hasKey $a "proxy.mesh.example.com/cpu") (hasKey $a "proxy.mesh.example.com/memory") }}
      requests:
        {{- with index $a "proxy.mesh.example.com/cpu" }}
        cpu: {{ . | quote }}
        {{- end }}
        {{- with index $a "proxy.mesh.example.com/memory" }}
        memory: {{ . | quote }}
        {{- end }}
  {{- end }}
  {{- if or (hasKey $a "proxy.mesh.example.com/cpuLimit") (hasKey $a "proxy.mesh.example.com/memoryLimit") }}
      limits:
        {{- with index $a "proxy.mesh.example.com/cpuLimit" }}
        cpu: {{ . | quote }}
        {{- end }}
        {{- with index $a "proxy.mesh.example.com/memoryLimit" }}
        memory: {{ . | quote }}
        {{- end }}
  {{- end }}
{{- else }}
  {{- with .values.global.proxy.resources }}
      {{- with .requests }}
      requests:
        {{- range $k, $v := . }}
        {{ $k }}: {{ $v | quote }}
        {{- end }}
      {{- end }}
      {{- with .limits }}
      limits:
        {{- range $k, $v := . }}
        {{ $k }}: {{ $v | quote }}
        {{- end }}
      {{- end }}
  {{- end }}
{{- end }}
{{- end }}
{{- define "proxy.image" -}}
{{- $g := .values.global -}}
{{- $img := index (.pod.metadata.annotations | default dict) "proxy.mesh.example.com/proxyImage" -}}
{{- if $img -}}
{{ $img }}
{{- else if contains "/" $g.proxy.image -}}
{{ $g.proxy.image }}
{{- else -}}
{{ $g.hub }}/{{ $g.proxy.image | default "proxyv2" }}:{{ $g.tag | toString }}{{ with $g.variant }}-{{ . }}{{ end }}
{{- end -}}
{{- end }}
{{- define "proxy.probe" -}}
{{- $c := index . 0 -}}{{- $p := index . 1 -}}{{- $kind := index . 2 -}}
{{- with $p.httpGet }}
          "/app-health/{{ $c.name }}/{{ $kind }}": {"httpGet": {"path": {{ .path | default "/" | quote }}, "port": {{ .port }}{{ with .scheme }}, "scheme": {{ . | quote }}{{ end }}}{{ with $p.timeoutSeconds }}, "timeoutSeconds": {{ . }}{{ end }}}
{{- else }}{{ with $p.tcpSocket }}
          "/app-health/{{ $c.name }}/{{ $kind }}": {"tcpSocket": {"port": {{ .port }}}{{ with $p.timeoutSeconds }}, "timeoutSeconds": {{ . }}{{ end }}}
{{- else }}{{ with $p.grpc }}
          "/app-health/{{ $c.name }}/{{ $kind }}": {"grpc": {"port": {{ .port }}, "service": {{ .service | default "" | quote }}}}
{{- end }}{{ end }}{{ end }}
{{- end }}
{{- define "proxy.tracing" -}}
{{- with .tracing }}
    - name: MESH_META_TRACING_SAMPLING
      value: {{ .sampling | default 1.0 | toString | quote }}
    {{- with .zipkin }}
    - name: MESH_META_TRACING_ZIPKIN
      value: {{ .address | default "zipkin.mesh-system:9411" | quote }}
    {{- end }}
    {{- with .custom_tags }}
    - name: MESH_META_TRACING_TAGS
      value: {{ keys . | sortAlpha | join "," | quote }}
    {{- range $tag, $src := . }}
    {{- with $src.literal }}
    - name: MESH_META_TRACING_TAG_{{ $tag | upper | replace "-" "_" }}
      value: {{ .value | quote }}
    {{- end }}
    {{- with $src.environment }}
    - name: MESH_META_TRACING_TAG_{{ $tag | upper | replace "-" "_" }}
      value: {{ printf "env:%s:%s" .name (.defaultValue | default "") | quote }}
    {{- end }}
    {{- end }}
    {{- end }}
{{- end }}
{{- end }}
{{- $meta := .pod.metadata -}}
{{- $ann := $meta.annotations | default dict -}}
{{- $labels := $meta.labels | default dict -}}
{{- $g := .values.global -}}
{{- $proxy := $g.proxy -}}
{{- $pc := .proxyConfig -}}
{{- $interception := index $ann "proxy.mesh.example.com/interceptionMode" | default $pc.interceptionMode | default "REDIRECT" -}}
{{- $tproxy := eq $interception "TPROXY" -}}
{{- $native := ne (index $ann "proxy.mesh.example.com/nativeSidecar" | default (toString .values.nativeSidecars)) "false" -}}
{{- $statusPort := index $ann "status.mesh.example.com/port" | default (toString $proxy.statusPort) -}}
{{- $appContainers := list -}}
{{- $appPorts := list -}}
{{- range $c := .pod.spec.containers -}}
  {{- if ne $c.name "mesh-proxy" -}}
    {{- $appContainers = append $appContainers $c.name -}}
    {{- range $c.ports -}}
      {{- $appPorts = append $appPorts (toString .containerPort) -}}
    {{- end -}}
  {{- end -}}
{{- end -}}
{{- $holdApp := and (or $pc.holdApplicationUntilProxyStarts $proxy.holdApplicationUntilProxyStarts) (not $native) -}}
{{- $noInit := and (eq $interception "NONE") (not $native) -}}
metadata:
  labels:
    security.mesh.example.com/tlsMode: {{ index $labels "security.mesh.example.com/tlsMode" | default "mesh" | quote }}
    service.mesh.example.com/canonical-name: {{ index $labels "service.mesh.example.com/canonical-name" | default (index $labels "app.kubernetes.io/name") | default (index $labels "app") | default .deployment.name | trunc 63 | trimAll "-_." | quote }}
    service.mesh.example.com/canonical-revision: {{ index $labels "service.mesh.example.com/canonical-revision" | default (index $labels "app.kubernetes.io/version") | default (index $labels "version") | default "latest" | quote }}
    {{- if eq (index $pc.proxyMetadata "MESH_META_ENABLE_TUNNEL" | default "false") "true" }}
    networking.mesh.example.com/tunnel: {{ index $labels "networking.mesh.example.com/tunnel" | default "http" | quote }}
    {{- end }}
  annotations:
    mesh.example.com/rev: {{ .revision | default "default" | quote }}
    {{- if $appContainers }}
    {{- if not (hasKey $ann "kubectl.kubernetes.io/default-logs-container") }}
    kubectl.kubernetes.io/default-logs-container: {{ first $appContainers | quote }}
    {{- end }}
    {{- if not (hasKey $ann "kubectl.kubernetes.io/default-container") }}
    kubectl.kubernetes.io/default-container: {{ first $appContainers | quote }}
    {{- end }}
    {{- end }}
    {{- if .values.cni.enabled }}
    proxy.mesh.example.com/interceptionMode: {{ $interception | quote }}
    traffic.mesh.example.com/includeOutboundIPRanges: {{ index $ann "traffic.mesh.example.com/includeOutboundIPRanges" | default $proxy.includeIPRanges | quote }}
    traffic.mesh.example.com/excludeOutboundIPRanges: {{ index $ann "traffic.mesh.example.com/excludeOutboundIPRanges" | default $proxy.excludeIPRanges | quote }}
    traffic.mesh.example.com/includeInboundPorts: {{ index $ann "traffic.mesh.example.com/includeInboundPorts" | default (join "," $appPorts) | default "*" | quote }}
    traffic.mesh.example.com/excludeInboundPorts: {{ list $statusPort (index $ann "traffic.mesh.example.com/excludeInboundPorts" | default $proxy.excludeInboundPorts) | compact | join "," | quote }}
    {{- with index $ann "traffic.mesh.example.com/excludeOutboundPorts" | default $proxy.excludeOutboundPorts }}
    traffic.mesh.example.com/excludeOutboundPorts: {{ . | quote }}
    {{- end }}
    {{- end }}
    {{- if and (.values.telemetry.prometheusMerge) (ne (index $ann "prometheus.mesh.example.com/merge-metrics" | default "true") "false") }}
    prometheus.io/scrape: "true"
    prometheus.io/port: "15020"
    prometheus.io/path: "/stats/prometheus"
    {{- end }}
spec:
  {{- if $noInit }}
  initContainers: []
  {{- else }}
  initContainers:
  {{- if not .values.cni.enabled }}
  - name: mesh-init
    image: {{ template "proxy.image" . }}
    imagePullPolicy: {{ $g.imagePullPolicy | default "IfNotPresent" }}
    args:
    - mesh-iptables
    - "-p"
    - {{ .meshConfig.proxyListenPort | default 15001 | quote }}
    - "-z"
    - {{ .meshConfig.proxyInboundListenPort | default 15006 | quote }}
    - "-u"
    - {{ $proxy.uid | default 1337 | quote }}
    - "-m"
    - {{ $interception | quote }}
    - "-i"
    - {{ index $ann "traffic.mesh.example.com/includeOutboundIPRanges" | default $proxy.includeIPRanges | default "*" | quote }}
    - "-x"
    - {{ index $ann "traffic.mesh.example.com/excludeOutboundIPRanges" | default $proxy.excludeIPRanges | default "" | quote }}
    - "-b"
    - {{ index $ann "traffic.mesh.example.com/includeInboundPorts" | default (join "," $appPorts) | default "*" | quote }}
    - "-d"
    - {{ list $statusPort (index $ann "traffic.mesh.example.com/excludeInboundPorts" | default $proxy.excludeInboundPorts) | compact | join "," | quote }}
    {{- with index $ann "traffic.mesh.example.com/excludeOutboundPorts" | default $proxy.excludeOutboundPorts }}
    - "-o"
    - {{ . | quote }}
    {{- end }}
    {{- with index $ann "traffic.mesh.example.com/excludeInterfaces" }}
    - "-c"
    - {{ . | quote }}
    {{- end }}
    {{- if $g.logAsJson }}
    - "--log_as_json"
    {{- end }}
    {{- if .values.initContainer.dnsCapture }}
    - "--redirect-dns"
    {{- end }}
    env:
    {{- range $k, $v := $pc.proxyMetadata }}
    {{- if hasPrefix "MESH_INIT_" $k }}
    - name: {{ $k }}
      value: {{ $v | quote }}
    {{- end }}
    {{- end }}
    - name: MESH_INIT_DRY_RUN
      value: {{ .values.initContainer.dryRun | default false | toString | quote }}
    resources:
    {{- template "proxy.resources" . }}
    {{- if not (or $proxy.resources (hasKey $ann "proxy.mesh.example.com/cpu")) }} {}{{ end }}
    securityContext:
      allowPrivilegeEscalation: {{ $proxy.privileged | default false }}
      privileged: {{ $proxy.privileged | default false }}
      capabilities:
        add:
        - NET_ADMIN
        - NET_RAW
        {{- if $tproxy }}
        - SYS_ADMIN
        {{- end }}
        drop:
        - ALL
      readOnlyRootFilesystem: false
      runAsGroup: 0
      runAsNonRoot: false
      runAsUser: 0
  {{- end }}
  {{- if eq (index $ann "sidecar.mesh.example.com/enableCoreDump" | default (toString $proxy.enableCoreDump)) "true" }}
  - name: enable-core-dump
    image: {{ template "proxy.image" . }}
    imagePullPolicy: {{ $g.imagePullPolicy | default "IfNotPresent" }}
    command:
    - /bin/sh
    - -c
    - |
      sysctl -w kernel.core_pattern=/var/lib/mesh/data/core.proxy.%e.%p.%t
      ulimit -c unlimited
    {{- with $proxy.coreDumpResources }}
    resources: {{ toJson . }}
    {{- end }}
    securityContext:
      allowPrivilegeEscalation: true
      capabilities:
        add:
        - SYS_ADMIN
        drop:
        - ALL
      privileged: true
      readOnlyRootFilesystem: false
      runAsGroup: 0
      runAsNonRoot: false
      runAsUser: 0
  {{- end }}
  {{- if and .values.cni.enabled (not $noInit) }}
  - name: mesh-validation
    image: {{ template "proxy.image" . }}
    imagePullPolicy: {{ $g.imagePullPolicy | default "IfNotPresent" }}
    args:
    - mesh-iptables
    - "--run-validation"
    - "--skip-rule-apply"
    - "--probe-timeout={{ .values.cni.validationTimeout | default "30s" }}"
    securityContext:
      allowPrivilegeEscalation: false
      capabilities:
        drop:
        - ALL
      privileged: false
      readOnlyRootFilesystem: true
      runAsGroup: {{ $proxy.gid | default 1337 }}
      runAsNonRoot: true
      runAsUser: {{ $proxy.uid | default 1337 }}
  {{- end }}
  {{- if $native }}
  - name: mesh-proxy
    restartPolicy: Always
  {{- end }}
  {{- end }}
  containers:
  - name: mesh-proxy
    image: {{ template "proxy.image" . }}
    {{- if $holdApp }}
    lifecycle:
      postStart:
        exec:
          command:
          - mesh-agent
          - wait
          - --timeout={{ $proxy.startupTimeout | default "5m" }}
    {{- end }}
    {{- with $proxy.lifecycle }}
    {{- if not $holdApp }}
    lifecycle: {{ toJson . }}
    {{- end }}
    {{- end }}
    {{- if eq (index $labels "mesh.example.com/proxyType" | default "sidecar") "gateway" }}
    ports:
    - containerPort: 15090
      protocol: TCP
      name: http-envoy-prom
    - containerPort: 15021
      protocol: TCP
      name: status-port
    {{- range $i, $port := .values.gateway.ports | default list }}
    - containerPort: {{ $port.targetPort | default $port.port }}
      protocol: {{ $port.protocol | default "TCP" }}
      name: {{ $port.name | default (printf "port-%d" $i) }}
    {{- end }}
    args:
    - proxy
    - router
    - --domain
    - $(POD_NAMESPACE).svc.{{ .values.global.proxy.clusterDomain | default "cluster.local" }}
    - --proxyLogLevel={{ index $ann "proxy.mesh.example.com/logLevel" | default $proxy.logLevel | default "warning" }}
    - --serviceCluster={{ .deployment.name | default "gateway" }}.{{ $meta.namespace | default "default" }}
    {{- with .values.gateway.drainDuration }}
    - --drainDuration={{ . }}
    {{- end }}
    {{- else }}
    ports:
    - containerPort: 15090
      protocol: TCP
      name: http-envoy-prom
    - containerPort: {{ $statusPort }}
      protocol: TCP
      name: http-status
    args:
    - proxy
    - {{ index $labels "mesh.example.com/proxyType" | default "sidecar" }}
    - --domain
    - $(POD_NAMESPACE).svc.{{ .values.global.proxy.clusterDomain | default "cluster.local" }}
    - --proxyLogLevel={{ index $ann "proxy.mesh.example.com/logLevel" | default $proxy.logLevel | default "warning" }}
    - --proxyComponentLogLevel={{ index $ann "proxy.mesh.example.com/componentLogLevel" | default $proxy.componentLogLevel | default "misc:error" }}
    - --log_output_level={{ index $ann "proxy.mesh.example.com/agentLogLevel" | default $g.logging.level | default "default:info" }}
    {{- if $g.logAsJson }}
    - --log_as_json
    {{- end }}
    {{- with $pc.concurrency }}
    - --concurrency
    - {{ . | toString | quote }}
    {{- end }}
    {{- if $proxy.outlierLogPath }}
    - --outlierLogPath={{ $proxy.outlierLogPath }}
    {{- end }}
    {{- end }}
    env:
    - name: PILOT_CERT_PROVIDER
      value: {{ $g.pilotCertProvider | default "mesh" | quote }}
    - name: CA_ADDR
      value: {{ $g.caAddress | default (printf "meshd-%s.%s.svc:15012" (.revision | default "default") $g.meshNamespace) | quote }}
    - name: POD_NAME
      valueFrom:
        fieldRef:
          fieldPath: metadata.name
    - name: POD_NAMESPACE
      valueFrom:
        fieldRef:
          fieldPath: metadata.namespace
    - name: INSTANCE_IP
      valueFrom:
        fieldRef:
          fieldPath: status.podIP
    - name: SERVICE_ACCOUNT
      valueFrom:
        fieldRef:
          fieldPath: spec.serviceAccountName
    - name: HOST_IP
      valueFrom:
        fieldRef:
          fieldPath: status.hostIP
    - name: MESH_CPU_LIMIT
      valueFrom:
        resourceFieldRef:
          resource: limits.cpu
          divisor: "1"
    - name: PROXY_CONFIG
      value: {{ toJson $pc | quote }}
    - name: MESH_META_POD_PORTS
      value: |-
        [
        {{- $first := true }}
        {{- range $c := .pod.spec.containers }}
        {{- range $p := $c.ports }}
        {{- if not $first }},{{ end }}
          {{ toJson (pick $p "name" "containerPort" "protocol") }}
        {{- $first = false }}
        {{- end }}
        {{- end }}
        ]
    - name: MESH_META_APP_CONTAINERS
      value: {{ join "," $appContainers | quote }}
    - name: GOMEMLIMIT
      valueFrom:
        resourceFieldRef:
          resource: limits.memory
    - name: GOMAXPROCS
      valueFrom:
        resourceFieldRef:
          resource: limits.cpu
    - name: MESH_META_CLUSTER_ID
      value: {{ $g.multiCluster.clusterName | default "Kubernetes" | quote }}
    - name: MESH_META_NODE_NAME
      valueFrom:
        fieldRef:
          fieldPath: spec.nodeName
    - name: MESH_META_INTERCEPTION_MODE
      value: {{ $interception | quote }}
    {{- with $g.network }}
    - name: MESH_META_NETWORK
      value: {{ . | quote }}
    {{- end }}
    {{- if eq (index $labels "mesh.example.com/proxyType" | default "sidecar") "gateway" }}
    - name: MESH_META_ROUTER_MODE
      value: {{ .values.gateway.routerMode | default "standard" | quote }}
    {{- with .values.gateway.requestedNetworkView }}
    - name: MESH_META_REQUESTED_NETWORK_VIEW
      value: {{ join "," . | quote }}
    {{- end }}
    {{- end }}
    {{- with .deployment.name }}
    - name: MESH_META_WORKLOAD_NAME
      value: {{ . | quote }}
    {{- end }}
    - name: MESH_META_OWNER
      value: kubernetes://apis/{{ .deployment.apiVersion | default "apps/v1" }}/namespaces/{{ .deployment.namespace | default $meta.namespace }}/{{ .deployment.kind | default "deployments" | lower }}s/{{ .deployment.name }}
    {{- if $g.meshID }}
    - name: MESH_META_MESH_ID
      value: {{ $g.meshID | quote }}
    {{- else if .meshConfig.trustDomain }}
    - name: MESH_META_MESH_ID
      value: {{ .meshConfig.trustDomain | quote }}
    {{- end }}
    {{- with .meshConfig.trustDomain }}
    - name: TRUST_DOMAIN
      value: {{ . | quote }}
    {{- end }}
    {{- range $k, $v := $pc.proxyMetadata }}
    {{- if not (hasPrefix "MESH_INIT_" $k) }}
    - name: {{ $k }}
      value: {{ $v | toString | quote }}
    {{- end }}
    {{- end }}
    {{- template "proxy.tracing" $pc }}
    {{- range $k, $v := $proxy.env }}
    - name: {{ $k }}
      value: {{ $v | toString | quote }}
    {{- end }}
    {{- $probes := list }}
    {{- range $c := .pod.spec.containers }}
    {{- if or $c.readinessProbe $c.livenessProbe $c.startupProbe }}{{ $probes = append $probes $c.name }}{{ end }}
    {{- end }}
    {{- if and $probes (ne (index $ann "proxy.mesh.example.com/rewriteAppHTTPProbers" | default "true") "false") .values.sidecarInjector.rewriteAppHTTPProbe }}
    - name: MESH_KUBE_APP_PROBERS
      value: |-
        {
        {{- $sep := "" }}
        {{- range $c := .pod.spec.containers }}
        {{- range $kind := list "livez" "readyz" "startupz" }}
        {{- $p := index $c (printf "%sProbe" (index (dict "livez" "liveness" "readyz" "readiness" "startupz" "startup") $kind)) }}
        {{- if $p }}{{ $sep }}{{ $sep = "," }}
          {{- template "proxy.probe" (list $c $p $kind) }}
        {{- end }}
        {{- end }}
        {{- end }}
        }
    {{- end }}
    imagePullPolicy: {{ $g.imagePullPolicy | default "IfNotPresent" }}
    readinessProbe:
      httpGet:
        path: /healthz/ready
        port: {{ $statusPort }}
      initialDelaySeconds: {{ index $ann "readiness.status.mesh.example.com/initialDelaySeconds" | default $proxy.readinessInitialDelaySeconds | default 0 }}
      periodSeconds: {{ index $ann "readiness.status.mesh.example.com/periodSeconds" | default $proxy.readinessPeriodSeconds | default 15 }}
      timeoutSeconds: 3
      failureThreshold: {{ index $ann "readiness.status.mesh.example.com/failureThreshold" | default $proxy.readinessFailureThreshold | default 4 }}
    {{- if $proxy.startupProbe.enabled }}
    startupProbe:
      httpGet:
        path: /healthz/ready
        port: {{ $statusPort }}
      initialDelaySeconds: 0
      periodSeconds: 1
      timeoutSeconds: 3
      failureThreshold: {{ $proxy.startupProbe.failureThreshold | default 600 }}
    {{- end }}
    resources:
    {{- template "proxy.resources" . }}
    {{- if not (or $proxy.resources (hasKey $ann "proxy.mesh.example.com/cpu")) }} {}{{ end }}
    securityContext:
      {{- if or $tproxy $proxy.privileged }}
      allowPrivilegeEscalation: true
      capabilities:
        add:
        {{- if $tproxy }}
        - NET_ADMIN
        {{- end }}
        {{- if eq (index $ann "proxy.mesh.example.com/capNetBindService" | default (toString $proxy.capNetBindService)) "true" }}
        - NET_BIND_SERVICE
        {{- end }}
        drop:
        - ALL
      privileged: {{ $proxy.privileged | default false }}
      readOnlyRootFilesystem: true
      runAsGroup: {{ $proxy.gid | default 1337 }}
      runAsNonRoot: false
      runAsUser: {{ if $tproxy }}0{{ else }}{{ $proxy.uid | default 1337 }}{{ end }}
      {{- else }}
      allowPrivilegeEscalation: false
      capabilities:
        {{- if eq (index $ann "proxy.mesh.example.com/capNetBindService" | default (toString $proxy.capNetBindService)) "true" }}
        add:
        - NET_BIND_SERVICE
        {{- end }}
        drop:
        - ALL
      privileged: false
      readOnlyRootFilesystem: true
      runAsGroup: {{ $proxy.gid | default 1337 }}
      runAsNonRoot: true
      runAsUser: {{ $proxy.uid | default 1337 }}
      {{- end }}
    volumeMounts:
    - name: workload-socket
      mountPath: /var/run/secrets/workload-spiffe-uds
    - name: credential-socket
      mountPath: /var/run/secrets/credential-uds
    {{- if eq (index $ann "sidecar.mesh.example.com/userVolumeMount" | default "") "" }}
    - name: workload-certs
      mountPath: /var/run/secrets/workload-spiffe-credentials
    {{- end }}
    - name: meshd-ca-cert
      mountPath: /var/run/secrets/mesh
    - name: mesh-data
      mountPath: /var/lib/mesh/data
    - name: mesh-envoy
      mountPath: /etc/mesh/proxy
    {{- if eq $g.jwtPolicy "third-party-jwt" }}
    - name: mesh-token
      mountPath: /var/run/secrets/tokens
    {{- end }}
    - name: mesh-podinfo
      mountPath: /etc/mesh/pod
    {{- with index $ann "sidecar.mesh.example.com/userVolumeMount" }}
    {{- range $name, $mount := fromJson . }}
    - name: {{ $name }}
      {{- range $k, $v := $mount }}
      {{ $k }}: {{ $v }}
      {{- end }}
    {{- end }}
    {{- end }}
    {{- range $proxy.volumeMounts }}
    - {{ toJson . }}
    {{- end }}
  volumes:
  - name: workload-socket
    emptyDir: {}
  - name: credential-socket
    emptyDir: {}
  - name: workload-certs
    emptyDir: {}
  - name: mesh-envoy
    emptyDir:
      medium: Memory
      {{- with $proxy.envoyVolumeSizeLimit }}
      sizeLimit: {{ . }}
      {{- end }}
  - name: mesh-data
    emptyDir: {}
  - name: mesh-podinfo
    downwardAPI:
      items:
      - path: "labels"
        fieldRef:
          fieldPath: metadata.labels
      - path: "annotations"
        fieldRef:
          fieldPath: metadata.annotations
  {{- if eq $g.jwtPolicy "third-party-jwt" }}
  - name: mesh-token
    projected:
      sources:
      - serviceAccountToken:
          path: mesh-token
          expirationSeconds: {{ $g.tokenExpirationSeconds | default 43200 }}
          audience: {{ $g.sds.token.aud | default "mesh-ca" | quote }}
  {{- end }}
  - name: meshd-ca-cert
    {{- if eq (index $pc.proxyMetadata "PROXY_CONFIG_XDS_AGENT" | default "") "true" }}
    emptyDir: {}
    {{- else }}
    configMap:
      name: mesh-ca-root-cert
      {{- with $g.caBundleKey }}
      items:
      - key: {{ . }}
        path: root-cert.pem
      {{- end }}
    {{- end }}
  {{- with index $ann "sidecar.mesh.example.com/userVolume" }}
  {{- range $name, $vol := fromJson . }}
  - {{ merge (dict "name" $name) $vol | toJson }}
  {{- end }}
  {{- end }}
  {{- range $v := $proxy.extraVolumes }}
  - {{ toJson $v }}
  {{- end }}
  {{- if $g.imagePullSecrets }}
  imagePullSecrets:
  {{- range $g.imagePullSecrets }}
  - name: {{ . }}
  {{- end }}
  {{- end }}
  {{- with $g.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- if and $holdApp (gt (len $appContainers) 0) }}
  # {{ len $appContainers }} application container(s) start after the proxy: {{ join ", " $appContainers }}
  {{- end }}
  {{- if $tproxy }}
  securityContext:
    sysctls:
    - name: net.ipv4.ip_local_port_range
      value: {{ .values.sysctls.portRange | default "1024 65535" | quote }}
    {{- range $k, $v := .values.sysctls.extra }}
    - name: {{ $k }}
      value: {{ $v | toString | quote }}
    {{- end }}
  {{- end }}
  {{- with .values.hostAliases }}
  hostAliases:
  {{- range . }}
  - ip: {{ .ip | quote }}
    hostnames:
    {{- range .hostnames }}
    - {{ . | quote }}
    {{- end }}
  {{- end }}
  {{- end }}
  {{- if .values.dnsConfig.enabled }}
  dnsConfig:
    options:
    {{- range $name, $value := .values.dnsConfig.options }}
    - name: {{ $name }}
      {{- if $value }}
      value: {{ $value | toString | quote }}
      {{- end }}
    {{- end }}
    {{- with .values.dnsConfig.searches }}
    searches: {{ toJson . }}
    {{- end }}
  {{- end }}
  {{- if .values.topology.spread }}
  topologySpreadConstraints:
  {{- range $i, $key := .values.topology.keys }}
  - maxSkew: {{ add1 $i }}
    topologyKey: {{ $key }}
    whenUnsatisfiable: {{ ternary "DoNotSchedule" "ScheduleAnyway" (eq $i 0) }}
    labelSelector:
      matchLabels: {{ toJson (pick $labels "app" "version") }}
  {{- end }}
  {{- end }}
  {{- $hash := toJson .values | sha256sum | trunc 12 }}
  # config-hash: {{ $hash }}
