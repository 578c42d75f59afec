{{/*
Shared named templates. Every unit (gateway, identity, posts, totp, oauth,
jobs, and the units added later) is rendered by the same templates from its
block under `units`, merged over `unitDefaults`. Helpers that work on one unit take a dict
with root (the chart's top scope), name, unit (the merged block) and units
(every enabled unit, merged), as built in each template's range.
*/}}

{{- define "latchkey.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The release's base name, at most 32 characters, so that every object name
built on it (<fullname>-<unit>-migrate, <fullname>-nats-authorization) fits
Kubernetes' 63 for any release name Helm accepts. A longer one keeps its
first 25 characters and gets 6 of its hash, so that two long release names
that share a beginning still differ.
*/}}
{{- define "latchkey.fullname" -}}
{{- $full := "" -}}
{{- if .Values.fullnameOverride -}}
{{- $full = .Values.fullnameOverride -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- $full = ternary .Release.Name (printf "%s-%s" .Release.Name $name) (contains $name .Release.Name) -}}
{{- end -}}
{{- if gt (len $full) 32 -}}
{{- printf "%s-%s" ($full | trunc 25 | trimSuffix "-") (sha256sum $full | trunc 6) -}}
{{- else -}}
{{- $full | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "latchkey.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels shared by every object of the release, and commonLabels; the
chart's own win on a clash (app.kubernetes.io/component included, which
unitLabels adds).
*/}}
{{- define "latchkey.labels" -}}
{{- $own := dict
  "helm.sh/chart" (include "latchkey.chart" .)
  "app.kubernetes.io/name" (include "latchkey.name" .)
  "app.kubernetes.io/instance" .Release.Name
  "app.kubernetes.io/version" (toString .Chart.AppVersion)
  "app.kubernetes.io/managed-by" .Release.Service
  "app.kubernetes.io/part-of" "latchkey" -}}
{{- range $key, $value := .Values.commonLabels | default dict -}}
{{- if and (not (hasKey $own $key)) (ne $key "app.kubernetes.io/component") -}}
{{- $_ := set $own $key (toString $value) -}}
{{- end -}}
{{- end -}}
{{- toYaml $own -}}
{{- end -}}

{{/*
An object's `annotations:` block: its own (dict .annotations) over
commonAnnotations; nothing when both are empty. Takes root and annotations.
A common helm.sh/ annotation is left out: it would turn every object into a
hook, or reorder the hooks.
*/}}
{{- define "latchkey.metadataAnnotations" -}}
{{- $common := dict -}}
{{- range $key, $value := .root.Values.commonAnnotations | default dict -}}
{{- if not (hasPrefix "helm.sh/" $key) -}}
{{- $_ := set $common $key (toString $value) -}}
{{- end -}}
{{- end -}}
{{- $all := merge (deepCopy (.annotations | default dict)) $common -}}
{{- with $all }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The annotations of a hook that runs before installs and upgrades, before the Jobs (weight -10) or as one (0). */}}
{{- define "latchkey.hookAnnotations" -}}
{{- toYaml (dict "helm.sh/hook" "pre-install,pre-upgrade" "helm.sh/hook-weight" (toString .) "helm.sh/hook-delete-policy" "before-hook-creation,hook-succeeded") -}}
{{- end -}}

{{/*
What orders a migration object before the release's others, per
migrations.mode: Helm hook annotations (what the Jobs read at weight -10,
the Jobs at 0), or in job mode Argo CD sync waves (what the Jobs read one
wave before migrations.syncWave, the Jobs in it, the rest of the release in
wave 0). Takes root and what ("inputs" or "job").
*/}}
{{- define "latchkey.migrationOrder" -}}
{{- $inputs := eq .what "inputs" -}}
{{- if eq .root.Values.migrations.mode "hook" -}}
{{- include "latchkey.hookAnnotations" (ternary -10 0 $inputs) -}}
{{- else -}}
{{- $wave := int .root.Values.migrations.syncWave -}}
{{- toYaml (dict "argocd.argoproj.io/sync-wave" (toString (ternary (sub $wave 1) $wave $inputs))) -}}
{{- end -}}
{{- end -}}

{{/*
A migration Job's name. In job mode the Job is an ordinary object and its
pod template cannot change, so its name carries a hash of what it runs (the
image, the command, the configuration): a new release makes a new Job,
which Argo CD runs, and prunes the old one.
*/}}
{{- define "latchkey.migrationJobName" -}}
{{- if eq .root.Values.migrations.mode "job" -}}
{{- $runs := printf "%s %s %s" (include "latchkey.image" .) (toJson .unit.migrations.args) (include "latchkey.configMapData" .) -}}
{{- printf "%s-%s" (include "latchkey.migrationName" . | trunc 54 | trimSuffix "-") (sha256sum $runs | trunc 8) -}}
{{- else -}}
{{- include "latchkey.migrationName" . -}}
{{- end -}}
{{- end -}}

{{/* Selects every pod of this release (NetworkPolicy peers). */}}
{{- define "latchkey.releaseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "latchkey.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Deep merge for values: maps are merged key by key, everything else in
"override" replaces "base", false and 0 included (sprig's merge functions
treat those as unset). Returns YAML; callers use fromYaml.
*/}}
{{- define "latchkey.deepMerge" -}}
{{- $out := deepCopy .base -}}
{{- range $key, $value := .override -}}
{{- $current := get $out $key -}}
{{- if and (kindIs "map" $value) (kindIs "map" $current) -}}
{{- $_ := set $out $key (include "latchkey.deepMerge" (dict "base" $current "override" $value) | fromYaml) -}}
{{- else -}}
{{- $_ := set $out $key $value -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
Every enabled unit, name => its block as YAML: unitDefaults, then the unit
as catalogue.yaml (generated from packages/units) declares it, then its
block under `units` in the values.
*/}}
{{- define "latchkey.units" -}}
{{- $catalogue := (.Files.Get "catalogue.yaml" | fromYaml).units | default dict -}}
{{- $out := dict -}}
{{- range $name := concat (keys $catalogue) (keys .Values.units) | uniq | sortAlpha -}}
{{- $declared := include "latchkey.deepMerge" (dict "base" $.Values.unitDefaults "override" (index $catalogue $name | default dict)) | fromYaml -}}
{{- $merged := include "latchkey.deepMerge" (dict "base" $declared "override" (index $.Values.units $name | default dict)) | fromYaml -}}
{{- if $merged.enabled -}}
{{- $_ := set $out $name $merged -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{- define "latchkey.unitFullname" -}}
{{- printf "%s-%s" (include "latchkey.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "latchkey.migrationName" -}}
{{- printf "%s-%s-migrate" (include "latchkey.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "latchkey.unitSelectorLabels" -}}
{{ include "latchkey.releaseSelectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "latchkey.unitLabels" -}}
{{ include "latchkey.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "latchkey.serviceAccountName" -}}
{{- if .unit.serviceAccount.create -}}
{{- default (include "latchkey.unitFullname" .) .unit.serviceAccount.name -}}
{{- else -}}
{{- default "default" .unit.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret the units read: the operator's or the chart's. */}}
{{- define "latchkey.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else -}}
{{- printf "%s-secrets" (include "latchkey.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The Secret the migration hooks read. Pre-install hooks run before the
release's own objects exist, so the chart's Secret is copied into a hook
Secret; an existingSecret is managed outside the release and exists already.
*/}}
{{- define "latchkey.migrationSecretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else -}}
{{- printf "%s-migrate" (include "latchkey.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The Secret with a unit's own certificate (its Subject CN is the unit's name). */}}
{{- define "latchkey.mtlsSecretName" -}}
{{- default (printf "%s-mtls" (include "latchkey.unitFullname" .)) .unit.mtlsSecretName -}}
{{- end -}}

{{/*
Whether a unit serves a platform API on a listener of its own: the
gateway's gRPC port (sessions.v1; an http unit's grpc port) or an `admin`
port (admin.v1 on identity). With mTLS it trusts the platform clients' CA
there, and NetworkPolicy opens that port to networkPolicy.platformApi.from.
*/}}
{{- define "latchkey.platformPort" -}}
{{- if .unit.ports.admin -}}admin{{- else if and (eq .unit.kind "http") .unit.ports.grpc -}}grpc{{- end -}}
{{- end -}}

{{/*
The CA bundle a unit trusts: the trust bundle's key when mtls.trustBundle
names a ConfigMap (a CA rotation's overlap), else the unit's own ca.crt.
*/}}
{{- define "latchkey.trustedCaFile" -}}
{{- if .Values.mtls.trustBundle.configMapName -}}
{{- printf "%s/%s" (trimSuffix "/" .Values.mtls.trustBundle.mountPath) .Values.mtls.trustBundle.key -}}
{{- else -}}
{{- printf "%s/ca.crt" (trimSuffix "/" .Values.mtls.mountPath) -}}
{{- end -}}
{{- end -}}

{{/* The Secret of latchkey-admin's platform-client certificate, mounted into identity's pods. */}}
{{- define "latchkey.adminCliSecretName" -}}
{{- default (printf "%s-admin-cli-mtls" (include "latchkey.fullname" .)) .Values.mtls.adminCli.secretName -}}
{{- end -}}

{{/* Whether a unit's pods carry latchkey-admin's certificate: the unit that serves admin.v1. */}}
{{- define "latchkey.carriesAdminCli" -}}
{{- if and .root.Values.mtls.enabled .root.Values.mtls.adminCli.enabled .unit.ports.admin -}}true{{- end -}}
{{- end -}}

{{/*
Whether a unit speaks gRPC: serves it, or calls another unit (the gateway,
the jobs worker). Such a unit gets the mTLS files when mtls is on.
*/}}
{{- define "latchkey.speaksGrpc" -}}
{{- if or (eq .unit.kind "grpc") (gt (len .unit.calls) 0) -}}true{{- end -}}
{{- end -}}

{{- define "latchkey.usesMtls" -}}
{{- if and .root.Values.mtls.enabled (include "latchkey.speaksGrpc" .) -}}true{{- end -}}
{{- end -}}

{{/* Whether a unit connects to NATS (it reads NATS_URL). */}}
{{- define "latchkey.usesNats" -}}
{{- if has "NATS_URL" .unit.secrets -}}true{{- end -}}
{{- end -}}

{{/*
A unit's NATS password in natsAuth.passwords; one left out is the
development default, which production refuses (latchkey.validate).
*/}}
{{- define "latchkey.natsPassword" -}}
{{- $passwords := .root.Values.natsAuth.passwords | default dict -}}
{{- if hasKey $passwords .name -}}
{{- include "latchkey.envValue" (index $passwords .name) -}}
{{- else -}}
{{- printf "latchkey-dev-nats-%s" .name -}}
{{- end -}}
{{- end -}}

{{- define "latchkey.natsUsersSecretName" -}}
{{- default (printf "%s-nats-users" (include "latchkey.fullname" .)) .Values.natsAuth.existingSecret -}}
{{- end -}}

{{/*
The key of natsAuth.existingSecret that holds unit .name's NKey seed
(natsAuth.mode nkey) or credentials file (creds), which is also the file's
name in its mount; "" in mode password. Takes root and name.
*/}}
{{- define "latchkey.natsCredentialsKey" -}}
{{- $mode := .root.Values.natsAuth.mode -}}
{{- if eq $mode "nkey" -}}
{{- printf "%s.nk" .name -}}
{{- else if eq $mode "creds" -}}
{{- printf "%s.creds" .name -}}
{{- end -}}
{{- end -}}

{{/*
What the NATS user of unit .name (block .unit) may publish and subscribe
to, as YAML {publish: [...], subscribe: [...]}, for the subject prefix
.prefix. The same rules as busPermissions in
packages/job-streams/src/bus-permissions.ts, which
test/deployment/nats-authorization.test.ts holds this to; what a producer
publishes is its natsPublishes in catalogue.yaml, generated from there.
*/}}
{{- define "latchkey.natsPermissions" -}}
{{- $prefix := .prefix -}}
{{- $jobs := printf "%s_JOBS" (upper $prefix) -}}
{{- $dead := printf "%s_DEAD" (upper $prefix) -}}
{{- $events := printf "%s_EVENTS" (upper $prefix) -}}
{{- $publish := list -}}
{{- /* Only the jobs worker, which owns the streams, may create and update them; no unit may delete one. */ -}}
{{- if eq .name "jobs" -}}
{{- $publish = append $publish "$JS.API.INFO" -}}
{{- range $action := list "INFO" "CREATE" "UPDATE" -}}
{{- range $stream := list $jobs $dead $events -}}
{{- $publish = append $publish (printf "$JS.API.STREAM.%s.%s" $action $stream) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if eq .name "jobs" -}}
{{- range $action := list "INFO" "CREATE" "DURABLE.CREATE" "MSG.NEXT" -}}
{{- $publish = append $publish (printf "$JS.API.CONSUMER.%s.%s.>" $action $jobs) -}}
{{- end -}}
{{- $publish = append $publish (printf "$JS.ACK.%s.>" $jobs) -}}
{{- range $action := list "INFO" "CREATE" "DURABLE.CREATE" "MSG.NEXT" -}}
{{- $publish = append $publish (printf "$JS.API.CONSUMER.%s.%s.>" $action $events) -}}
{{- end -}}
{{- $publish = append $publish (printf "$JS.ACK.%s.>" $events) -}}
{{- $publish = append $publish (printf "%s.dead.>" $prefix) -}}
{{- range $action := list "STREAM.MSG.GET" "DIRECT.GET" "STREAM.MSG.DELETE" -}}
{{- $publish = append $publish (printf "$JS.API.%s.%s" $action $dead) -}}
{{- end -}}
{{- $publish = append $publish (printf "%s.jobs.>" $prefix) -}}
{{- else -}}
{{- range $subject := .unit.natsPublishes | default list -}}
{{- $publish = append $publish (printf "%s.%s" $prefix $subject) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "publish" $publish "subscribe" (list (printf "_INBOX_%s.>" .name))) -}}
{{- end -}}

{{/*
A value as an environment variable string. Helm reads numbers from YAML as
float64, and toString would print 1048576 as 1.048576e+06; the schema allows
only integers, strings and booleans.
*/}}
{{- define "latchkey.envValue" -}}
{{- if kindIs "float64" . -}}
{{- int64 . | toString -}}
{{- else if kindIs "invalid" . -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/*
The non-secret variables of one unit, as YAML (name => string): the shared
config names it lists, its ports, the address of every unit it calls, the
mTLS files, its NATS user, then its own env (which wins). Empty values are
left out so the process default applies. With "migration" true the mTLS
files and the NATS user are left out: a migration talks to the database
only.
*/}}
{{- define "latchkey.unitEnv" -}}
{{- $root := .root -}}
{{- $env := dict -}}
{{- range $key := .unit.config -}}
{{- $value := include "latchkey.envValue" (index $root.Values.config $key) -}}
{{- if ne $value "" -}}
{{- $_ := set $env $key $value -}}
{{- end -}}
{{- end -}}
{{- range $portName, $port := .unit.ports -}}
{{- if $port.env -}}
{{- $_ := set $env $port.env (include "latchkey.envValue" $port.port) -}}
{{- end -}}
{{- end -}}
{{- range $callee := .unit.calls -}}
{{- $target := index $.units $callee -}}
{{- $address := printf "%s:%s" (include "latchkey.unitFullname" (dict "root" $root "name" $callee)) (include "latchkey.envValue" $target.ports.grpc.port) -}}
{{- $_ := set $env (printf "%s_GRPC_ADDRESS" ($callee | replace "-" "_" | upper)) $address -}}
{{- end -}}
{{- if and (include "latchkey.usesMtls" .) (not .migration) -}}
{{- $dir := trimSuffix "/" $root.Values.mtls.mountPath -}}
{{- $_ := set $env "GRPC_TLS_CERT_FILE" (printf "%s/tls.crt" $dir) -}}
{{- $_ := set $env "GRPC_TLS_KEY_FILE" (printf "%s/tls.key" $dir) -}}
{{- $_ := set $env "GRPC_TLS_CA_FILE" (include "latchkey.trustedCaFile" $root) -}}
{{- if include "latchkey.platformPort" . -}}
{{- $_ := set $env "PLATFORM_TLS_CA_FILE" (printf "%s/ca.crt" (trimSuffix "/" $root.Values.mtls.platformClients.mountPath)) -}}
{{- end -}}
{{- if include "latchkey.carriesAdminCli" . -}}
{{- $cli := trimSuffix "/" $root.Values.mtls.adminCli.mountPath -}}
{{- $_ := set $env "ADMIN_TLS_CERT_FILE" (printf "%s/tls.crt" $cli) -}}
{{- $_ := set $env "ADMIN_TLS_KEY_FILE" (printf "%s/tls.key" $cli) -}}
{{- end -}}
{{- end -}}
{{- if and $root.Values.natsAuth.enabled (include "latchkey.usesNats" .) (not .migration) -}}
{{- $_ := set $env "NATS_USER" .name -}}
{{- $credentials := include "latchkey.natsCredentialsKey" (dict "root" $root "name" .name) -}}
{{- if $credentials -}}
{{- $file := printf "%s/%s" (trimSuffix "/" $root.Values.natsAuth.mountPath) $credentials -}}
{{- $_ := set $env (ternary "NATS_NKEY_SEED_FILE" "NATS_CREDS_FILE" (eq $root.Values.natsAuth.mode "nkey")) $file -}}
{{- end -}}
{{- end -}}
{{- if eq .unit.kind "http" -}}
{{- $_ := set $env "WEB_APP_ENABLED" (include "latchkey.envValue" $root.Values.web.enabled) -}}
{{- end -}}
{{- /* The OpenID Provider (docs/oidc.md): the gateway serves it, the jobs worker sends its back-channel logouts. */ -}}
{{- if or (eq .unit.kind "http") (eq .name "jobs") -}}
{{- $_ := set $env "OIDC_ENABLED" (include "latchkey.envValue" $root.Values.oidc.enabled) -}}
{{- if $root.Values.oidc.issuer -}}
{{- $_ := set $env "OIDC_ISSUER" $root.Values.oidc.issuer -}}
{{- end -}}
{{- end -}}
{{- if eq .unit.kind "http" -}}
{{- $_ := set $env "OIDC_CLIENTS" (toJson $root.Values.oidc.clients) -}}
{{- $_ := set $env "OIDC_REFRESH_TOKEN_TTL_DAYS" (include "latchkey.envValue" $root.Values.oidc.refreshTokenTtlDays) -}}
{{- end -}}
{{- range $key, $raw := .unit.env -}}
{{- $value := include "latchkey.envValue" $raw -}}
{{- if ne $value "" -}}
{{- $_ := set $env $key $value -}}
{{- else -}}
{{- $_ := unset $env $key -}}
{{- end -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/* ConfigMap data block: every value quoted. */}}
{{- define "latchkey.configMapData" -}}
{{- $env := include "latchkey.unitEnv" . | fromYaml -}}
{{- range $key := keys $env | sortAlpha }}
{{ $key }}: {{ index $env $key | quote }}
{{- end -}}
{{- end -}}

{{/*
Secret data (base64) for the given keys of the chart's Secret: a variable
of secrets.values (DATABASE_URL), or one unit's of secrets.unitValues
(identity.DATABASE_URL).
*/}}
{{- define "latchkey.secretData" -}}
{{- $root := .root -}}
{{- range $key := .names | uniq | sortAlpha }}
{{- $value := "" -}}
{{- if contains "." $key -}}
{{- $unitValues := get ($root.Values.secrets.unitValues | default dict) (splitList "." $key | first) | default dict -}}
{{- $value = include "latchkey.envValue" (get $unitValues (splitList "." $key | last)) -}}
{{- else -}}
{{- $value = include "latchkey.envValue" (index $root.Values.secrets.values $key) -}}
{{- end -}}
{{- if ne $value "" }}
{{ $key }}: {{ $value | b64enc | quote }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Where unit .name reads secret variable .key, as JSON {name, key}: a name
for a Secret of elsewhere, none for the chart's own (or existingSecret).
For one unit first (secrets.unitRefs, then secrets.unitValues, kept in the
chart's Secret as <unit>.<VARIABLE>), then for every unit (secrets.refs,
then the variable's own key). Takes root, name and key.
*/}}
{{- define "latchkey.secretSource" -}}
{{- $secrets := .root.Values.secrets -}}
{{- $unitRefs := get ($secrets.unitRefs | default dict) .name | default dict -}}
{{- $unitValues := get ($secrets.unitValues | default dict) .name | default dict -}}
{{- $refs := $secrets.refs | default dict -}}
{{- if hasKey $unitRefs .key -}}
{{- $ref := get $unitRefs .key -}}
{{- toJson (dict "name" $ref.name "key" $ref.key) -}}
{{- else if and (not $secrets.existingSecret) (ne (include "latchkey.envValue" (get $unitValues .key)) "") -}}
{{- toJson (dict "key" (printf "%s.%s" .name .key)) -}}
{{- else if hasKey $refs .key -}}
{{- $ref := get $refs .key -}}
{{- toJson (dict "name" $ref.name "key" $ref.key) -}}
{{- else -}}
{{- toJson (dict "key" .key) -}}
{{- end -}}
{{- end -}}

{{/* Every Secret key a unit reads: its secrets, then its optionalSecrets. */}}
{{- define "latchkey.secretNames" -}}
{{- toJson (concat .unit.secrets .unit.optionalSecrets) -}}
{{- end -}}

{{/* The keys of the chart's own Secret that a unit reads: its secret variables that no ref names elsewhere. Takes root, name and unit. */}}
{{- define "latchkey.ownSecretNames" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $own := list -}}
{{- range $key := concat .unit.secrets .unit.optionalSecrets -}}
{{- $source := include "latchkey.secretSource" (dict "root" $root "name" $name "key" $key) | fromJson -}}
{{- if not (or $source.name (include "latchkey.composed" (dict "root" $root "name" $name "key" $key))) -}}
{{- $own = append $own $source.key -}}
{{- end -}}
{{- end -}}
{{- toJson $own -}}
{{- end -}}

{{/* "true" when secrets.unitValues or secrets.unitRefs give unit .name its own .key. */}}
{{- define "latchkey.unitSecretGiven" -}}
{{- $secrets := .root.Values.secrets -}}
{{- $unitRefs := get ($secrets.unitRefs | default dict) .name | default dict -}}
{{- $unitValues := get ($secrets.unitValues | default dict) .name | default dict -}}
{{- if or (hasKey $unitRefs .key) (ne (include "latchkey.envValue" (get $unitValues .key)) "") (include "latchkey.composed" .) -}}true{{- end -}}
{{- end -}}

{{/*
"true" when unit .name's secret variable .key is composed from
`connections` (docs/operations.md, "Connection parts") rather than read
from a Secret: DATABASE_URL, DATABASE_SESSION_URL and DATABASE_READ_URL
from connections.database, REDIS_URL and REDIS_PASSWORD from
connections.redis; never over the unit's own secrets.unitRefs or
unitValues. Takes root, name and key.
*/}}
{{- define "latchkey.composed" -}}
{{- $secrets := .root.Values.secrets -}}
{{- $unitRefs := get ($secrets.unitRefs | default dict) .name | default dict -}}
{{- $unitValues := get ($secrets.unitValues | default dict) .name | default dict -}}
{{- $own := or (hasKey $unitRefs .key) (and (not $secrets.existingSecret) (ne (include "latchkey.envValue" (get $unitValues .key)) "")) -}}
{{- $connections := .root.Values.connections | default dict -}}
{{- $database := $connections.database | default dict -}}
{{- $redis := $connections.redis | default dict -}}
{{- $parts := dict
  "DATABASE_URL" $database.enabled
  "DATABASE_SESSION_URL" (and $database.enabled $database.sessionHost)
  "DATABASE_READ_URL" (and $database.enabled $database.readHost)
  "REDIS_URL" $redis.enabled
  "REDIS_PASSWORD" (and $redis.enabled ($redis.password).name) -}}
{{- if and (not $own) (get $parts .key) -}}true{{- end -}}
{{- end -}}

{{/*
env entries of the variables unit .name composes from `connections`: each
part kept in a Secret as a variable of its own (LATCHKEY_DATABASE_PASSWORD,
...), then the URLs, which the kubelet expands from them ($(VAR)). Takes
root, name and unit.
*/}}
{{- define "latchkey.connectionEnv" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $reads := concat .unit.secrets .unit.optionalSecrets -}}
{{- $composed := list -}}
{{- range $key := $reads -}}
{{- if include "latchkey.composed" (dict "root" $root "name" $name "key" $key) -}}
{{- $composed = append $composed $key -}}
{{- end -}}
{{- end -}}
{{- $entries := list -}}
{{- $database := $root.Values.connections.database -}}
{{- if or (has "DATABASE_URL" $composed) (has "DATABASE_SESSION_URL" $composed) (has "DATABASE_READ_URL" $composed) -}}
{{- $part := dict -}}
{{- range $field := list "host" "port" "sessionHost" "sessionPort" "readHost" "readPort" "database" "username" "password" -}}
{{- $value := index $database $field -}}
{{- if kindIs "map" $value -}}
{{- $variable := printf "LATCHKEY_DATABASE_%s" (snakecase $field | upper) -}}
{{- $entries = append $entries (dict "name" $variable "valueFrom" (dict "secretKeyRef" (dict "name" $value.name "key" $value.key))) -}}
{{- $_ := set $part $field (printf "$(%s)" $variable) -}}
{{- else -}}
{{- $_ := set $part $field (include "latchkey.envValue" $value) -}}
{{- end -}}
{{- end -}}
{{- if eq $part.database "" -}}
{{- $_ := set $part "database" "latchkey" -}}
{{- end -}}
{{- $query := ternary (printf "?%s" $database.parameters) "" (ne (toString $database.parameters) "") -}}
{{- $url := dict
  "DATABASE_URL" (list $part.host $part.port)
  "DATABASE_SESSION_URL" (list $part.sessionHost $part.sessionPort)
  "DATABASE_READ_URL" (list $part.readHost $part.readPort) -}}
{{- range $key := list "DATABASE_URL" "DATABASE_SESSION_URL" "DATABASE_READ_URL" -}}
{{- if has $key $composed -}}
{{- $at := index $url $key -}}
{{- $entries = append $entries (dict "name" $key "value" (printf "postgres://%s:%s@%s:%s/%s%s" $part.username $part.password (index $at 0) (index $at 1) $part.database $query)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $redis := $root.Values.connections.redis -}}
{{- if has "REDIS_PASSWORD" $composed -}}
{{- $entries = append $entries (dict "name" "REDIS_PASSWORD" "valueFrom" (dict "secretKeyRef" (dict "name" $redis.password.name "key" $redis.password.key))) -}}
{{- end -}}
{{- if has "REDIS_URL" $composed -}}
{{- $part := dict -}}
{{- range $field := list "host" "port" -}}
{{- $value := index $redis $field -}}
{{- if kindIs "map" $value -}}
{{- $variable := printf "LATCHKEY_REDIS_%s" (upper $field) -}}
{{- $entries = append $entries (dict "name" $variable "valueFrom" (dict "secretKeyRef" (dict "name" $value.name "key" $value.key))) -}}
{{- $_ := set $part $field (printf "$(%s)" $variable) -}}
{{- else -}}
{{- $_ := set $part $field (include "latchkey.envValue" $value) -}}
{{- end -}}
{{- end -}}
{{- $entries = append $entries (dict "name" "REDIS_URL" "value" (printf "redis://%s:%s/%s" $part.host $part.port (include "latchkey.envValue" $redis.db))) -}}
{{- end -}}
{{- toYaml $entries -}}
{{- end -}}

{{/* The Secrets that unit .name's `connections` parts come from. Takes root, name and unit. */}}
{{- define "latchkey.connectionSecrets" -}}
{{- $names := list -}}
{{- range $entry := include "latchkey.connectionEnv" . | fromYamlArray -}}
{{- with $entry.valueFrom -}}
{{- $names = append $names .secretKeyRef.name -}}
{{- end -}}
{{- end -}}
{{- toJson ($names | uniq) -}}
{{- end -}}

{{/*
"true" when a unit's required secret is not needed by the configuration:
REDIS_URL outside REDIS_MODE standalone. It is then read as an optional key.
*/}}
{{- define "latchkey.secretUnneeded" -}}
{{- if and (eq .key "REDIS_URL") (ne (toString (.root.Values.config.REDIS_MODE | default "standalone")) "standalone") -}}true{{- end -}}
{{- end -}}

{{/*
env entries that read the unit's secret variables from a Secret. Optional
ones are marked so: a key missing from the Secret leaves the variable unset
instead of stopping the pod. With config.NODE_ENV production, an optional
secret the unit lists in requiredInProduction is a required key. Takes root,
name, unit and secretName.
*/}}
{{- define "latchkey.secretEnv" -}}
{{- $secretName := .secretName -}}
{{- $production := eq (toString .root.Values.config.NODE_ENV) "production" -}}
{{- $unit := .unit -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- with include "latchkey.connectionEnv" . | fromYamlArray }}
{{ toYaml . }}
{{- end }}
{{- range $key := .unit.secrets }}
{{- if not (include "latchkey.composed" (dict "root" $root "name" $name "key" $key)) }}
{{- $source := include "latchkey.secretSource" (dict "root" $root "name" $name "key" $key) | fromJson }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $source.name | default $secretName }}
      key: {{ $source.key }}
      {{- if include "latchkey.secretUnneeded" (dict "root" $root "key" $key) }}
      optional: true
      {{- end }}
{{- end }}
{{- end -}}
{{- range $key := .unit.optionalSecrets }}
{{- if not (include "latchkey.composed" (dict "root" $root "name" $name "key" $key)) }}
{{- $source := include "latchkey.secretSource" (dict "root" $root "name" $name "key" $key) | fromJson }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $source.name | default $secretName }}
      key: {{ $source.key }}
      {{- if not (and $production (has $key $unit.requiredInProduction)) }}
      optional: true
      {{- end }}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
The Secrets a unit's pods read, comma-separated, for Reloader's
secret.reloader.stakater.com/reload (secrets.reloader): credentials, the
NATS password, and with mTLS the unit's certificate, the platform clients'
CA and latchkey-admin's certificate.
*/}}
{{- define "latchkey.readSecrets" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $names := list -}}
{{- range $key := concat .unit.secrets .unit.optionalSecrets -}}
{{- if not (include "latchkey.composed" (dict "root" $root "name" $name "key" $key)) -}}
{{- $source := include "latchkey.secretSource" (dict "root" $root "name" $name "key" $key) | fromJson -}}
{{- $names = append $names ($source.name | default (include "latchkey.secretName" $root)) -}}
{{- end -}}
{{- end -}}
{{- $names = concat $names (include "latchkey.connectionSecrets" . | fromJsonArray) -}}
{{- $names = concat $names ((include "latchkey.extraSources" . | fromYaml).secrets | default list) -}}
{{- if and $root.Values.natsAuth.enabled (include "latchkey.usesNats" .) -}}
{{- $names = append $names (include "latchkey.natsUsersSecretName" $root) -}}
{{- end -}}
{{- if include "latchkey.usesMtls" . -}}
{{- $names = append $names (include "latchkey.mtlsSecretName" .) -}}
{{- if include "latchkey.platformPort" . -}}
{{- $names = append $names $root.Values.mtls.platformClients.caSecretName -}}
{{- end -}}
{{- if include "latchkey.carriesAdminCli" . -}}
{{- $names = append $names (include "latchkey.adminCliSecretName" $root) -}}
{{- end -}}
{{- end -}}
{{- $names | uniq | sortAlpha | join "," -}}
{{- end -}}

{{- define "latchkey.image" -}}
{{- $root := .root -}}
{{- $repository := .unit.image.repository -}}
{{- $registry := trimSuffix "/" $root.Values.global.imageRegistry -}}
{{- if $registry -}}
{{- $repository = printf "%s/%s" $registry $repository -}}
{{- end -}}
{{- $tag := .unit.image.tag | default $root.Values.image.tag | default $root.Chart.AppVersion | toString -}}
{{- if hasPrefix "sha256:" $tag -}}
{{- printf "%s@%s" $repository $tag -}}
{{- else -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "latchkey.imagePullPolicy" -}}
{{- .unit.image.pullPolicy | default .root.Values.image.pullPolicy -}}
{{- end -}}

{{- define "latchkey.imagePullSecrets" -}}
{{- with .Values.global.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Hardened security contexts. Only the user and groups are values
(podSecurity): null leaves one unset for a platform that assigns it
(OpenShift's restricted SCC); non-root, no privilege, no capabilities and a
read-only root filesystem are not negotiable.
*/}}
{{- define "latchkey.runAs" -}}
{{- $ids := .Values.podSecurity | default dict -}}
{{- range $field := list "runAsUser" "runAsGroup" -}}
{{- $id := index $ids $field -}}
{{- if not (kindIs "invalid" $id) }}
{{ $field }}: {{ int64 $id }}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "latchkey.podSecurityContext" -}}
runAsNonRoot: true
{{- include "latchkey.runAs" . }}
{{- $fsGroup := (.Values.podSecurity | default dict).fsGroup }}
{{- if not (kindIs "invalid" $fsGroup) }}
fsGroup: {{ int64 $fsGroup }}
{{- end }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "latchkey.containerSecurityContext" -}}
runAsNonRoot: true
{{- include "latchkey.runAs" . }}
privileged: false
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
Probes, over HTTP, the same with and without mTLS (the kubelet could not
present a client certificate to a gRPC probe): /healthz for liveness and
startup (the process answers; never a dependency), /readyz for readiness
(the unit can take work: a service's database answers; the gateway is not
draining, whatever its dependencies; docs/operations.md, "Probes"). HTTP
units on their HTTP port, the others on their metrics port.
*/}}
{{- define "latchkey.probes" -}}
{{- $unit := .unit -}}
{{- $httpPort := ternary "http" "metrics" (eq $unit.kind "http") -}}
{{- range $probe := list "startup" "liveness" "readiness" }}
{{ $probe }}Probe:
  httpGet:
    path: {{ ternary "/readyz" "/healthz" (eq $probe "readiness") }}
    port: {{ $httpPort }}
  {{- with (index $unit.probes $probe) }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/*
Every enabled unit (as "latchkey.units"), after the checks that the schema
cannot express: cross-references between values. Every template starts
with it, so a mistake fails with one clear message whichever file Helm
renders first.
*/}}
{{/*
"true" when a secret value is one of the development defaults this
repository publishes (values.yaml, k8s/values-dev.yaml): the TOTP key, the
S3 keys, the password `latchkey` inside a backing-service URL, and the
signing keys (their `d`; of the RSA key's, the first 43 characters). The
units refuse them in production too (packages/config).
*/}}
{{- define "latchkey.isDevelopmentSecret" -}}
{{- $published := list "bGF0Y2hrZXktZGV2LXRvdHAta2V5LW5vdC1zZWNyZXQ=" "latchkey-dev-secret" "S3RVER" -}}
{{- range $part := splitList "," . -}}
{{- if has (trim $part) $published -}}true{{- end -}}
{{- end -}}
{{- if contains ":latchkey@" . -}}true{{- end -}}
{{- if contains "bkf76sntkX_Yd_Kln4T1NV8yABYvcF8sLLk_JTrHVlw" . -}}true{{- end -}}
{{- if contains "PMT7br9VFXt6a5dB0ZYdaMYP8VEtv3q5PmxkaNPk5Bx" . -}}true{{- end -}}
{{- end -}}

{{- define "latchkey.checkedUnits" -}}
{{- $units := include "latchkey.units" . | fromYaml -}}
{{- include "latchkey.validate" (dict "root" . "units" $units) -}}
{{- toYaml $units -}}
{{- end -}}

{{- define "latchkey.validate" -}}
{{- $root := .root -}}
{{- $units := .units -}}
{{- if eq (len $units) 0 -}}
{{- fail "no unit is enabled" -}}
{{- end -}}
{{- /* The values schema sees only the blocks under `units`; the shape of each unit, catalogue.yaml merged in, is checked here. */ -}}
{{- $portsOfKind := dict "http" (list "http" "metrics") "grpc" (list "grpc" "metrics") "worker" (list "metrics") -}}
{{- range $name, $unit := $units -}}
{{- if not (hasKey $portsOfKind (toString $unit.kind)) -}}
{{- fail (printf "units.%s.kind must be http, grpc or worker (a unit that is not in catalogue.yaml declares its kind, image, args and ports)" $name) -}}
{{- end -}}
{{- if not (and $unit.image $unit.image.repository) -}}
{{- fail (printf "units.%s.image.repository is required" $name) -}}
{{- end -}}
{{- if not $unit.args -}}
{{- fail (printf "units.%s.args is required" $name) -}}
{{- end -}}
{{- range $port := index $portsOfKind $unit.kind -}}
{{- if not (index ($unit.ports | default dict) $port) -}}
{{- fail (printf "units.%s.ports.%s is required for a %s unit" $name $port $unit.kind) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and (eq (toString $root.Values.config.NODE_ENV) "production") (not $root.Values.mtls.enabled) -}}
{{- fail "mtls.enabled is required when config.NODE_ENV is production: the units refuse to serve without their certificates (docs/operations.md, \"Mutual TLS\")" -}}
{{- end -}}
{{- if and $root.Values.mtls.enabled (not $root.Values.mtls.platformClients.caSecretName) -}}
{{- fail "mtls.platformClients.caSecretName is required with mtls.enabled: the Secret (key ca.crt) of the CA that signs the platform clients' certificates (docs/operations.md, \"Mutual TLS\")" -}}
{{- end -}}
{{- if and $root.Values.mtls.enabled $root.Values.mtls.certManager.enabled $root.Values.mtls.adminCli.enabled (not $root.Values.mtls.adminCli.secretName) (not $root.Values.mtls.certManager.platformIssuerRef.name) -}}
{{- fail "mtls.certManager.platformIssuerRef.name is required for latchkey-admin's certificate (mtls.adminCli), or set mtls.adminCli.secretName to a Secret you make, or mtls.adminCli.enabled: false" -}}
{{- end -}}
{{- if and (eq (toString $root.Values.config.NODE_ENV) "production") (not $root.Values.secrets.existingSecret) -}}
{{- range $key, $value := $root.Values.secrets.values -}}
{{- if include "latchkey.isDevelopmentSecret" (include "latchkey.envValue" $value) -}}
{{- fail (printf "secrets.values.%s is a development default published with the chart; in production set your own, or use secrets.existingSecret" $key) -}}
{{- end -}}
{{- end -}}
{{- range $name, $given := ($root.Values.secrets.unitValues | default dict) -}}
{{- range $key, $value := $given -}}
{{- if include "latchkey.isDevelopmentSecret" (include "latchkey.envValue" $value) -}}
{{- fail (printf "secrets.unitValues.%s.%s is a development default published with the chart; in production set your own" $name $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $signingKeys := include "latchkey.envValue" $root.Values.secrets.values.AUTH_JWT_SIGNING_KEYS -}}
{{- if and $root.Values.oidc.enabled (not $root.Values.secrets.existingSecret) $signingKeys (not (regexMatch "\"kty\"\\s*:\\s*\"RSA\"" $signingKeys)) -}}
{{- fail "secrets.values.AUTH_JWT_SIGNING_KEYS needs an RSA key (2048 bits or more) with oidc.enabled: RS256 signs the ID tokens of every client that names no algorithm (docs/operations.md, \"The OpenID Provider\")" -}}
{{- end -}}
{{- if $root.Values.natsAuth.enabled -}}
{{- $natsMode := $root.Values.natsAuth.mode -}}
{{- range $key := list "NATS_CREDS_FILE" "NATS_NKEY_SEED_FILE" -}}
{{- if include "latchkey.envValue" (index $root.Values.config $key) -}}
{{- fail (printf "config.%s and natsAuth.enabled are alternatives: with natsAuth the chart gives each unit its own credentials (natsAuth.mode)" $key) -}}
{{- end -}}
{{- end -}}
{{- if and (ne $natsMode "password") (not $root.Values.natsAuth.existingSecret) -}}
{{- fail (printf "natsAuth.mode %s needs natsAuth.existingSecret, the Secret with a key <unit>%s per unit that uses NATS (docs/operations.md, \"NATS permissions\")" $natsMode (ternary ".nk (made by pnpm nats:keys nkey)" ".creds (made by nsc)" (eq $natsMode "nkey"))) -}}
{{- end -}}
{{- if eq $natsMode "nkey" -}}
{{- range $name, $unit := $units -}}
{{- if and (include "latchkey.usesNats" (dict "unit" $unit)) (not (index ($root.Values.natsAuth.nkeys | default dict) $name)) -}}
{{- fail (printf "natsAuth.nkeys.%s, the public NKey of units.%s, is required with natsAuth.mode nkey (pnpm nats:keys nkey prints them)" $name $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $name, $unit := $units -}}
{{- if and (eq $natsMode "password") (include "latchkey.usesNats" (dict "unit" $unit)) (not $root.Values.natsAuth.existingSecret) -}}
{{- $password := include "latchkey.natsPassword" (dict "root" $root "name" $name) -}}
{{- if eq $password "" -}}
{{- fail (printf "natsAuth.passwords.%s is required by units.%s (or set natsAuth.existingSecret)" $name $name) -}}
{{- end -}}
{{- if and (eq (toString $root.Values.config.NODE_ENV) "production") (hasPrefix "latchkey-dev-nats-" $password) -}}
{{- fail (printf "natsAuth.passwords.%s is a development default published with the chart; in production set your own, or use natsAuth.existingSecret" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $name, $unit := $units -}}
{{- range $key := $unit.config -}}
{{- if not (hasKey $root.Values.config $key) -}}
{{- fail (printf "units.%s.config lists %s, which is not a key of config" $name $key) -}}
{{- end -}}
{{- end -}}
{{- range $key := $unit.optionalSecrets -}}
{{- if not (hasKey $root.Values.secrets.values $key) -}}
{{- fail (printf "units.%s.optionalSecrets lists %s, which is not a key of secrets.values" $name $key) -}}
{{- end -}}
{{- if has $key $unit.secrets -}}
{{- fail (printf "units.%s lists %s in both secrets and optionalSecrets" $name $key) -}}
{{- end -}}
{{- end -}}
{{- range $key := $unit.secrets -}}
{{- if not (hasKey $root.Values.secrets.values $key) -}}
{{- fail (printf "units.%s.secrets lists %s, which is not a key of secrets.values" $name $key) -}}
{{- end -}}
{{- if and (not $root.Values.secrets.existingSecret) (not (hasKey ($root.Values.secrets.refs | default dict) $key)) (not (include "latchkey.unitSecretGiven" (dict "root" $root "name" $name "key" $key))) (eq (include "latchkey.envValue" (index $root.Values.secrets.values $key)) "") (not (include "latchkey.secretUnneeded" (dict "root" $root "key" $key))) -}}
{{- fail (printf "secrets.values.%s is required by units.%s (or set secrets.existingSecret)" $key $name) -}}
{{- end -}}
{{- end -}}
{{- $production := eq (toString $root.Values.config.NODE_ENV) "production" -}}
{{- range $key := $unit.requiredInProduction -}}
{{- $inConfig := has $key $unit.config -}}
{{- if not (or $inConfig (has $key $unit.optionalSecrets) (has $key $unit.secrets)) -}}
{{- fail (printf "units.%s.requiredInProduction lists %s, which is not in its config, secrets or optionalSecrets" $name $key) -}}
{{- end -}}
{{- if $production -}}
{{- if $inConfig -}}
{{- if eq (include "latchkey.envValue" (index $root.Values.config $key)) "" -}}
{{- fail (printf "config.%s is required by units.%s when config.NODE_ENV is production" $key $name) -}}
{{- end -}}
{{- else if and (not $root.Values.secrets.existingSecret) (eq (include "latchkey.envValue" (index $root.Values.secrets.values $key)) "") -}}
{{- fail (printf "secrets.values.%s is required by units.%s when config.NODE_ENV is production (or set secrets.existingSecret)" $key $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $key := $unit.config -}}
{{- if hasSuffix "_REDIRECT_URI" $key -}}
{{- $uri := include "latchkey.envValue" (index $root.Values.config $key) -}}
{{- if ne $uri "" -}}
{{- include "latchkey.checkRedirectUri" (dict "root" $root "key" $key "uri" $uri) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $callee := $unit.calls -}}
{{- $target := index $units $callee -}}
{{- if not $target -}}
{{- fail (printf "units.%s.calls %s, which is not an enabled unit" $name $callee) -}}
{{- end -}}
{{- if ne $target.kind "grpc" -}}
{{- fail (printf "units.%s.calls %s, which is not a gRPC unit" $name $callee) -}}
{{- end -}}
{{- end -}}
{{- if and $unit.migrations.enabled (eq (len $unit.migrations.args) 0) -}}
{{- fail (printf "units.%s.migrations.args is required when migrations are enabled" $name) -}}
{{- end -}}
{{- with (index $unit.env "ADMIN_GRPC_ALLOWED_CALLERS") -}}
{{- $parsed := toString . | fromJson -}}
{{- if hasKey $parsed "Error" -}}
{{- fail (printf "units.%s.env.ADMIN_GRPC_ALLOWED_CALLERS is not JSON: %s" $name $parsed.Error) -}}
{{- end -}}
{{- range $rpc, $names := $parsed -}}
{{- if not (kindIs "slice" $names) -}}
{{- fail (printf "units.%s.env.ADMIN_GRPC_ALLOWED_CALLERS: %s must list certificate names" $name $rpc) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $unit.autoscaling.enabled (gt (int64 $unit.autoscaling.minReplicas) (int64 $unit.autoscaling.maxReplicas)) -}}
{{- fail (printf "units.%s.autoscaling.minReplicas is greater than maxReplicas" $name) -}}
{{- end -}}
{{- end -}}
{{- range $kind := list "unitValues" "unitRefs" -}}
{{- range $name, $given := (get $root.Values.secrets $kind | default dict) -}}
{{- $unit := index $units $name -}}
{{- if not $unit -}}
{{- fail (printf "secrets.%s.%s: %s is not an enabled unit" $kind $name $name) -}}
{{- end -}}
{{- range $key, $_ := $given -}}
{{- if not (has $key (concat $unit.secrets $unit.optionalSecrets)) -}}
{{- fail (printf "secrets.%s.%s.%s: units.%s reads no secret %s" $kind $name $key $name $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $root.Values.ingress.enabled (not (hasKey $units "gateway")) -}}
{{- fail "ingress.enabled needs the gateway unit" -}}
{{- end -}}
{{- end -}}

{{/*
An OAuth redirect URI is a page of the client application: under
PUBLIC_APP_URL or an origin of ALLOWED_ORIGINS (the gateway accepts the
page's POST of code and state only from those), without a query string or
fragment (the token request's redirect_uri is derived without them).
*/}}
{{- define "latchkey.checkRedirectUri" -}}
{{- $root := .root -}}
{{- $uri := .uri -}}
{{- if or (contains "?" $uri) (contains "#" $uri) -}}
{{- fail (printf "config.%s must have no query string or fragment: %s" .key $uri) -}}
{{- end -}}
{{- $bases := list (toString $root.Values.config.PUBLIC_APP_URL) -}}
{{- range $origin := splitList "," (toString $root.Values.config.ALLOWED_ORIGINS) -}}
{{- if trim $origin -}}
{{- $bases = append $bases (trim $origin) -}}
{{- end -}}
{{- end -}}
{{- $ok := false -}}
{{- range $base := $bases -}}
{{- if hasPrefix (printf "%s/" (trimSuffix "/" $base)) $uri -}}
{{- $ok = true -}}
{{- end -}}
{{- end -}}
{{- if not $ok -}}
{{- fail (printf "config.%s (%s) must be a page of the client application under config.PUBLIC_APP_URL (%s) or an origin of config.ALLOWED_ORIGINS" .key $uri $root.Values.config.PUBLIC_APP_URL) -}}
{{- end -}}
{{- end -}}

{{/*
The ports of the addresses in a comma-separated list of URLs or host:port
pairs, as JSON: each one's explicit port, else its scheme's own (https
443, http 80, postgres 5432, redis(s) 6379, nats and tls 4222, smtp 25,
smtps 465). Addresses the kubelet composes ($(VAR)) are left out: their
ports come from `connections`.
*/}}
{{- define "latchkey.addressPorts" -}}
{{- $defaults := dict "https" 443 "http" 80 "postgres" 5432 "postgresql" 5432 "redis" 6379 "rediss" 6379 "nats" 4222 "tls" 4222 "smtp" 25 "smtps" 465 -}}
{{- $ports := list -}}
{{- range $address := splitList "," (toString .) -}}
{{- $address = trim $address -}}
{{- if and $address (not (contains "$(" $address)) -}}
{{- $scheme := "" -}}
{{- $host := $address -}}
{{- if contains "://" $address -}}
{{- $parsed := urlParse $address -}}
{{- $scheme = $parsed.scheme -}}
{{- $host = $parsed.host -}}
{{- end -}}
{{- $port := regexFind ":[0-9]+$" $host | trimPrefix ":" -}}
{{- if $port -}}
{{- $ports = append $ports (atoi $port) -}}
{{- else if hasKey $defaults $scheme -}}
{{- $ports = append $ports (index $defaults $scheme) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toJson $ports -}}
{{- end -}}

{{/*
The value of unit .name's secret variable .key as the chart can see it:
its own secrets.unitValues, or secrets.values; "" when it is kept in a
Secret the chart does not render (existingSecret, refs, unitRefs) or
composed from `connections`. Takes root, name and key.
*/}}
{{- define "latchkey.visibleSecret" -}}
{{- $secrets := .root.Values.secrets -}}
{{- $source := include "latchkey.secretSource" . | fromJson -}}
{{- if not (or $source.name $secrets.existingSecret (include "latchkey.composed" .)) -}}
{{- if contains "." $source.key -}}
{{- include "latchkey.envValue" (get (get ($secrets.unitValues | default dict) .name | default dict) .key) -}}
{{- else -}}
{{- include "latchkey.envValue" (index $secrets.values .key) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The ports of backing service .service that unit .name reaches, as JSON:
networkPolicy.egress.<service>.ports, and every port its configuration
names for that service (docs/operations.md, "Ports per topology"): the
URLs of its database, Redis (REDIS_URL in standalone mode, the sentinels
in sentinel mode, the nodes in cluster mode), NATS, OpenSearch, the object
store, SMTP and the OTLP collector, and the ports of `connections`. Takes
root, name, unit and service.
*/}}
{{- define "latchkey.egressPorts" -}}
{{- $root := .root -}}
{{- $config := $root.Values.config -}}
{{- $reads := concat .unit.secrets .unit.optionalSecrets .unit.config -}}
{{- $ports := list -}}
{{- range $port := (index $root.Values.networkPolicy.egress .service).ports | default list -}}
{{- $ports = append $ports (int $port) -}}
{{- end -}}
{{- $secretVariables := dict "postgres" (list "DATABASE_URL" "DATABASE_SESSION_URL" "DATABASE_READ_URL") "nats" (list "NATS_URL") "smtp" (list "SMTP_URL") -}}
{{- $configVariables := dict "s3" (list "S3_ENDPOINT") "otlp" (list "OTEL_EXPORTER_OTLP_ENDPOINT") -}}
{{- $mode := toString ($config.REDIS_MODE | default "standalone") -}}
{{- if eq $mode "standalone" -}}
{{- $_ := set $secretVariables "redis" (list "REDIS_URL") -}}
{{- else -}}
{{- $_ := set $configVariables "redis" (list (ternary "REDIS_SENTINELS" "REDIS_CLUSTER_NODES" (eq $mode "sentinel"))) -}}
{{- end -}}
{{- if eq (toString $config.SEARCH_ENGINE) "opensearch" -}}
{{- $_ := set $configVariables "opensearch" (list "OPENSEARCH_URL") -}}
{{- end -}}
{{- range $key := get $secretVariables .service | default list -}}
{{- if has $key $reads -}}
{{- $ports = concat $ports (include "latchkey.addressPorts" (include "latchkey.visibleSecret" (dict "root" $root "name" $.name "key" $key)) | fromJsonArray) -}}
{{- end -}}
{{- end -}}
{{- range $key := get $configVariables .service | default list -}}
{{- if has $key $reads -}}
{{- $value := include "latchkey.envValue" (index $config $key) -}}
{{- /* An empty S3_ENDPOINT is AWS S3 itself, over https. */ -}}
{{- if and (eq $key "S3_ENDPOINT") (eq $value "") -}}
{{- $value = "https://s3.amazonaws.com" -}}
{{- end -}}
{{- $ports = concat $ports (include "latchkey.addressPorts" $value | fromJsonArray) -}}
{{- end -}}
{{- end -}}
{{- $connections := $root.Values.connections | default dict -}}
{{- $parts := dict "postgres" (list (list "DATABASE_URL" "port") (list "DATABASE_SESSION_URL" "sessionPort") (list "DATABASE_READ_URL" "readPort")) "redis" (list (list "REDIS_URL" "port")) -}}
{{- range $pair := get $parts .service | default list -}}
{{- if and (has (index $pair 0) $reads) (include "latchkey.composed" (dict "root" $root "name" $.name "key" (index $pair 0))) -}}
{{- $port := index (ternary $connections.database $connections.redis (eq $.service "postgres")) (index $pair 1) -}}
{{- if not (kindIs "map" $port) -}}
{{- $ports = append $ports (int $port) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $numbers := list -}}
{{- range $port := $ports -}}
{{- $numbers = append $numbers (int $port) -}}
{{- end -}}
{{- toJson (sortAlpha ($numbers | uniq) | uniq) -}}
{{- end -}}

{{/* NetworkPolicy ports of a list of port numbers (JSON): TCP, and UDP too for DNS. */}}
{{- define "latchkey.policyPorts" -}}
{{- $ports := list -}}
{{- range $port := .ports | fromJsonArray -}}
{{- if $.udp -}}
{{- $ports = append $ports (dict "port" (int $port) "protocol" "UDP") -}}
{{- end -}}
{{- $ports = append $ports (dict "port" (int $port) "protocol" "TCP") -}}
{{- end -}}
{{- toJson $ports -}}
{{- end -}}

{{/*
The egress rule to the cluster's DNS, as JSON: networkPolicy.egress.dns's
preset (kube-dns: kube-system's k8s-app=kube-dns pods on 53; openshift-dns:
the openshift-dns namespace, whose pods listen on 5353), or with preset
custom its `to` and `ports`.
*/}}
{{- define "latchkey.dnsRule" -}}
{{- $dns := .Values.networkPolicy.egress.dns -}}
{{- $presets := dict
  "kube-dns" (dict "to" (list (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" "kube-system")) "podSelector" (dict "matchLabels" (dict "k8s-app" "kube-dns")))) "ports" (list 53))
  "openshift-dns" (dict "to" (list (dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" "openshift-dns")))) "ports" (list 5353))
  "custom" (dict "to" ($dns.to | default list) "ports" ($dns.ports | default list)) -}}
{{- $peer := index $presets (toString $dns.preset) -}}
{{- $rule := dict "ports" (include "latchkey.policyPorts" (dict "ports" (toJson $peer.ports) "udp" true) | fromJsonArray) -}}
{{- if $peer.to -}}
{{- $_ := set $rule "to" $peer.to -}}
{{- end -}}
{{- toJson $rule -}}
{{- end -}}

{{/*
Egress rules of one unit: DNS, the gRPC port of each unit it calls, and
each backing service it uses, told by what it reads (DATABASE_URL:
PostgreSQL, REDIS_URL: Redis, NATS_URL: NATS, S3_ENDPOINT: the object
store, SMTP_URL: SMTP, GOOGLE_CLIENT_ID: the OAuth providers, OPENSEARCH_URL
with SEARCH_ENGINE opensearch: OpenSearch), on the ports
"latchkey.egressPorts" derives, with an OTLP endpoint configured, the
collector, and for the jobs worker with the OpenID Provider on, the
clients' back-channel logout endpoints.
*/}}
{{- define "latchkey.egressRules" -}}
{{- $egress := .root.Values.networkPolicy.egress -}}
{{- $unit := .unit -}}
{{- $reads := concat $unit.secrets $unit.optionalSecrets $unit.config -}}
{{- $services := list -}}
{{- range $pair := list (list "DATABASE_URL" "postgres") (list "REDIS_URL" "redis") (list "NATS_URL" "nats") (list "S3_ENDPOINT" "s3") (list "SMTP_URL" "smtp") (list "GOOGLE_CLIENT_ID" "oauthProviders") -}}
{{- if has (index $pair 0) $reads -}}
{{- $services = append $services (index $pair 1) -}}
{{- end -}}
{{- end -}}
{{- if and (eq (toString .root.Values.config.SEARCH_ENGINE) "opensearch") (has "OPENSEARCH_URL" $reads) -}}
{{- $services = append $services "opensearch" -}}
{{- end -}}
{{- if and .root.Values.config.OTEL_EXPORTER_OTLP_ENDPOINT (has "OTEL_EXPORTER_OTLP_ENDPOINT" $reads) -}}
{{- $services = append $services "otlp" -}}
{{- end -}}
{{- /* The jobs worker posts back-channel logout tokens to the OpenID clients (docs/oidc.md, "Logout"). */ -}}
{{- if and .root.Values.oidc.enabled (eq .name "jobs") -}}
{{- $services = append $services "backchannelLogout" -}}
{{- end -}}
{{- $rules := list (include "latchkey.dnsRule" .root | fromJson) -}}
{{- range $service := $services -}}
{{- $ports := include "latchkey.egressPorts" (dict "root" $.root "name" $.name "unit" $unit "service" $service) -}}
{{- /* A rule without ports would open every port. */ -}}
{{- if ne $ports "[]" -}}
{{- $rule := dict "ports" (include "latchkey.policyPorts" (dict "ports" $ports) | fromJsonArray) -}}
{{- with (index $egress $service).to -}}
{{- $_ := set $rule "to" . -}}
{{- end -}}
{{- $rules = append $rules $rule -}}
{{- end -}}
{{- end -}}
{{- range $callee := $unit.calls -}}
{{- $rules = append $rules (dict "to" (list (dict "podSelector" (dict "matchLabels" (include "latchkey.unitSelectorLabels" (dict "root" $.root "name" $callee) | fromYaml)))) "ports" (list (dict "port" "grpc" "protocol" "TCP"))) -}}
{{- end -}}
{{- $rules = concat $rules ($unit.extraEgress | default list) -}}
{{- toYaml $rules -}}
{{- end -}}

{{/*
Egress rules of a unit's migration Job: DNS and PostgreSQL on the unit's
database ports (a migration talks to nothing else), and the unit's
extraEgress (a database proxy).
*/}}
{{- define "latchkey.migrationEgressRules" -}}
{{- $rule := dict "ports" (include "latchkey.policyPorts" (dict "ports" (include "latchkey.egressPorts" (dict "root" .root "name" .name "unit" .unit "service" "postgres"))) | fromJsonArray) -}}
{{- with .root.Values.networkPolicy.egress.postgres.to -}}
{{- $_ := set $rule "to" . -}}
{{- end -}}
{{- toYaml (concat (list (include "latchkey.dnsRule" .root | fromJson) $rule) (.unit.extraEgress | default list)) -}}
{{- end -}}

{{/*
The envFrom and env of a unit's container: its ConfigMap, its secret
variables, its NATS credentials and its extraEnvFrom and extraEnv. Takes
the unit's context (root, name, unit, units).
*/}}
{{- define "latchkey.containerEnvironment" -}}
{{- $root := .root -}}
envFrom:
  - configMapRef:
      name: {{ include "latchkey.unitFullname" . }}
  {{- with .unit.extraEnvFrom }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- if or (include "latchkey.secretNames" . | fromJsonArray) .unit.extraEnv }}
env:
  {{- include "latchkey.secretEnv" (dict "root" $root "name" .name "unit" .unit "secretName" (include "latchkey.secretName" $root)) | trim | nindent 2 }}
  {{- if and $root.Values.natsAuth.enabled (include "latchkey.usesNats" .) (not (include "latchkey.natsCredentialsKey" (dict "root" $root "name" .name))) }}
  - name: NATS_PASSWORD
    valueFrom:
      secretKeyRef:
        name: {{ include "latchkey.natsUsersSecretName" $root }}
        key: {{ .name }}
  {{- end }}
  {{- with .unit.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* The volumeMounts of a unit's container: /tmp, its mTLS files and its extraVolumeMounts. Takes the unit's context. */}}
{{- define "latchkey.containerMounts" -}}
{{- $root := .root -}}
{{- $mtls := include "latchkey.usesMtls" . -}}
volumeMounts:
  # The root filesystem is read-only; /tmp is the only writable path.
  - name: tmp
    mountPath: /tmp
  {{- if $mtls }}
  - name: mtls
    mountPath: {{ $root.Values.mtls.mountPath }}
    readOnly: true
  {{- end }}
  {{- if and $mtls $root.Values.mtls.trustBundle.configMapName }}
  - name: trust-bundle
    mountPath: {{ $root.Values.mtls.trustBundle.mountPath }}
    readOnly: true
  {{- end }}
  {{- if and $mtls (include "latchkey.platformPort" .) }}
  - name: platform-ca
    mountPath: {{ $root.Values.mtls.platformClients.mountPath }}
    readOnly: true
  {{- end }}
  {{- if include "latchkey.carriesAdminCli" . }}
  - name: admin-cli
    mountPath: {{ $root.Values.mtls.adminCli.mountPath }}
    readOnly: true
  {{- end }}
  {{- if and $root.Values.natsAuth.enabled (include "latchkey.usesNats" .) (include "latchkey.natsCredentialsKey" (dict "root" $root "name" .name)) }}
  - name: nats-credentials
    mountPath: {{ $root.Values.natsAuth.mountPath }}
    readOnly: true
  {{- end }}
  {{- with .unit.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{/*
The Secrets and ConfigMaps a unit's extraEnv, extraEnvFrom and
extraVolumes (projected ones too) name, as YAML {secrets, configMaps}: what
Reloader watches besides the chart's own (secrets.reloader).
*/}}
{{- define "latchkey.extraSources" -}}
{{- $secrets := list -}}
{{- $configMaps := list -}}
{{- range $variable := .unit.extraEnv | default list -}}
{{- with ($variable.valueFrom | default dict).secretKeyRef }}{{ $secrets = append $secrets .name }}{{ end -}}
{{- with ($variable.valueFrom | default dict).configMapKeyRef }}{{ $configMaps = append $configMaps .name }}{{ end -}}
{{- end -}}
{{- range $source := .unit.extraEnvFrom | default list -}}
{{- with $source.secretRef }}{{ $secrets = append $secrets .name }}{{ end -}}
{{- with $source.configMapRef }}{{ $configMaps = append $configMaps .name }}{{ end -}}
{{- end -}}
{{- range $volume := .unit.extraVolumes | default list -}}
{{- with $volume.secret }}{{ $secrets = append $secrets .secretName }}{{ end -}}
{{- with $volume.configMap }}{{ $configMaps = append $configMaps .name }}{{ end -}}
{{- range $projected := ($volume.projected | default dict).sources | default list -}}
{{- with $projected.secret }}{{ $secrets = append $secrets .name }}{{ end -}}
{{- with $projected.configMap }}{{ $configMaps = append $configMaps .name }}{{ end -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "secrets" ($secrets | uniq) "configMaps" ($configMaps | uniq)) -}}
{{- end -}}

{{/* A cert-manager duration (2160h, 90m, 1h30m0s) in seconds. */}}
{{- define "latchkey.durationSeconds" -}}
{{- $seconds := 0.0 -}}
{{- range $part := regexFindAll "[0-9.]+[hms]" (toString .) -1 -}}
{{- $number := float64 (trimSuffix "h" (trimSuffix "m" (trimSuffix "s" $part))) -}}
{{- $unit := get (dict "h" 3600.0 "m" 60.0 "s" 1.0) (substr (sub (len $part) 1 | int) (len $part) $part) -}}
{{- $seconds = addf $seconds (mulf $number $unit) -}}
{{- end -}}
{{- $seconds | int64 -}}
{{- end -}}

{{/* The units' CA Certificate: the chart's (mtls.certManager.ca.create), else the one named like its issuer. */}}
{{- define "latchkey.caCertificateName" -}}
{{- if .Values.mtls.certManager.ca.create -}}
{{- printf "%s-ca" (include "latchkey.fullname" .) -}}
{{- else -}}
{{- .Values.mtls.certManager.issuerRef.name | default (printf "%s-ca" (include "latchkey.fullname" .)) -}}
{{- end -}}
{{- end -}}
