{{- /*
  A log-shipping sidecar, written the way Istio and Helm write templates: Go text/template
  with Sprig functions. It renders a pod overlay: the container to add and the volume it reads.
*/ -}}
{{- $s := .sidecar -}}
{{- $level := $s.env.LOG_LEVEL | default "info" -}}
{{- with .pod.annotations -}}
  {{- with index . "logging.example.com/level" }}{{ $level = . }}{{ end -}}
{{- end -}}
spec:
  containers:
  - name: {{ $s.name }}
    image: "{{ $s.image }}:{{ $s.tag | default "latest" }}"
    imagePullPolicy: {{ $s.pullPolicy | default "IfNotPresent" }}
    {{- with $s.args }}
    args:
    {{- range . }}
    - {{ . | quote }}
    {{- end }}
    {{- end }}
    env:
    - name: POD_NAME
      value: {{ .pod.name | quote }}
    - name: POD_NAMESPACE
      value: {{ .pod.namespace | default "default" | quote }}
    - name: LOG_LEVEL
      value: {{ $level | quote }}
    {{- range $name, $value := $s.env }}
    {{- if ne $name "LOG_LEVEL" }}
    - name: {{ $name }}
      value: {{ $value | quote }}
    {{- end }}
    {{- end }}
    {{- with index (.pod.annotations | default dict) "logging.example.com/exclude-paths" }}
    - name: EXCLUDE_PATHS
      value: {{ splitList "," . | toJson | quote }}
    {{- end }}
    {{- with $s.ports }}
    ports:
    {{- range . }}
    - name: {{ .name }}
      containerPort: {{ .containerPort }}
      protocol: {{ .protocol | default "TCP" }}
    {{- end }}
    {{- end }}
    {{- with $s.probe }}
    readinessProbe:
      httpGet:
        path: {{ .path }}
        port: {{ .port }}
      periodSeconds: {{ .periodSeconds | default 10 }}
    {{- end }}
    resources: {{ $s.resources | default dict | toJson }}
    securityContext:
      allowPrivilegeEscalation: false
      readOnlyRootFilesystem: true
      runAsNonRoot: true
    volumeMounts:
    - name: {{ $s.logVolume }}
      mountPath: /var/log/app
      readOnly: true
  volumes:
  - name: {{ $s.logVolume }}
    emptyDir: {}
