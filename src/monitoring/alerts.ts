/**
 * @module monitoring/alerts
 * The one source of the alerting rules: the plain Prometheus rules file, the PrometheusRule of
 * `manifests --prometheus-rule`, the chart's template and the e2e scenario's shortened copy are
 * all rendered from `alertRules` (see render.ts). Each alert is a *signal* (a query that returns
 * series whenever the metrics behind it exist) and a *condition* on it, so the e2e scenario can
 * prove that every signal really returns series from the real apiserver and `serve`, not only
 * that the alert expression parses.
 *
 * Sources: our own metrics (`sidecar_injector_*`, docs/monitoring.md), the apiserver's admission
 * webhook metrics (labelled by webhook `name`; ours end in `.sidecar-injector.io`), and for the
 * PodDisruptionBudget kube-state-metrics, which the kube-prometheus stack ships: only it knows a
 * PDB's healthy and desired pod counts. Replicas are aggregated `without (instance, pod)`, which
 * keeps whatever target labels a scrape config adds (job, namespace, service).
 */
import { DEFAULT_WEBHOOK_DOMAIN } from '../install/webhook-rules.js';

type Severity = 'critical' | 'warning' | 'info';

export interface AlertParams {
  /** Namespace and name of the install (the PodDisruptionBudget is named like the Deployment). */
  namespace: string;
  name: string;
  /** The webhook's timeoutSeconds: the latency alerts fire at fractions of it. */
  timeoutSeconds: string;
  /** Base of the runbook links; `#anchor` is appended. */
  runbookBaseUrl: string;
  /** Replace every `for:` (the e2e scenario's short durations). */
  forOverride?: string;
}

export interface AlertSpec {
  alert: string;
  /** A query whose series the condition is applied to. */
  signal: string;
  /** What the signal is compared with, e.g. `> 0`. */
  condition: string;
  for: string;
  severity: Severity;
  summary: string;
  description: string;
  /** Heading anchor in docs/runbooks.md. */
  runbook: string;
}

interface AlertingRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: Severity };
  annotations: { summary: string; description: string; runbook_url: string };
}

export interface RuleGroup {
  name: string;
  rules: AlertingRule[];
}

const RULE_GROUP = 'sidecar-injector';
export const RUNBOOK_BASE_URL = 'https://github.com/sidecar-injector/sidecar-injector/blob/main/docs/runbooks.md';

/** Our webhook entries (namespace., object., auto.) in the apiserver's `name` label. */
export const WEBHOOK_NAME_MATCHER = `name=~".+\\\\.${DEFAULT_WEBHOOK_DOMAIN.replaceAll('.', '\\\\.')}"`;
const APISERVER = `${WEBHOOK_NAME_MATCHER}, type="admit"`;
const REPLICAS = 'without (instance, pod)';

/** The alerts, in the order the runbook lists them. */
export function alertSpecs(p: Pick<AlertParams, 'namespace' | 'name' | 'timeoutSeconds'>): AlertSpec[] {
  const pdb = `namespace="${p.namespace}", poddisruptionbudget="${p.name}"`;
  return [
    {
      alert: 'SidecarInjectorWebhookUnreachable',
      signal: `sum by (name, error_type) (rate(apiserver_admission_webhook_rejection_count{${APISERVER}, error_type!="no_error"}[5m]))`,
      condition: '> 0',
      for: '1m',
      severity: 'critical',
      summary: 'The apiserver cannot call the sidecar injector: pods that opt in are not created.',
      description:
        'The apiserver failed to call webhook {{ $labels.name }} ({{ $labels.error_type }}, {{ $value | humanize }}/s) and, under failurePolicy Fail, refused the pods it was creating.',
      runbook: 'sidecarinjectorwebhookunreachable',
    },
    {
      alert: 'SidecarInjectorWebhookFailingOpen',
      signal: `sum by (name) (rate(apiserver_admission_webhook_fail_open_count{${APISERVER}}[5m]))`,
      condition: '> 0',
      for: '1m',
      severity: 'warning',
      summary: 'The apiserver cannot call the sidecar injector and admits pods without their sidecar.',
      description: 'Calls to webhook {{ $labels.name }} fail and failurePolicy Ignore lets the pods through uninjected ({{ $value | humanize }}/s).',
      runbook: 'sidecarinjectorwebhookfailingopen',
    },
    {
      alert: 'SidecarInjectorInjectionFailing',
      signal: `sum ${REPLICAS} (rate(sidecar_injector_failures_total[5m]))`,
      condition: '> 0',
      for: '5m',
      severity: 'warning',
      summary: 'Pods that should get a sidecar are refused, or admitted without it.',
      description: 'Injection fails with {{ $labels.code }} and the webhook answers {{ $labels.action }} ({{ $value | humanize }}/s).',
      runbook: 'sidecarinjectorinjectionfailing',
    },
    {
      alert: 'SidecarInjectorRequestErrors',
      signal: `sum ${REPLICAS} (rate(sidecar_injector_requests_total{code!="200"}[5m]))`,
      condition: '> 0',
      for: '5m',
      severity: 'warning',
      summary: 'The sidecar injector answers admission requests with errors.',
      description:
        'HTTP {{ $labels.code }} answers to admission requests ({{ $value | humanize }}/s); the apiserver sends only valid reviews, so these are bugs, refused callers or something else calling.',
      runbook: 'sidecarinjectorrequesterrors',
    },
    {
      alert: 'SidecarInjectorAdmissionSlow',
      signal: `histogram_quantile(0.99, sum by (name, le) (rate(apiserver_admission_webhook_admission_duration_seconds_bucket{${APISERVER}}[5m])))`,
      condition: `> 0.8 * ${p.timeoutSeconds}`,
      for: '5m',
      severity: 'warning',
      summary: 'Admission through the sidecar injector is close to the webhook timeout.',
      description:
        'The apiserver waits {{ $value | humanizeDuration }} (p99) for webhook {{ $labels.name }}; at the timeout of ' +
        p.timeoutSeconds +
        ' s pod creations fail.',
      runbook: 'sidecarinjectoradmissionslow',
    },
    {
      alert: 'SidecarInjectorResponsesSlow',
      signal: `histogram_quantile(0.99, sum without (instance, pod, outcome) (rate(sidecar_injector_request_duration_seconds_bucket[5m])))`,
      condition: `> 0.5 * ${p.timeoutSeconds}`,
      for: '5m',
      severity: 'warning',
      summary: 'The sidecar injector takes more than half the webhook timeout to answer.',
      description: "p99 of the injector's own answer time is {{ $value | humanizeDuration }} (timeout " + p.timeoutSeconds + ' s).',
      runbook: 'sidecarinjectorresponsesslow',
    },
    {
      alert: 'SidecarInjectorTooFewReadyReplicas',
      signal: `kube_poddisruptionbudget_status_current_healthy{${pdb}}`,
      condition: `< kube_poddisruptionbudget_status_desired_healthy{${pdb}}`,
      for: '10m',
      severity: 'warning',
      summary: 'Fewer sidecar injector replicas are ready than its PodDisruptionBudget requires.',
      description:
        'Only {{ $value }} pods of {{ $labels.namespace }}/{{ $labels.poddisruptionbudget }} are healthy, fewer than the PodDisruptionBudget requires: node drains are blocked and one more lost pod stops injection.',
      runbook: 'sidecarinjectortoofewreadyreplicas',
    },
    {
      alert: 'SidecarInjectorCertificateExpiringSoon',
      signal: 'sidecar_injector_certificate_expiry_timestamp_seconds - time()',
      condition: '< 14 * 86400',
      for: '10m',
      severity: 'warning',
      summary: 'A certificate of the sidecar injector expires within 14 days.',
      description: 'The {{ $labels.certificate }} certificate expires in {{ $value | humanizeDuration }}; after that the apiserver cannot call the webhook.',
      runbook: 'sidecarinjectorcertificateexpiringsoon',
    },
    {
      alert: 'SidecarInjectorCABundleOutOfSync',
      signal: 'sidecar_injector_cabundle_in_sync',
      condition: '== 0',
      for: '10m',
      severity: 'warning',
      summary: "The webhook's caBundle may not trust the serving CA, and the injector cannot fix it.",
      description: 'The caBundle check of MutatingWebhookConfiguration {{ $labels.webhook_configuration }} keeps failing.',
      runbook: 'sidecarinjectorcabundleoutofsync',
    },
    {
      alert: 'SidecarInjectorReloadFailing',
      signal: 'sidecar_injector_last_reload_successful',
      condition: '== 0',
      for: '10m',
      severity: 'warning',
      summary: 'The sidecar injector refuses its new files and keeps serving the last good ones.',
      description: 'The newest {{ $labels.kind }} files were refused; the previous version keeps serving until they are fixed.',
      runbook: 'sidecarinjectorreloadfailing',
    },
    {
      alert: 'SidecarInjectorSidecarsMissing',
      signal: `sum ${REPLICAS} (sidecar_injector_pods{state="missing"})`,
      condition: '> 0',
      for: '15m',
      severity: 'warning',
      summary: 'Pods that should have a sidecar run without one.',
      description: '{{ $value }} pods that opted in run without their sidecar (admitted while the webhook was failing open).',
      runbook: 'sidecarinjectorsidecarsmissing',
    },
    {
      alert: 'SidecarInjectorSidecarsStale',
      signal: `sum ${REPLICAS} (sidecar_injector_pods{state="stale"})`,
      condition: '> 0',
      for: '2h',
      severity: 'info',
      summary: 'Pods run a sidecar that differs from what the current config injects.',
      description: '{{ $value }} pods have had a stale sidecar for two hours.',
      runbook: 'sidecarinjectorsidecarsstale',
    },
    {
      alert: 'SidecarInjectorNoReconcileLeader',
      signal: `sum ${REPLICAS} (sidecar_injector_reconcile_leader)`,
      condition: '== 0',
      for: '5m',
      severity: 'warning',
      summary: 'No replica of the sidecar injector holds the reconcile Lease.',
      description: 'serve --reconcile runs, but no replica leads: stale and missing sidecars are neither reported nor restarted.',
      runbook: 'sidecarinjectornoreconcileleader',
    },
  ];
}

export function alertRules(p: AlertParams): RuleGroup[] {
  return [
    {
      name: RULE_GROUP,
      rules: alertSpecs(p).map((s) => ({
        alert: s.alert,
        expr: `${s.signal} ${s.condition}`,
        for: p.forOverride ?? s.for,
        labels: { severity: s.severity },
        annotations: { summary: s.summary, description: s.description, runbook_url: `${p.runbookBaseUrl}#${s.runbook}` },
      })),
    },
  ];
}
