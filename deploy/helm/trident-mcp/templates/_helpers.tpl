{{/* The chart's name, or nameOverride. */}}
{{- define "trident-mcp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: names every object (63 characters at most, as DNS labels are). */}}
{{- define "trident-mcp.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "trident-mcp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "trident-mcp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "trident-mcp.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "trident-mcp.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "trident-mcp.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "trident-mcp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "trident-mcp.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "trident-mcp.signingKeysSecret" -}}
{{- default (printf "%s-signing-keys" (include "trident-mcp.fullname" .)) .Values.signingKeys.existingSecret }}
{{- end }}

{{/* Whether more than one pod can run at once: the HPA may add them. */}}
{{- define "trident-mcp.replicated" -}}
{{- if or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1) }}true{{ end }}
{{- end }}

{{/*
Settings that cannot work together fail the render with the fix, rather than
pods that start and then disagree.
*/}}
{{- define "trident-mcp.validate" -}}
{{- if and (include "trident-mcp.replicated" .) (not .Values.postgresql.existingSecret) }}
{{- fail "more than one replica (replicaCount > 1 or autoscaling.enabled) needs PostgreSQL: Relay's SQLite store lives in one pod. Set postgresql.existingSecret to a Secret holding RELAY_DATABASE_URL (postgres://...)" }}
{{- end }}
{{- if and .Values.oauth.required (not .Values.oauth.issuer) }}
{{- fail "oauth.required needs oauth.issuer (OAUTH_ISSUER): the issuer whose tokens the server accepts" }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail "autoscaling.minReplicas is above autoscaling.maxReplicas" }}
{{- end }}
{{- range $name := list "RELAY_SIGNING_KEYS" "RELAY_DATABASE_URL" "REDIS_URL" }}
{{- if hasKey $.Values.env $name }}
{{- fail (printf "env.%s would put a secret in the pod spec: the chart reads it from a Secret (signingKeys, postgresql, redis)" $name) }}
{{- end }}
{{- end }}
{{- range $name := list "ADDR" "PUBLIC_BASE_URL" "MCP_REQUIRE_OAUTH" "OAUTH_ISSUER" "LOG_LEVEL" "RATE_LIMIT" "SHUTDOWN_DELAY" "SHUTDOWN_TIMEOUT" "REDIS_KEY_PREFIX" }}
{{- if hasKey $.Values.env $name }}
{{- fail (printf "env.%s is set by the chart from its own value (values.yaml names it)" $name) }}
{{- end }}
{{- end }}
{{- end }}
