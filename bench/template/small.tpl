{{- $name := .name | default "app" -}}
name: {{ $name | quote }}
image: "{{ .image.repository }}:{{ .image.tag | default "latest" }}"
{{- if .args }}
args:
{{- range .args }}
- {{ . | quote }}
{{- end }}
{{- end }}
env:
{{- range $k, $v := .env }}
- name: {{ $k | upper }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- with .port }}
ports:
- containerPort: {{ . }}
{{- end }}
