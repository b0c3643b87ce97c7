{{/*
Names, labels and the environment the api and worker share. Every credential comes from a Secret the
operator created (secretKeyRef or a mounted file); the `required` calls stop a render that lacks one.
*/}}

{{- define "railyard.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "railyard.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: include with (dict "root" $ "component" "api"). */}}
{{- define "railyard.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "railyard.image" -}}
{{- $repo := required "image.repository is required: the image built from railyard's Dockerfile" .Values.image.repository -}}
{{- printf "%s:%s" $repo .Values.image.tag -}}
{{- end -}}

{{- define "railyard.secretName" -}}
{{- required "secrets.existingSecret is required: a Secret with railyard's database URL and page-token secret (docs/deployment.md, Kubernetes)" .Values.secrets.existingSecret -}}
{{- end -}}

{{/* The process's own security: non-root, no added capability, no privilege escalation. */}}
{{- define "railyard.containerSecurity" -}}
allowPrivilegeEscalation: false
capabilities:
  drop: [ALL]
{{- end -}}

{{/* Environment of the control plane (api and worker). */}}
{{- define "railyard.controlEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "railyard.secretName" . }}
      key: {{ .Values.secrets.databaseUrlKey }}
- name: TEMPORAL_ADDRESS
  value: {{ required "temporal.address is required (host:port of Temporal's frontend)" .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
{{- with .Values.temporal.tls }}
{{- if .enabled }}
- name: TEMPORAL_TLS
  value: "true"
{{- if .caKey }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /var/run/secrets/railyard/temporal/{{ .caKey }}
{{- end }}
{{- if or .clientCertKey .clientKeyKey }}
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /var/run/secrets/railyard/temporal/{{ required "temporal.tls.clientCertKey is required with temporal.tls.clientKeyKey" .clientCertKey }}
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /var/run/secrets/railyard/temporal/{{ required "temporal.tls.clientKeyKey is required with temporal.tls.clientCertKey" .clientKeyKey }}
{{- end }}
{{- with .serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.temporal.apiKey }}
{{- if .existingSecret }}
- name: TEMPORAL_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .key }}
{{- end }}
{{- end }}
- name: RAILYARD_TASK_QUEUE
  value: {{ .Values.temporal.taskQueue | quote }}
- name: RAILYARD_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: RAILYARD_GIT_ROOT
  value: /var/lib/railyard/git
{{- with .Values.publicUrl }}
- name: RAILYARD_PUBLIC_URL
  value: {{ . | quote }}
{{- end }}
{{- if .Values.github.enabled }}
- name: RAILYARD_GITHUB_APP_ID
  value: {{ required "github.appId is required when github.enabled" .Values.github.appId | quote }}
- name: RAILYARD_GITHUB_PRIVATE_KEY_FILE
  value: /var/run/secrets/railyard/github/{{ .Values.github.privateKeyKey }}
- name: RAILYARD_GITHUB_WEBHOOK_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ required "github.existingSecret is required when github.enabled" .Values.github.existingSecret }}
      key: {{ .Values.github.webhookSecretKey }}
{{- if .Values.github.clientId }}
- name: RAILYARD_GITHUB_CLIENT_ID
  value: {{ .Values.github.clientId | quote }}
- name: RAILYARD_GITHUB_CLIENT_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .Values.github.existingSecret }}
      key: {{ required "github.clientSecretKey is required with github.clientId" .Values.github.clientSecretKey }}
{{- end }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Volumes of the control plane: the git root, a writable /tmp, and files from Secrets (Temporal's TLS
files, PostgreSQL's CA, the GitHub App's key), each mounted read-only by railyard.secretMounts. */}}
{{- define "railyard.controlVolumes" -}}
- name: git
{{- if .Values.localGit.existingClaim }}
  persistentVolumeClaim:
    claimName: {{ .Values.localGit.existingClaim }}
{{- else }}
  emptyDir: {}
{{- end }}
- name: tmp
  emptyDir: {}
{{- if .Values.temporal.tls.enabled }}
{{- if and (or .Values.temporal.tls.caKey .Values.temporal.tls.clientCertKey) (not .Values.temporal.tls.existingSecret) }}
{{- fail "temporal.tls.existingSecret is required with temporal.tls.caKey or the client certificate" }}
{{- end }}
{{- if .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ .Values.temporal.tls.existingSecret }}
    defaultMode: 0440
{{- end }}
{{- end }}
{{- with .Values.postgresCa.existingSecret }}
- name: postgres-ca
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - key: {{ $.Values.postgresCa.key }}
        path: ca.pem
{{- end }}
{{- if .Values.github.enabled }}
- name: github-app
  secret:
    secretName: {{ .Values.github.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.github.privateKeyKey }}
        path: {{ .Values.github.privateKeyKey }}
{{- end }}
{{- end -}}

{{- define "railyard.secretMounts" -}}
{{- if and .Values.temporal.tls.enabled .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  mountPath: /var/run/secrets/railyard/temporal
  readOnly: true
{{- end }}
{{- if .Values.postgresCa.existingSecret }}
- name: postgres-ca
  mountPath: /var/run/secrets/railyard/postgres
  readOnly: true
{{- end }}
{{- if .Values.github.enabled }}
- name: github-app
  mountPath: /var/run/secrets/railyard/github
  readOnly: true
{{- end }}
{{- end -}}
